-- Who runs each background task that must run once across the servers sharing this database
-- (the alert detector, the notifier, the deliverer): one row per task, held by one process
-- until `expires_at` (Unix milliseconds), renewed while it runs, taken over when it lapses.
CREATE TABLE worker_lease (
    name        TEXT PRIMARY KEY,
    holder      TEXT NOT NULL,
    expires_at  INTEGER NOT NULL
);
