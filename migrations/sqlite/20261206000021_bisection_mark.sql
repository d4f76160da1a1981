-- The verdicts of a bisection Perfline drives, its own (issue 52): a trend shows those of the
-- newest running or finished bisection of its series, never those of a failed, cancelled or
-- superseded one. `commit_mark` keeps the marks people upload (`POST /api/v1/bisect`).
CREATE TABLE bisection_mark (
    bisection_id INTEGER NOT NULL REFERENCES bisection(id) ON DELETE CASCADE,
    sha          TEXT NOT NULL,
    mark         TEXT NOT NULL CHECK (mark IN ('good', 'bad', 'skip')),
    first_bad    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (bisection_id, sha)
);
CREATE INDEX bisection_by_series ON bisection (benchmark, machine, metric, param, id);
CREATE TRIGGER data_version_bisection_mark_insert AFTER INSERT ON bisection_mark
BEGIN UPDATE data_version SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER data_version_bisection_mark_update AFTER UPDATE ON bisection_mark
BEGIN UPDATE data_version SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER data_version_bisection_mark_delete AFTER DELETE ON bisection_mark
BEGIN UPDATE data_version SET version = version + 1 WHERE id = 1; END;
