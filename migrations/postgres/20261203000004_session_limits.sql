-- Sessions end when unused for `idle_days` as well as at `expires_at` (see
-- migrations/sqlite/20261203000010_session_limits.sql). No data-version trigger watches
-- `session`: using a session changes no data.
ALTER TABLE session ADD COLUMN last_seen_at TEXT;
ALTER TABLE session ADD COLUMN idle_days BIGINT NOT NULL DEFAULT 7;
UPDATE session SET last_seen_at = to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"');
