-- A run's samples packed in one row (`server/src/store/run_pack.rs`), its series named by a
-- small id into the metric dictionary instead of a `series` row per series with its names:
-- an LKP job of 5,000 keys is one row of ~65 KB instead of 5,000 rows of ~150 bytes each.
--
-- `series` and `sample` stay for databases older than this; the server packs their rows into
-- `run_data` when it starts, then deletes them.

-- Each (metric, param, unit, direction) once. Rows are never changed or deleted: an id means
-- the same names for ever (servers cache them). No unit is ''.
CREATE TABLE metric_key (
    id         INTEGER PRIMARY KEY,
    metric     TEXT NOT NULL,
    param      TEXT NOT NULL,
    unit       TEXT NOT NULL,
    direction  TEXT NOT NULL,
    UNIQUE (metric, param, unit, direction)
);

CREATE TABLE run_data (
    run_id  INTEGER PRIMARY KEY REFERENCES run(id) ON DELETE CASCADE,
    packed  BLOB NOT NULL
);
