-- Permalinks an anonymous reader made (token mode, no token or session): at most
-- `--max-anonymous-permalinks` of them are kept, the oldest removed first when a new one is
-- made (`Store::ensure_permalinks`). A token holder's, or one a token holder asked for again,
-- has `anonymous = 0` and is kept for ever.
ALTER TABLE permalink ADD COLUMN anonymous BIGINT NOT NULL DEFAULT 0;
CREATE INDEX permalink_anonymous ON permalink (created_at, id) WHERE anonymous = 1;
