-- Bisections Perfline drives (see server/src/services/bisect.rs and server/src/bisect.rs).
CREATE TABLE bisection (
    id          INTEGER PRIMARY KEY,
    state       TEXT NOT NULL DEFAULT 'running' CHECK (state IN ('running', 'done', 'failed', 'cancelled')),
    summary_id  INTEGER REFERENCES alert_summary(id) ON DELETE SET NULL,
    benchmark   TEXT NOT NULL,
    machine     TEXT NOT NULL,
    metric      TEXT NOT NULL,
    param       TEXT NOT NULL,
    -- repo/branch of the history bisected, and the two commits it started from (full shas).
    history     TEXT NOT NULL,
    good        TEXT NOT NULL,
    bad         TEXT NOT NULL,
    -- The step looked for (bad level − good level, as found) and one run's spread.
    step        REAL NOT NULL,
    run_sd      REAL NOT NULL,
    max_runs    INTEGER NOT NULL,
    -- Runs with a greater id are the bisection's (fresh runs only).
    after_run   INTEGER NOT NULL,
    culprit     TEXT,
    reason      TEXT,
    suspicious  TEXT,
    created_by  TEXT NOT NULL,
    created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX bisection_running ON bisection (id) WHERE state = 'running';

-- A bisection's audit trail.
CREATE TABLE bisection_event (
    id           INTEGER PRIMARY KEY,
    bisection_id INTEGER NOT NULL REFERENCES bisection(id) ON DELETE CASCADE,
    at           TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    actor        TEXT NOT NULL,
    kind         TEXT NOT NULL,
    detail       TEXT NOT NULL
);
CREATE INDEX bisection_event_by_bisection ON bisection_event (bisection_id, id);

-- Runs of a bisection's request handed out by GET /api/v1/bisections/{id}/next and not yet
-- uploaded, and when (unix ms): a robot that never uploads them gives them back after a while.
ALTER TABLE work_request ADD COLUMN handed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE work_request ADD COLUMN handed_at INTEGER NOT NULL DEFAULT 0;

CREATE TRIGGER data_version_bisection_insert AFTER INSERT ON bisection
BEGIN UPDATE data_version SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER data_version_bisection_update AFTER UPDATE ON bisection
BEGIN UPDATE data_version SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER data_version_bisection_delete AFTER DELETE ON bisection
BEGIN UPDATE data_version SET version = version + 1 WHERE id = 1; END;

-- What a history uploaded with files (`perfline history --with-files`) says of a commit: its
-- parents (a merge has two or more) and the files it touches (JSON; NULL: too many).
CREATE TABLE commit_detail (
    sha      TEXT PRIMARY KEY,
    parents  INTEGER NOT NULL,
    files    TEXT
);
