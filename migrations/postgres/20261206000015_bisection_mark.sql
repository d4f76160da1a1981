-- See migrations/sqlite/20261206000021_bisection_mark.sql.
CREATE TABLE bisection_mark (
    bisection_id BIGINT NOT NULL REFERENCES bisection(id) ON DELETE CASCADE,
    sha          TEXT NOT NULL,
    mark         TEXT NOT NULL CHECK (mark IN ('good', 'bad', 'skip')),
    first_bad    BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (bisection_id, sha)
);
CREATE INDEX bisection_by_series ON bisection (benchmark, machine, metric, param, id);
CREATE TRIGGER data_version_bisection_mark AFTER INSERT OR UPDATE OR DELETE ON bisection_mark
    FOR EACH STATEMENT EXECUTE FUNCTION perfline_data_changed();
