-- What a trend reads, packed (see `server/src/store/trend_pack.rs`): per series key
-- (benchmark, machine, metric, param), the runs' sample counts, sums, minima and maxima with
-- their kernel, commit and commit time, `runs` records per chunk in run order. A trend of 10,000
-- commits × 5 runs reads ~50 rows instead of 50,000 (the driver hands rows over at ~7 µs each).
-- Written in the upload's transaction; filled for older databases when the server starts.
CREATE TABLE trend_chunk (
    benchmark   TEXT NOT NULL,
    machine_id  INTEGER NOT NULL REFERENCES machine(id),
    metric      TEXT NOT NULL,
    param       TEXT NOT NULL,
    chunk       INTEGER NOT NULL,
    runs        INTEGER NOT NULL,
    packed      BLOB NOT NULL,
    PRIMARY KEY (benchmark, machine_id, metric, param, chunk)
) WITHOUT ROWID;

-- The marked runs of a benchmark on a machine, found without reading the unmarked ones.
CREATE INDEX run_marked ON run (benchmark, machine_id) WHERE mark IS NOT NULL;

-- The commits of a history, packed in order (the rows of `history_commit` stay for lookups by
-- sha). Filled for older databases when the server starts.
ALTER TABLE history ADD COLUMN packed BLOB;

-- Bumped whenever the history is replaced, so that a reader's copy of it knows it is stale.
ALTER TABLE history ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
