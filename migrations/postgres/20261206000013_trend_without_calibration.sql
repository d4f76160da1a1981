-- See migrations/sqlite/20261206000019_trend_without_calibration.sql.
DELETE FROM trend_cell WHERE EXISTS (SELECT 1 FROM upload WHERE calibration IS NOT NULL);
DELETE FROM trend_key WHERE EXISTS (SELECT 1 FROM upload WHERE calibration IS NOT NULL);
DELETE FROM trend_block WHERE EXISTS (SELECT 1 FROM upload WHERE calibration IS NOT NULL);
