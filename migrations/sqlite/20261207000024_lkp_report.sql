-- SPDX-License-Identifier: GPL-3.0-or-later
-- The kernel test robot's report mails, one row per detail section (issue 56): what the list
-- and the search need as columns, the section itself (commits, columns, table cells) and the
-- mail's header facts as deflated JSON (`services::reports`). A mail is known by its Message-ID: the
-- same mail twice stores nothing new.
CREATE TABLE lkp_report (
    id          INTEGER PRIMARY KEY,
    message_id  TEXT NOT NULL,
    section     INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    kpi         TEXT NOT NULL,
    change      TEXT NOT NULL,
    commit_sha  TEXT NOT NULL,
    base        TEXT NOT NULL,
    testcase    TEXT NOT NULL,
    machine     TEXT NOT NULL,
    subject     TEXT NOT NULL,
    mail_date   TEXT NOT NULL,
    -- deflated (zlib) JSON: a section's cells are ~60 KB as JSON, a tenth deflated.
    report      BLOB NOT NULL,
    created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    UNIQUE (message_id, section)
);
CREATE INDEX lkp_report_commit ON lkp_report (commit_sha);
CREATE INDEX lkp_report_testcase ON lkp_report (testcase);

-- Every metric a report's table names, for `GET /api/v1/reports?metric=`.
CREATE TABLE lkp_report_metric (
    report_id   INTEGER NOT NULL REFERENCES lkp_report (id) ON DELETE CASCADE,
    metric      TEXT NOT NULL,
    PRIMARY KEY (metric, report_id)
) WITHOUT ROWID;
