-- A permalink is found again by the digest of its spec, so that asking for the same comparison
-- (the same runs and options) twice yields the same link instead of a new row.
ALTER TABLE permalink ADD COLUMN digest TEXT;
CREATE UNIQUE INDEX permalink_by_digest ON permalink (digest);
