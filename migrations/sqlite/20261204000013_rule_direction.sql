-- The direction an alert rule gives the metrics it matches that have none of their own
-- ('higher' or 'lower'; NULL: none), applied as they are uploaded.
ALTER TABLE alert_rule ADD COLUMN direction TEXT CHECK (direction IN ('higher', 'lower'));
