-- A series keeps its samples packed in one BLOB: (iteration i64, value f64) pairs,
-- little-endian, in iteration order. This is the record of samples from now on: a comparison of
-- a million samples reads a few hundred rows instead of a million (SQLite alone needs 0.1 s to
-- scan 1M `sample` rows, the driver 1.5 s to hand them over), and an upload writes one row per
-- series instead of one per sample.
--
-- `sample` keeps the samples of series stored before this migration (their `packed` is NULL);
-- readers fall back to it for those.
ALTER TABLE series ADD COLUMN packed BLOB;
