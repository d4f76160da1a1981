-- Confirmation before alerting (see server/src/services/alerts/confirm.rs): reruns requested
-- of robots, and what a summary awaiting them needs.

-- Runs asked of a robot (`GET /api/v1/work?machine=M`): `runs` runs of `benchmark` on
-- `machine` built from `commit_sha`. Runs stored after `after_run` with that benchmark,
-- machine and commit count towards it.
CREATE TABLE work_request (
    id           INTEGER PRIMARY KEY,
    kind         TEXT NOT NULL CHECK (kind IN ('confirm', 'bisect')),
    summary_id   INTEGER REFERENCES alert_summary(id) ON DELETE CASCADE,
    bisection_id INTEGER,
    -- Which side of the step the commit was on when asked: 'good' or 'bad' ('' for none).
    side         TEXT NOT NULL DEFAULT '',
    benchmark    TEXT NOT NULL,
    machine      TEXT NOT NULL,
    metric       TEXT NOT NULL,
    param        TEXT NOT NULL,
    commit_sha   TEXT NOT NULL,
    kernel       TEXT NOT NULL,
    runs         INTEGER NOT NULL,
    received     INTEGER NOT NULL DEFAULT 0,
    after_run    INTEGER NOT NULL,
    reason       TEXT NOT NULL,
    state        TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done', 'cancelled')),
    created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX work_request_pending ON work_request (machine, id) WHERE state = 'pending';
CREATE INDEX work_request_by_summary ON work_request (summary_id);

-- Unix milliseconds after which a summary still awaiting confirmation is confirmed unchecked
-- (NULL: not awaiting); and what the reruns said, once settled.
ALTER TABLE alert_summary ADD COLUMN confirm_by INTEGER;
ALTER TABLE alert_summary ADD COLUMN confirmation TEXT;
-- The spread of one run of the alert's series when it was found (the series' between-run
-- noise), which the reruns are judged against; NULL when unknown.
ALTER TABLE alert ADD COLUMN run_sd REAL;
-- 0: the rule's steps alert at once, without reruns; NULL or 1: they await confirmation.
ALTER TABLE alert_rule ADD COLUMN confirm INTEGER;

CREATE TRIGGER data_version_work_request_insert AFTER INSERT ON work_request
BEGIN UPDATE data_version SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER data_version_work_request_update AFTER UPDATE ON work_request
BEGIN UPDATE data_version SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER data_version_work_request_delete AFTER DELETE ON work_request
BEGIN UPDATE data_version SET version = version + 1 WHERE id = 1; END;
