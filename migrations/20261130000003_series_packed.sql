-- Each series also keeps its samples packed in one BLOB: (iteration i64, value f64) pairs,
-- little-endian, in iteration order. Comparisons read these instead of a million `sample` rows
-- (SQLite alone needs 0.1 s to scan 1M rows, and the driver 1.5 s to hand them over); the
-- `sample` table stays the row-per-sample record. NULL for series stored before this migration:
-- those are read from `sample`.
ALTER TABLE series ADD COLUMN packed BLOB;
