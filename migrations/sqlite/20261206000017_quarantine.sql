-- What a background task set aside (issue 51): an item whose work panicked or failed in a way
-- retrying cannot mend, so the task goes on with the rest and no restart retries it for
-- ever. The tasks skip a quarantined item; an admin sees the list (`GET /api/v1/background`)
-- and releases an item to have it tried again (`DELETE /api/v1/background/quarantine/{id}`).
CREATE TABLE quarantine (
    id          INTEGER PRIMARY KEY,
    -- The task: detector, confirmation, bisection, notifier, deliverer.
    task        TEXT NOT NULL,
    -- What the item is: `series` (an `alert_job`'s series), `summary`, `bisection`, `event`
    -- (an `alert_event`), `delivery` (an `outbox` row).
    kind        TEXT NOT NULL,
    -- The summary, bisection, event or outbox row; for a series, the upload that queued it.
    item_id     INTEGER NOT NULL DEFAULT 0,
    -- A series' key ('' and 0 for the other kinds).
    benchmark   TEXT NOT NULL DEFAULT '',
    machine_id  INTEGER NOT NULL DEFAULT 0,
    metric      TEXT NOT NULL DEFAULT '',
    param       TEXT NOT NULL DEFAULT '',
    -- The item in words, and why it was set aside (the panic's message or the error).
    what        TEXT NOT NULL,
    error       TEXT NOT NULL,
    at          TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE UNIQUE INDEX quarantine_item ON quarantine (kind, item_id, benchmark, machine_id, metric, param);
