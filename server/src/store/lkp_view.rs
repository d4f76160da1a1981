// SPDX-License-Identifier: GPL-3.0-or-later
//! What the LKP-shaped compare page reads besides the comparison: which runs are LKP jobs'
//! (their upload holds an LKP results file), and the commits a benchmark ran at on a machine
//! with their subjects (from uploaded git logs), for the commit picker.

use std::collections::HashSet;

use super::sql::{query_as, sql};
use super::{Store, StoreResult};

/// The most commits the picker searches (the newest runs' first).
const MAX_COMMITS: i64 = 20_000;

impl Store {
    /// Which of `ids` are runs of LKP jobs: uploaded from an LKP `stats.json`, `matrix.json`
    /// or raw output.
    pub async fn lkp_runs(&self, ids: &[i64]) -> StoreResult<HashSet<i64>> {
        let ids = serde_json::to_string(ids)?;
        let rows: Vec<(i64,)> = query_as(sql!(
            "SELECT r.id FROM run r WHERE r.id IN {ids} AND EXISTS (SELECT 1 FROM upload_file f \
             WHERE f.upload_id = r.upload_id AND f.format IN ('lkp', 'lkp-stats', 'lkp-matrix'))"
        ))
        .bind(ids)
        .fetch_all(&self.reader)
        .await?;
        Ok(rows.into_iter().map(|(id,)| id).collect())
    }

    /// The commits `benchmark` ran at on `machine`, newest run first: (sha, subject, runs).
    pub async fn commits_of(
        &self,
        benchmark: &str,
        machine: &str,
    ) -> StoreResult<Vec<(String, Option<String>, i64)>> {
        let rows: Vec<(String, Option<String>, i64, i64)> = query_as(sql!(
            "SELECT r.commit_sha, MAX(c.subject), COUNT(DISTINCT r.id), MAX(r.id) FROM run r \
             JOIN machine m ON m.id = r.machine_id \
             LEFT JOIN history_commit c ON c.sha = r.commit_sha \
             WHERE r.benchmark = ? AND m.name = ? AND r.commit_sha IS NOT NULL \
             GROUP BY r.commit_sha ORDER BY MAX(r.id) DESC LIMIT ?"
        ))
        .bind(benchmark.to_owned())
        .bind(machine.to_owned())
        .bind(MAX_COMMITS)
        .fetch_all(&self.reader)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(sha, subject, runs, _)| (sha, subject, runs))
            .collect())
    }
}
