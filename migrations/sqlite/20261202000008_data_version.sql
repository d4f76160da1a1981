-- The data version: bumped inside every transaction that changes what pages and the API derive
-- from the store (uploads, marks, corrections, deletions, histories, bisect logs, alerts), by
-- triggers, so that whoever writes (this server, another on the same file, a maintenance
-- script's SQL) bumps it; nothing else does (permalinks, tokens, sessions, audit, the outbox).
-- Caches of derived data are keyed by it. Inserting runs and series needs no trigger: they
-- come with their upload, whose insert bumps it once.
CREATE TABLE data_version (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL
);
INSERT INTO data_version (id, version) VALUES (1, 0);

CREATE TRIGGER data_version_upload_insert AFTER INSERT ON upload
BEGIN UPDATE data_version SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER data_version_upload_delete AFTER DELETE ON upload
BEGIN UPDATE data_version SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER data_version_run_update AFTER UPDATE ON run
BEGIN UPDATE data_version SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER data_version_run_delete AFTER DELETE ON run
BEGIN UPDATE data_version SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER data_version_series_update AFTER UPDATE OF metric, param, unit, direction ON series
BEGIN UPDATE data_version SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER data_version_history_insert AFTER INSERT ON history
BEGIN UPDATE data_version SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER data_version_history_update AFTER UPDATE ON history
BEGIN UPDATE data_version SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER data_version_history_delete AFTER DELETE ON history
BEGIN UPDATE data_version SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER data_version_commit_mark_insert AFTER INSERT ON commit_mark
BEGIN UPDATE data_version SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER data_version_commit_mark_update AFTER UPDATE ON commit_mark
BEGIN UPDATE data_version SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER data_version_commit_mark_delete AFTER DELETE ON commit_mark
BEGIN UPDATE data_version SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER data_version_alert_summary_insert AFTER INSERT ON alert_summary
BEGIN UPDATE data_version SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER data_version_alert_summary_update AFTER UPDATE ON alert_summary
BEGIN UPDATE data_version SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER data_version_alert_summary_delete AFTER DELETE ON alert_summary
BEGIN UPDATE data_version SET version = version + 1 WHERE id = 1; END;
