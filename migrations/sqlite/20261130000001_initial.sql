-- Perfline's data model. See ARCHITECTURE.md for what each table means.

-- A testbed. `facts` is a JSON object of free-form facts (cpu, memory, ...).
CREATE TABLE machine (
    id      INTEGER PRIMARY KEY,
    name    TEXT NOT NULL UNIQUE,
    cpu     TEXT,
    memory  TEXT,
    facts   TEXT NOT NULL DEFAULT '{}'
);

-- A kernel label as users write it (`4.16.0-rc1-vanilla`). Ordering is kernel-aware and done in
-- Rust (`app::kernel`); `commit_sha` and `position` place it in a history when known.
CREATE TABLE kernel (
    id          INTEGER PRIMARY KEY,
    version     TEXT NOT NULL UNIQUE,
    commit_sha  TEXT,
    position    INTEGER
);

-- One upload request. `digest` is the SHA-256 of its metadata and every file's bytes, so the
-- same upload sent twice is recognised and stored once.
CREATE TABLE upload (
    id          INTEGER PRIMARY KEY,
    digest      TEXT NOT NULL UNIQUE,
    metadata    TEXT NOT NULL,
    uploader    TEXT,
    created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);

-- The raw bytes of each file of an upload, kept byte for byte so they can be re-parsed.
CREATE TABLE upload_file (
    upload_id   INTEGER NOT NULL REFERENCES upload(id) ON DELETE CASCADE,
    idx         INTEGER NOT NULL,
    name        TEXT,
    format      TEXT NOT NULL,
    sha256      TEXT NOT NULL,
    size        INTEGER NOT NULL,
    raw         BLOB NOT NULL,
    PRIMARY KEY (upload_id, idx)
);

-- One execution of a benchmark on one machine with one kernel.
CREATE TABLE run (
    id            INTEGER PRIMARY KEY,
    upload_id     INTEGER NOT NULL REFERENCES upload(id) ON DELETE CASCADE,
    benchmark     TEXT NOT NULL,
    machine_id    INTEGER NOT NULL REFERENCES machine(id),
    kernel_id     INTEGER NOT NULL REFERENCES kernel(id),
    commit_sha    TEXT,
    tags          TEXT NOT NULL DEFAULT '[]',
    facts         TEXT NOT NULL DEFAULT '{}',
    mark          TEXT CHECK (mark IN ('good', 'bad', 'skip')),
    sample_count  INTEGER NOT NULL,
    created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX run_by_benchmark ON run (benchmark, machine_id, kernel_id);
CREATE INDEX run_by_upload ON run (upload_id);

-- One metric at one parameter within a run (e.g. `Throughput` at message size 64).
CREATE TABLE series (
    id         INTEGER PRIMARY KEY,
    run_id     INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
    metric     TEXT NOT NULL,
    param      TEXT NOT NULL,
    unit       TEXT,
    direction  TEXT NOT NULL CHECK (direction IN ('higher', 'lower')),
    UNIQUE (run_id, metric, param)
);

-- The measured values. Clustered by series so a series reads as one range.
CREATE TABLE sample (
    series_id  INTEGER NOT NULL REFERENCES series(id) ON DELETE CASCADE,
    iteration  INTEGER NOT NULL,
    value      REAL NOT NULL,
    PRIMARY KEY (series_id, iteration)
) WITHOUT ROWID;

-- An immutable comparison: the exact runs and options, by a short unguessable id.
CREATE TABLE permalink (
    id          TEXT PRIMARY KEY,
    spec        TEXT NOT NULL,
    created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
