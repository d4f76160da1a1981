-- Trends by block (see migrations/sqlite/20261203000012_trend_block.sql).
CREATE TABLE trend_block (
    benchmark   TEXT NOT NULL,
    machine_id  BIGINT NOT NULL REFERENCES machine(id),
    block       BIGINT NOT NULL,
    last_run    BIGINT NOT NULL,
    runs        BYTEA NOT NULL,
    PRIMARY KEY (benchmark, machine_id, block)
);

CREATE TABLE trend_cell (
    benchmark   TEXT NOT NULL,
    machine_id  BIGINT NOT NULL,
    metric_key  BIGINT NOT NULL,
    block       BIGINT NOT NULL,
    packed      BYTEA NOT NULL,
    PRIMARY KEY (benchmark, machine_id, metric_key, block)
);

CREATE TABLE trend_key (
    benchmark   TEXT NOT NULL,
    machine_id  BIGINT NOT NULL,
    metric_key  BIGINT NOT NULL,
    PRIMARY KEY (benchmark, machine_id, metric_key)
);
