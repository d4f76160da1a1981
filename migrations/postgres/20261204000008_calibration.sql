-- See migrations/sqlite/20261204000014_calibration.sql.
ALTER TABLE upload ADD COLUMN calibration TEXT;
CREATE INDEX upload_calibration ON upload (calibration) WHERE calibration IS NOT NULL;
