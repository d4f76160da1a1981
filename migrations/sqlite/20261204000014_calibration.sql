-- An A/A upload (`calibration=NAME`): every run the same kernel and setup, reboots between.
-- NULL for every other upload.
ALTER TABLE upload ADD COLUMN calibration TEXT;
CREATE INDEX upload_calibration ON upload (calibration) WHERE calibration IS NOT NULL;
