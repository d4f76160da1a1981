//! Commit histories, bisect marks, and the runs of a trend.

use std::collections::HashMap;

use app::trend::Mark;
use sqlx::{QueryBuilder, Row, Sqlite};

use super::Store;

/// One commit of an uploaded history, oldest first.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryCommit {
    pub sha: String,
    pub time: Option<i64>,
    pub subject: Option<String>,
}

/// The history a trend is ordered by: its name and every commit in order.
#[derive(Debug, Clone, PartialEq)]
pub struct History {
    pub repo: String,
    pub branch: String,
    pub commits: Vec<HistoryCommit>,
}

/// One run of a trend: where it sits and its samples of the metric at the param.
#[derive(Debug, Clone, PartialEq)]
pub struct TrendRun {
    pub run_id: i64,
    pub kernel: String,
    pub commit: Option<String>,
    pub commit_time: Option<i64>,
    pub mark: Option<Mark>,
    pub unit: Option<String>,
    pub direction: app::label::Direction,
    pub values: Vec<f64>,
}

/// Rows per multi-row INSERT of history commits (5 bound values each).
const COMMIT_BATCH: usize = 1000;

impl Store {
    /// Replaces the history of `repo`/`branch` with `commits` (oldest first), in one
    /// transaction. Returns how many commits it holds.
    pub async fn put_history(
        &self,
        repo: &str,
        branch: &str,
        commits: &[HistoryCommit],
    ) -> anyhow::Result<usize> {
        let mut tx = self.writer.begin().await?;
        let (id,): (i64,) = sqlx::query_as(
            "INSERT INTO history (repo, branch) VALUES (?, ?) ON CONFLICT (repo, branch) \
             DO UPDATE SET updated_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') RETURNING id",
        )
        .bind(repo)
        .bind(branch)
        .fetch_one(&mut *tx)
        .await?;
        sqlx::query("DELETE FROM history_commit WHERE history_id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        for (chunk_no, chunk) in commits.chunks(COMMIT_BATCH).enumerate() {
            let mut q = QueryBuilder::<Sqlite>::new(
                "INSERT INTO history_commit (history_id, position, sha, time, subject) ",
            );
            q.push_values(chunk.iter().enumerate(), |mut b, (i, c)| {
                b.push_bind(id)
                    .push_bind((chunk_no * COMMIT_BATCH + i) as i64)
                    .push_bind(c.sha.clone())
                    .push_bind(c.time)
                    .push_bind(c.subject.clone());
            });
            q.build().execute(&mut *tx).await?;
        }
        tx.commit().await?;
        self.wrote();
        Ok(commits.len())
    }

    /// The history to order these commits by: `wanted` (repo, branch) if given, else the one
    /// holding most of them (exact shas), else the most recently updated one.
    pub async fn history_for(
        &self,
        wanted: Option<(&str, &str)>,
        shas: &[String],
    ) -> anyhow::Result<Option<History>> {
        let (histories,): (i64,) = sqlx::query_as("SELECT count(*) FROM history")
            .fetch_one(&self.reader)
            .await?;
        let id: Option<(i64, String, String)> = if let Some((repo, branch)) = wanted {
            sqlx::query_as("SELECT id, repo, branch FROM history WHERE repo = ? AND branch = ?")
                .bind(repo)
                .bind(branch)
                .fetch_optional(&self.reader)
                .await?
        } else {
            let mut best = None;
            // With one history there is nothing to choose.
            if !shas.is_empty() && histories > 1 {
                let mut q = QueryBuilder::<Sqlite>::new(
                    "SELECT h.id, h.repo, h.branch FROM history_commit c JOIN history h ON h.id = c.history_id WHERE c.sha IN (",
                );
                let mut sep = q.separated(", ");
                for s in shas.iter().take(30000) {
                    sep.push_bind(s.clone());
                }
                q.push(") GROUP BY h.id ORDER BY count(*) DESC, h.updated_at DESC LIMIT 1");
                best = q.build_query_as().fetch_optional(&self.reader).await?;
            }
            match best {
                Some(b) => Some(b),
                None => {
                    sqlx::query_as("SELECT id, repo, branch FROM history ORDER BY updated_at DESC, id DESC LIMIT 1")
                        .fetch_optional(&self.reader)
                        .await?
                }
            }
        };
        let Some((id, repo, branch)) = id else {
            return Ok(None);
        };
        let commits = sqlx::query_as::<_, (String, Option<i64>, Option<String>)>(
            "SELECT sha, time, subject FROM history_commit WHERE history_id = ? ORDER BY position",
        )
        .bind(id)
        .fetch_all(&self.reader)
        .await?
        .into_iter()
        .map(|(sha, time, subject)| HistoryCommit { sha, time, subject })
        .collect();
        Ok(Some(History {
            repo,
            branch,
            commits,
        }))
    }

    /// Sets (or with `None` clears) the mark of run `id`; false if there is no such run.
    pub async fn set_run_mark(&self, id: i64, mark: Option<Mark>) -> anyhow::Result<bool> {
        let done = sqlx::query("UPDATE run SET mark = ? WHERE id = ?")
            .bind(mark.map(Mark::as_str))
            .bind(id)
            .execute(&self.writer)
            .await?;
        self.wrote();
        Ok(done.rows_affected() == 1)
    }

