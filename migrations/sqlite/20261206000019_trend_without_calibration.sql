-- A/A runs (`calibration=NAME` uploads) are no longer points of a trend. Trend blocks folded
-- with them are dropped, all of them when any A/A upload exists: the server folds them again
-- at start (`Store::fill_packed` folds when runs exist and no block does).
DELETE FROM trend_cell WHERE EXISTS (SELECT 1 FROM upload WHERE calibration IS NOT NULL);
DELETE FROM trend_key WHERE EXISTS (SELECT 1 FROM upload WHERE calibration IS NOT NULL);
DELETE FROM trend_block WHERE EXISTS (SELECT 1 FROM upload WHERE calibration IS NOT NULL);
