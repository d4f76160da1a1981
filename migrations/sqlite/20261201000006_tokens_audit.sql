-- API tokens: only the SHA-256 of a token is stored; the token itself is shown once.
CREATE TABLE api_token (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    hash TEXT NOT NULL UNIQUE,
    -- Comma-separated: read, upload, mark, admin.
    scopes TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    expires_at TEXT,
    last_used_at TEXT,
    revoked_at TEXT
);

-- Who wrote what, and when: every write through the API or the command line.
CREATE TABLE audit (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    -- A token's name, `open` for an unauthenticated write in open mode, `cli` for the command line.
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT ''
);
CREATE INDEX audit_at ON audit (id DESC);

-- Who stored an upload (the token's name, or `open`).
ALTER TABLE upload ADD COLUMN uploaded_by TEXT;

-- Runs removed by deleting their upload, or corrected (machine, kernel, commit, tags): a
-- permalink that pinned one answers 410 and says what happened, by whom and when. The id
-- only grows: caches of permalinks key on its maximum.
CREATE TABLE retired_run (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL,
    upload_id INTEGER NOT NULL,
    reason TEXT NOT NULL,
    deleted_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    deleted_by TEXT NOT NULL
);
CREATE INDEX retired_run_by_run ON retired_run (run_id);

-- Browser sessions made by signing in with a token: only the SHA-256 of the cookie's value.
CREATE TABLE session (
    id INTEGER PRIMARY KEY,
    hash TEXT NOT NULL UNIQUE,
    token_id INTEGER NOT NULL REFERENCES api_token(id) ON DELETE CASCADE,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    expires_at TEXT NOT NULL
);
