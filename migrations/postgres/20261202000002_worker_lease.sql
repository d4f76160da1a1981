-- See migrations/sqlite/20261202000009_worker_lease.sql.
CREATE TABLE worker_lease (
    name        TEXT PRIMARY KEY,
    holder      TEXT NOT NULL,
    expires_at  BIGINT NOT NULL
);
