-- See migrations/sqlite/20261206000020_leases.sql.
ALTER TABLE work_request ADD COLUMN holder TEXT;
ALTER TABLE work_request ADD COLUMN lease_until BIGINT NOT NULL DEFAULT 0;
ALTER TABLE work_request ADD COLUMN failures BIGINT NOT NULL DEFAULT 0;
ALTER TABLE work_request ADD COLUMN last_failure TEXT;
ALTER TABLE work_request ADD COLUMN last_failure_at BIGINT;

CREATE TABLE robot (
    name       TEXT PRIMARY KEY,
    machine    TEXT NOT NULL,
    first_seen BIGINT NOT NULL,
    last_seen  BIGINT NOT NULL,
    last_work  TEXT NOT NULL DEFAULT ''
);

ALTER TABLE alert_rule ADD COLUMN history TEXT;
ALTER TABLE alert_rule ADD COLUMN bisect BIGINT;
ALTER TABLE alert_summary ADD COLUMN bisect_checked BIGINT NOT NULL DEFAULT 0;
UPDATE alert_summary SET bisect_checked = 1;
