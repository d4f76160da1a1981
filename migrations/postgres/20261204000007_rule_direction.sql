-- See migrations/sqlite/20261204000013_rule_direction.sql.
ALTER TABLE alert_rule ADD COLUMN direction TEXT CHECK (direction IN ('higher', 'lower'));