    /// Sets the marks of commits (a bisect log's verdicts), in one transaction; `first_bad`
    /// names the commit the bisection ended on.
    pub async fn set_commit_marks(
        &self,
        marks: &[(String, Mark)],
        first_bad: Option<&str>,
    ) -> anyhow::Result<()> {
        let mut tx = self.writer.begin().await?;
        if first_bad.is_some() {
            sqlx::query("UPDATE commit_mark SET first_bad = 0")
                .execute(&mut *tx)
                .await?;
        }
        for (sha, mark) in marks {
            sqlx::query(
                "INSERT INTO commit_mark (sha, mark, first_bad) VALUES (?, ?, ?) \
                 ON CONFLICT (sha) DO UPDATE SET mark = excluded.mark, first_bad = excluded.first_bad",
            )
            .bind(sha)
            .bind(mark.as_str())
            .bind(first_bad == Some(sha.as_str()))
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        self.wrote();
        Ok(())
    }

    /// Every commit mark: sha → (mark, first bad).
    pub async fn commit_marks(&self) -> anyhow::Result<HashMap<String, (Mark, bool)>> {
        let rows = sqlx::query("SELECT sha, mark, first_bad FROM commit_mark")
            .fetch_all(&self.reader)
            .await?;
        Ok(rows
            .iter()
            .filter_map(|r| {
                let mark: String = r.get(1);
                Some((r.get(0), (Mark::parse(&mark)?, r.get::<bool, _>(2))))
            })
            .collect())
    }

    /// The runs of `benchmark` on `machine` with their samples of `metric` at `param`, in
    /// run order.
    pub async fn trend_runs(
        &self,
        benchmark: &str,
        machine: &str,
        metric: &str,
        param: &str,
    ) -> anyhow::Result<Vec<TrendRun>> {
        let rows = sqlx::query(
            "SELECT r.id, k.version, r.commit_sha, r.commit_time, r.mark, s.unit, s.direction, s.id, s.packed \
             FROM run r JOIN machine m ON m.id = r.machine_id JOIN kernel k ON k.id = r.kernel_id \
             JOIN series s ON s.run_id = r.id \
             WHERE r.benchmark = ? AND m.name = ? AND s.metric = ? AND s.param = ? ORDER BY r.id",
        )
        .bind(benchmark)
        .bind(machine)
        .bind(metric)
        .bind(param)
        .fetch_all(&self.reader)
        .await?;
        let mut out = Vec::with_capacity(rows.len());
        for r in &rows {
            let packed: Option<Vec<u8>> = r.get(8);
            let values = match packed {
                Some(bytes) => super::packed::unpack(&bytes)?.1,
                None => sqlx::query_as::<_, (f64,)>(
                    "SELECT value FROM sample WHERE series_id = ? ORDER BY iteration",
                )
                .bind(r.get::<i64, _>(7))
                .fetch_all(&self.reader)
                .await?
                .into_iter()
                .map(|(v,)| v)
                .collect(),
            };
            let mark: Option<String> = r.get(4);
            let direction: String = r.get(6);
            out.push(TrendRun {
                run_id: r.get(0),
                kernel: r.get(1),
                commit: r.get(2),
                commit_time: r.get(3),
                mark: mark.as_deref().and_then(Mark::parse),
                unit: r.get(5),
                direction: app::label::Direction::parse(&direction).unwrap_or_default(),
                values,
            });
        }
        Ok(out)
    }

    /// The metrics and params of `benchmark` on `machine`, for the trend page's choices.
    pub async fn trend_choices(
        &self,
        benchmark: &str,
        machine: &str,
    ) -> anyhow::Result<Vec<(String, String)>> {
        Ok(sqlx::query_as(
            "SELECT DISTINCT s.metric, s.param FROM run r JOIN machine m ON m.id = r.machine_id \
             JOIN series s ON s.run_id = r.id WHERE r.benchmark = ? AND m.name = ? ORDER BY s.metric",
        )
        .bind(benchmark)
        .bind(machine)
        .fetch_all(&self.reader)
        .await?)
    }
}

impl Store {
    /// Every series of `benchmark` on `machine` from runs with a commit, the commit (as stored,
    /// perhaps abbreviated) in place of the kernel: what a report by commit compares.
    pub async fn commit_series(
        &self,
        benchmark: &str,
        machine: &str,
    ) -> anyhow::Result<Vec<super::CompareSeries>> {
        let rows = sqlx::query(
            "SELECT s.id, r.id, r.commit_sha, s.metric, s.param, s.unit, s.direction, s.packed \
             FROM run r JOIN machine m ON m.id = r.machine_id JOIN series s ON s.run_id = r.id \
             WHERE r.benchmark = ? AND m.name = ? AND r.commit_sha IS NOT NULL ORDER BY s.id",
        )
        .bind(benchmark)
        .bind(machine)
        .fetch_all(&self.reader)
        .await?;
        let mut out = Vec::with_capacity(rows.len());
        for r in &rows {
            let packed: Option<Vec<u8>> = r.get(7);
            let (iterations, values) = match packed {
                Some(bytes) => super::packed::unpack(&bytes)?,
                None => sqlx::query_as::<_, (i64, f64)>(
                    "SELECT iteration, value FROM sample WHERE series_id = ? ORDER BY iteration",
                )
                .bind(r.get::<i64, _>(0))
                .fetch_all(&self.reader)
                .await?
                .into_iter()
                .unzip(),
            };
            let direction: String = r.get(6);
            out.push(super::CompareSeries {
                run_id: r.get(1),
                kernel: r.get(2),
                metric: r.get(3),
                param: r.get(4),
                unit: r.get(5),
                direction: app::label::Direction::parse(&direction).unwrap_or_default(),
                iterations,
                values,
            });
        }
        Ok(out)
    }
}
