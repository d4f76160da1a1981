-- Leases on work (issue 52): runs a robot took are promised to it until `lease_until` (unix
-- ms), which the robot renews while its command runs; a robot that dies frees them when the
-- lease ends, one whose command failed frees them at once (`failures`, `last_failure`).
-- `holder` is the robot that took runs last, `handed_at` (migration 0016) when.
ALTER TABLE work_request ADD COLUMN holder TEXT;
ALTER TABLE work_request ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 0;
ALTER TABLE work_request ADD COLUMN failures INTEGER NOT NULL DEFAULT 0;
ALTER TABLE work_request ADD COLUMN last_failure TEXT;
ALTER TABLE work_request ADD COLUMN last_failure_at INTEGER;

-- Robots seen asking for work, taking, renewing or giving it back (the dashboard's robots).
CREATE TABLE robot (
    name       TEXT PRIMARY KEY,
    machine    TEXT NOT NULL,
    first_seen INTEGER NOT NULL,
    last_seen  INTEGER NOT NULL,
    last_work  TEXT NOT NULL DEFAULT ''
);

-- Alert rules that start bisections (`history`, `bisect`: see server/src/alert_rule.rs).
ALTER TABLE alert_rule ADD COLUMN history TEXT;
ALTER TABLE alert_rule ADD COLUMN bisect INTEGER;
-- Whether the detector looked at a summary for a bisection its rule starts (once); those
-- stored before are not bisected by a rule added now.
ALTER TABLE alert_summary ADD COLUMN bisect_checked INTEGER NOT NULL DEFAULT 0;
UPDATE alert_summary SET bisect_checked = 1;
