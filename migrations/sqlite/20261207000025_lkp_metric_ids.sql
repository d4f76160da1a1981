-- SPDX-License-Identifier: GPL-3.0-or-later
-- The metrics a report's table names, by a small id (issue 56): an archive's sections name
-- ~320 metrics each but only a few thousand distinct ones, so the index of
-- `GET /api/v1/reports?metric=` holds two integers a row instead of the name. A name's id is
-- never changed or reused. The rows are written with their report and name in one
-- transaction (`store::lkp_report`), so they carry no foreign keys: checking two a row
-- cost a tenth of an import. Nothing deletes reports yet.
CREATE TABLE lkp_metric (
    id    INTEGER PRIMARY KEY,
    name  TEXT NOT NULL UNIQUE
);
INSERT INTO lkp_metric (name) SELECT DISTINCT metric FROM lkp_report_metric ORDER BY metric;

CREATE TABLE lkp_report_metric_id (
    metric_id   INTEGER NOT NULL,
    report_id   INTEGER NOT NULL,
    PRIMARY KEY (metric_id, report_id)
) WITHOUT ROWID;
INSERT INTO lkp_report_metric_id (metric_id, report_id)
    SELECT m.id, r.report_id FROM lkp_report_metric r JOIN lkp_metric m ON m.name = r.metric;
DROP TABLE lkp_report_metric;
ALTER TABLE lkp_report_metric_id RENAME TO lkp_report_metric;

-- What the reports page lists and charts by (issue 56): the subject's bracket (`[mm]`), the
-- mail's date in UTC (ISO-8601, sortable), and the KPI row's means on both sides. Sections
-- stored before this are left blank: re-importing the mails does not store them again.
ALTER TABLE lkp_report ADD COLUMN subsystem TEXT NOT NULL DEFAULT '';
ALTER TABLE lkp_report ADD COLUMN sent_at TEXT NOT NULL DEFAULT '';
ALTER TABLE lkp_report ADD COLUMN kpi_base REAL;
ALTER TABLE lkp_report ADD COLUMN kpi_head REAL;
CREATE INDEX lkp_report_sent ON lkp_report (sent_at);
CREATE INDEX lkp_report_kpi ON lkp_report (testcase, kpi, sent_at);
CREATE INDEX lkp_report_subsystem ON lkp_report (subsystem, sent_at);
CREATE INDEX lkp_report_machine ON lkp_report (machine, sent_at);
