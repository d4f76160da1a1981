-- Regression alerts (see server/src/alerts/).

-- Series to re-examine: written in the upload's transaction, one row per series key however
-- many uploads touched it since; deleted in the transaction that stores what the detector
-- found. A server that stops with rows here examines them when it starts again.
CREATE TABLE alert_job (
    benchmark   TEXT NOT NULL,
    machine_id  INTEGER NOT NULL REFERENCES machine(id),
    metric      TEXT NOT NULL,
    param       TEXT NOT NULL,
    -- The newest upload that touched the series; a job is done only if it is still this one.
    upload_id   INTEGER NOT NULL,
    queued_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (benchmark, machine_id, metric, param)
) WITHOUT ROWID;

-- What counts as an alert, first matching rule wins (by position); fields left NULL take the
-- defaults. Replaced as a whole through PUT /api/v1/alert-rules; read by the detector on
-- every job, so a change takes effect without a restart.
CREATE TABLE alert_rule (
    position        INTEGER PRIMARY KEY,
    benchmark       TEXT NOT NULL DEFAULT '*',
    metric          TEXT NOT NULL DEFAULT '*',
    min_change_pct  REAL,
    alpha           REAL,
    min_before      INTEGER,
    min_after       INTEGER,
    is_ignored      INTEGER NOT NULL DEFAULT 0
);

-- One summary per benchmark, machine and commit range (last good, first bad), like one LKP
-- mail: all the metrics that changed there.
CREATE TABLE alert_summary (
    id              INTEGER PRIMARY KEY,
    benchmark       TEXT NOT NULL,
    machine         TEXT NOT NULL,
    good_kernel     TEXT NOT NULL,
    -- '' when the run named no commit.
    good_sha        TEXT NOT NULL DEFAULT '',
    bad_kernel      TEXT NOT NULL,
    bad_sha         TEXT NOT NULL DEFAULT '',
    -- repo/branch of the history the range was found in, and the commits strictly between.
    history         TEXT,
    commits_between INTEGER,
    status          TEXT NOT NULL DEFAULT 'new',
    note            TEXT NOT NULL DEFAULT '',
    assignee        TEXT NOT NULL DEFAULT '',
    -- The summary whose improvement undid this one's regression.
    fixed_by        INTEGER REFERENCES alert_summary(id),
    regressions     INTEGER NOT NULL DEFAULT 0,
    improvements    INTEGER NOT NULL DEFAULT 0,
    -- The largest |change| of its regressions (else improvements), for sorting and subjects.
    worst_pct       REAL NOT NULL DEFAULT 0,
    created_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    UNIQUE (benchmark, machine, good_kernel, bad_kernel, good_sha, bad_sha)
);
CREATE INDEX alert_summary_status ON alert_summary (status, id DESC);
CREATE INDEX alert_summary_bench ON alert_summary (benchmark, machine, id DESC);

-- One changed metric of a summary.
CREATE TABLE alert (
    id              INTEGER PRIMARY KEY,
    summary_id      INTEGER NOT NULL REFERENCES alert_summary(id) ON DELETE CASCADE,
    metric          TEXT NOT NULL,
    param           TEXT NOT NULL,
    unit            TEXT,
    direction       TEXT NOT NULL,
    regression      INTEGER NOT NULL,
    level_before    REAL NOT NULL,
    level_after     REAL NOT NULL,
    change_pct      REAL NOT NULL,
    p_value         REAL NOT NULL,
    points_before   INTEGER NOT NULL,
    points_after    INTEGER NOT NULL,
    -- JSON array of the per-commit means around the step, for the sparkline.
    spark           TEXT NOT NULL,
    -- The index of the first bad commit in `spark`.
    spark_step      INTEGER NOT NULL
);
CREATE INDEX alert_by_summary ON alert (summary_id);
CREATE INDEX alert_by_series ON alert (metric, param);

-- Every event of a summary: its creation (`new`, by `perfline`) and each triage change, with
-- who and when. Written in the transaction of the change; `notified` turns 1 in the
-- transaction that puts its notifications in the outbox, so none is lost or sent twice.
CREATE TABLE alert_event (
    id              INTEGER PRIMARY KEY,
    summary_id      INTEGER NOT NULL REFERENCES alert_summary(id) ON DELETE CASCADE,
    kind            TEXT NOT NULL,
    at              TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    actor           TEXT NOT NULL,
    status          TEXT NOT NULL,
    note            TEXT NOT NULL,
    assignee        TEXT NOT NULL,
    notified        INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX alert_event_by_summary ON alert_event (summary_id, id);
CREATE INDEX alert_event_unnotified ON alert_event (id) WHERE notified = 0;

-- Notifications to deliver: written in the transaction of the event they announce, delivered
-- in id order per target, retried with backoff until delivered (or given up on, after
-- --notify-give-up hours).
CREATE TABLE outbox (
    id              INTEGER PRIMARY KEY,
    -- `webhook` (target: the URL) or `mail` (target: the recipients, comma-separated).
    channel         TEXT NOT NULL,
    target          TEXT NOT NULL,
    summary_id      INTEGER NOT NULL,
    event           TEXT NOT NULL,
    -- The JSON body of a webhook, or the whole RFC 5322 message of a mail.
    payload         BLOB NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    -- Unix milliseconds of the next attempt.
    next_at         INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT,
    created_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    delivered_at    TEXT,
    failed_at       TEXT
);
CREATE INDEX outbox_pending ON outbox (channel, target, id) WHERE delivered_at IS NULL AND failed_at IS NULL;
