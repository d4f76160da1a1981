-- Trends by block (`server/src/store/trend_block.rs`): the runs of a benchmark on a machine,
-- in run order, folded 32 at a time. A block says once who its runs are (id, kernel, commit,
-- commit time); a cell holds one series key's summaries in one block. An upload writes no
-- trend row until its benchmark and machine have 32 runs past the last block; then one block
-- and a cell per key are written, and never rewritten (but by a deletion or a correction,
-- which fold again from the first block they touch). Runs past the last block are read from
-- `run_data`. This replaces `trend_chunk` (a row per series key rewritten by every upload,
-- each record with its own strings), which the server empties when it starts.
CREATE TABLE trend_block (
    benchmark   TEXT NOT NULL,
    machine_id  INTEGER NOT NULL REFERENCES machine(id),
    block       INTEGER NOT NULL,
    last_run    INTEGER NOT NULL,
    runs        BLOB NOT NULL,
    PRIMARY KEY (benchmark, machine_id, block)
) WITHOUT ROWID;

CREATE TABLE trend_cell (
    benchmark   TEXT NOT NULL,
    machine_id  INTEGER NOT NULL,
    metric_key  INTEGER NOT NULL,
    block       INTEGER NOT NULL,
    packed      BLOB NOT NULL,
    PRIMARY KEY (benchmark, machine_id, metric_key, block)
) WITHOUT ROWID;

-- The series keys with a cell, for the trend page's choices.
CREATE TABLE trend_key (
    benchmark   TEXT NOT NULL,
    machine_id  INTEGER NOT NULL,
    metric_key  INTEGER NOT NULL,
    PRIMARY KEY (benchmark, machine_id, metric_key)
) WITHOUT ROWID;
