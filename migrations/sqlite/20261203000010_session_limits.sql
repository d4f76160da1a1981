-- Sessions end when unused for `idle_days` (the --session-idle-days in force when the session
-- was made) as well as at `expires_at` (--session-max-days from signing in). `last_seen_at` is
-- when the session was last used, written at most once a minute. Neither column is data the
-- pages derive anything from: no data-version trigger watches `session`.
ALTER TABLE session ADD COLUMN last_seen_at TEXT;
ALTER TABLE session ADD COLUMN idle_days INTEGER NOT NULL DEFAULT 7;
-- Sessions made before: their idle time counts from now.
UPDATE session SET last_seen_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now');
