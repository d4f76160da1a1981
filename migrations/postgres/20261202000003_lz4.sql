-- The large values (raw uploaded files, packed samples, packed trends and histories) are
-- TOASTed with lz4 instead of the default pglz: several times faster to compress on the
-- upload's path (a 45 MB CSV compressed by pglz took most of its transaction), and about as
-- small. Existing values keep their compression until rewritten. (PostgreSQL 14 or newer,
-- built with lz4, as Debian's is.)
ALTER TABLE upload_file ALTER COLUMN raw SET COMPRESSION lz4;
ALTER TABLE series ALTER COLUMN packed SET COMPRESSION lz4;
ALTER TABLE trend_chunk ALTER COLUMN packed SET COMPRESSION lz4;
ALTER TABLE history ALTER COLUMN packed SET COMPRESSION lz4;
