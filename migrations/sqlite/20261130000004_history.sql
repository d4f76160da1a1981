-- Histories: the commit order of a repository's branch, uploaded from `git log` or
-- `git rev-list`. Position 0 is the oldest commit.
CREATE TABLE history (
    id          INTEGER PRIMARY KEY,
    repo        TEXT NOT NULL,
    branch      TEXT NOT NULL,
    updated_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    UNIQUE (repo, branch)
);

CREATE TABLE history_commit (
    history_id  INTEGER NOT NULL REFERENCES history(id) ON DELETE CASCADE,
    position    INTEGER NOT NULL,
    sha         TEXT NOT NULL,
    time        INTEGER,
    subject     TEXT,
    PRIMARY KEY (history_id, position)
) WITHOUT ROWID;
CREATE INDEX history_commit_by_sha ON history_commit (sha);

-- Bisect marks on commits (from a `git bisect log`, or set on the trend page for a commit);
-- marks on single runs are `run.mark`.
CREATE TABLE commit_mark (
    sha        TEXT PRIMARY KEY,
    mark       TEXT NOT NULL CHECK (mark IN ('good', 'bad', 'skip')),
    first_bad  INTEGER NOT NULL DEFAULT 0
);

-- The commit time given at upload (seconds since the epoch), the second way to order commits.
ALTER TABLE run ADD COLUMN commit_time INTEGER;
