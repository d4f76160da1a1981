-- Permalinks an anonymous reader made (token mode, no token or session): at most
-- `--max-anonymous-permalinks` of them are kept, the oldest removed first when a new one is
-- made (`Store::ensure_permalinks`). `anonymous` is 0 for a permalink kept for ever (a token
-- holder's, or an anonymous one a token holder asked for again); else the order anonymous ones
-- were made in, 1, 2, 3, ... (the lowest goes first).
ALTER TABLE permalink ADD COLUMN anonymous INTEGER NOT NULL DEFAULT 0;
CREATE INDEX permalink_anonymous ON permalink (anonymous) WHERE anonymous > 0;
