// SPDX-License-Identifier: GPL-3.0-or-later
//! Commit histories, bisect marks, and the runs of a trend (their record types are the
//! codec's, in `trend_pack`).

use super::StoreResult;
use std::collections::HashMap;
use std::sync::Arc;

use super::sql::{query, query_as, sql, sql_each, Builder, Target};
use app::trend::Mark;

use super::trend_block::{
    heads_after, last_block, summaries_of, unpack_cell, unpack_heads, RunHead, RunSummaries,
    Summary,
};
use super::trend_pack::{History, TrendRun, TrendRuns};
use super::Store;
use crate::ingest::history::HistoryCommit;

/// Rows per multi-row INSERT of history commits (5 bound values each).
const COMMIT_BATCH: usize = 1000;

/// The most shas that choose a history (bound variables of one query).
const HISTORY_SAMPLE: usize = 1000;

impl Store {
    /// Replaces the history of `repo`/`branch` with `commits` (oldest first), in one
    /// transaction. Returns how many commits it holds.
    pub async fn put_history(
        &self,
        repo: &str,
        branch: &str,
        commits: &[HistoryCommit],
        actor: &str,
    ) -> StoreResult<usize> {
        self.put_history_detailed(repo, branch, commits, &[], actor)
            .await
    }

    /// `put_history`, and what the history says of each commit beyond its place (parents,
    /// files: `perfline history --with-files`), in the same transaction.
    pub async fn put_history_detailed(
        &self,
        repo: &str,
        branch: &str,
        commits: &[HistoryCommit],
        details: &[crate::ingest::history::CommitDetail],
        actor: &str,
    ) -> StoreResult<usize> {
        let mut tx = self.writer.begin_write().await?;
        let (id,): (i64,) = query_as(
            sql!("INSERT INTO history (repo, branch, packed) VALUES (?, ?, ?) ON CONFLICT (repo, branch) \
             DO UPDATE SET updated_at = {now_s}, packed = excluded.packed, \
             version = history.version + 1 \
             RETURNING id"),
        )
        .bind(repo)
        .bind(branch)
        .bind(super::trend_pack::pack_commits(commits))
        .fetch_one(&mut tx)
        .await?;
        query(sql!("DELETE FROM history_commit WHERE history_id = ?"))
            .bind(id)
            .execute(&mut tx)
            .await?;
        for (chunk_no, chunk) in commits.chunks(COMMIT_BATCH).enumerate() {
            let mut q = Builder::new(
                "INSERT INTO history_commit (history_id, position, sha, time, subject) ",
            );
            q.push("VALUES ");
            for (i, c) in chunk.iter().enumerate() {
                if i > 0 {
                    q.push(", ");
                }
                q.push("(")
                    .push_bind(id)
                    .push(", ")
                    .push_bind((chunk_no * COMMIT_BATCH + i) as i64)
                    .push(", ")
                    .push_bind(c.sha.as_str())
                    .push(", ")
                    .push_bind(c.time)
                    .push(", ")
                    .push_bind(c.subject.as_deref())
                    .push(")");
            }
            q.build().execute(&mut tx).await?;
        }
        for d in details {
            let files = d.files.as_ref().map(serde_json::to_string).transpose()?;
            query(sql!(
                "INSERT INTO commit_detail (sha, parents, files) VALUES (?, ?, ?) \
                 ON CONFLICT (sha) DO UPDATE SET parents = excluded.parents, files = excluded.files"
            ))
            .bind(&d.sha)
            .bind(i64::from(d.parents))
            .bind(files)
            .execute(&mut tx)
            .await?;
        }
        super::tokens::audit_in(
            &mut tx,
            actor,
            "history.put",
            &format!("{repo}/{branch}"),
            &format!("{} commits", commits.len()),
        )
        .await?;
        tx.commit().await?;
        Ok(commits.len())
    }

    /// The history to order these commits by: `wanted` (repo, branch) if given, else the one
    /// holding most of them (exact shas; callers pass a sample of a trend's commits), else the
    /// most recently updated one.
    pub async fn history_for(
        &self,
        wanted: Option<(&str, &str)>,
        shas: &[&str],
    ) -> StoreResult<Option<Arc<History>>> {
        let (histories,): (i64,) = query_as(sql!("SELECT count(*) FROM history"))
            .fetch_one(&self.reader)
            .await?;
        let id: Option<(i64, i64)> = if let Some((repo, branch)) = wanted {
            query_as(sql!(
                "SELECT id, version FROM history WHERE repo = ? AND branch = ?"
            ))
            .bind(repo)
            .bind(branch)
            .fetch_optional(&self.reader)
            .await?
        } else {
            let mut best = None;
            // With one history there is nothing to choose.
            if !shas.is_empty() && histories > 1 {
                let mut q = Builder::new(
                    "SELECT h.id, h.version FROM history_commit c JOIN history h ON h.id = c.history_id WHERE c.sha IN ",
                );
                q.push_list(shas.iter().take(HISTORY_SAMPLE).copied());
                q.push(" GROUP BY h.id ORDER BY count(*) DESC, h.updated_at DESC LIMIT 1");
                best = q.build_query_as().fetch_optional(&self.reader).await?;
            }
            match best {
                Some(b) => Some(b),
                None => {
                    query_as(sql!(
                        "SELECT id, version FROM history ORDER BY updated_at DESC, id DESC LIMIT 1"
                    ))
                    .fetch_optional(&self.reader)
                    .await?
                }
            }
        };
        let Some((id, version)) = id else {
            return Ok(None);
        };
        if let Some(h) = self.caches.history(id, version) {
            return Ok(Some(h));
        }
        let (repo, branch, packed): (String, String, Vec<u8>) = query_as(sql!(
            "SELECT repo, branch, packed FROM history WHERE id = ?"
        ))
        .bind(id)
        .fetch_one(&self.reader)
        .await?;
        let history = Arc::new(History {
            repo,
            branch,
            commits: super::trend_pack::unpack_commits(&packed)?,
        });
        self.caches.put_history(id, version, history.clone());
        Ok(Some(history))
    }

    /// What a history uploaded with files said of commit `sha`: its parents and files (`None`
    /// files: too many to keep).
    pub async fn commit_detail(
        &self,
        sha: &str,
    ) -> StoreResult<Option<(u32, Option<Vec<String>>)>> {
        let row: Option<(i64, Option<String>)> = query_as(sql!(
            "SELECT parents, files FROM commit_detail WHERE sha = ?"
        ))
        .bind(sha)
        .fetch_optional(&self.reader)
        .await?;
        Ok(row.map(|(parents, files)| {
            (
                u32::try_from(parents).unwrap_or(0),
                files.and_then(|f| serde_json::from_str(&f).ok()),
            )
        }))
    }

    /// Sets (or with `None` clears) the mark of run `id`; false if there is no such run.
    pub async fn set_run_mark(
        &self,
        id: i64,
        mark: Option<Mark>,
        actor: &str,
    ) -> StoreResult<bool> {
        let mut tx = self.writer.begin_write().await?;
        let done = query(sql!("UPDATE run SET mark = ? WHERE id = ?"))
            .bind(mark.map(Mark::as_str))
            .bind(id)
            .execute(&mut tx)
            .await?;
        if done.rows_affected() != 1 {
            return Ok(false);
        }
        let what = mark.map_or("none", Mark::as_str);
        super::tokens::audit_in(&mut tx, actor, "run.mark", &format!("run {id}"), what).await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Sets the marks of commits (a bisect log's verdicts), in one transaction; `first_bad`
    /// names the commit the bisection ended on.
    pub async fn set_commit_marks(
        &self,
        marks: &[(String, Mark)],
        first_bad: Option<&str>,
        actor: &str,
    ) -> StoreResult<()> {
        let mut tx = self.writer.begin_write().await?;
        if first_bad.is_some() {
            query(sql!("UPDATE commit_mark SET first_bad = 0"))
                .execute(&mut tx)
                .await?;
        }
        for (sha, mark) in marks {
            query(
                sql!("INSERT INTO commit_mark (sha, mark, first_bad) VALUES (?, ?, ?) \
                 ON CONFLICT (sha) DO UPDATE SET mark = excluded.mark, first_bad = excluded.first_bad"),
            )
            .bind(sha)
            .bind(mark.as_str())
            .bind(first_bad == Some(sha.as_str()))
            .execute(&mut tx)
            .await?;
        }
        super::tokens::audit_in(
            &mut tx,
            actor,
            "bisect",
            first_bad.unwrap_or("-"),
            &format!("{} verdicts", marks.len()),
        )
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Records the verdicts of bisection `id` (its own marks), in one transaction; `first_bad`
    /// names the commit it ended on.
    pub async fn set_bisection_marks(
        &self,
        id: i64,
        marks: &[(String, Mark)],
        first_bad: Option<&str>,
    ) -> StoreResult<()> {
        let mut tx = self.writer.begin_write().await?;
        for (sha, mark) in marks {
            query(sql!(
                "INSERT INTO bisection_mark (bisection_id, sha, mark, first_bad) VALUES (?, ?, ?, ?) \
                 ON CONFLICT (bisection_id, sha) DO UPDATE SET mark = excluded.mark, first_bad = excluded.first_bad"
            ))
            .bind(id)
            .bind(sha)
            .bind(mark.as_str())
            .bind(i64::from(first_bad == Some(sha.as_str())))
            .execute(&mut tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// The marks bisection `id` recorded: sha → (mark, first bad).
    pub async fn bisection_marks(&self, id: i64) -> StoreResult<CommitMarks> {
        let rows: Vec<(String, String, i64)> = query_as(sql!(
            "SELECT sha, mark, first_bad FROM bisection_mark WHERE bisection_id = ?"
        ))
        .bind(id)
        .fetch_all(&self.reader)
        .await?;
        Ok(CommitMarks::new(
            rows.into_iter()
                .filter_map(|(sha, mark, first)| Some((sha, (Mark::parse(&mark)?, first != 0))))
                .collect(),
        ))
    }

    /// The marks a trend shows of each series (benchmark, machine, metric, param): those of
    /// its newest bisection that is running or done; a failed or cancelled one's, or those of
    /// one a later bisection superseded, are not shown.
    pub async fn series_marks(&self) -> StoreResult<SeriesMarks> {
        let rows: Vec<(String, String, String, String, String, String, i64)> = query_as(sql!(
            "SELECT b.benchmark, b.machine, b.metric, b.param, m.sha, m.mark, m.first_bad \
             FROM bisection_mark m JOIN bisection b ON b.id = m.bisection_id \
             WHERE b.id IN (SELECT MAX(id) FROM bisection GROUP BY benchmark, machine, metric, param) \
             AND b.state IN ('running', 'done')"
        ))
        .fetch_all(&self.reader)
        .await?;
        let mut out: SeriesMarks = HashMap::new();
        for (benchmark, machine, metric, param, sha, mark, first) in rows {
            if let Some(mark) = Mark::parse(&mark) {
                out.entry((benchmark, machine, metric, param))
                    .or_default()
                    .insert(sha, (mark, first != 0));
            }
        }
        Ok(out)
    }

    /// Every commit mark: sha → (mark, first bad).
    pub async fn commit_marks(&self) -> StoreResult<CommitMarks> {
        let rows = query(sql!("SELECT sha, mark, first_bad FROM commit_mark"))
            .fetch_all(&self.reader)
            .await?;
        Ok(CommitMarks::new(
            rows.iter()
                .filter_map(|r| {
                    let mark: String = r.get(1);
                    Some((r.get(0), (Mark::parse(&mark)?, r.get::<i64, _>(2) != 0)))
                })
                .collect(),
        ))
    }

    /// The runs of `benchmark` on `machine` with a summary of their samples of `metric` at
    /// `param`, in run order, and the marks of the marked ones: the trend blocks (those read
    /// before from memory), then the runs past the last block, in one read transaction.
    pub async fn trend_runs(
        &self,
        benchmark: &str,
        machine: &str,
        metric: &str,
        param: &str,
    ) -> StoreResult<TrendRuns> {
        let mut one = self
            .trend_runs_of(benchmark, machine, &[(metric, param)])
            .await?;
        Ok(one.pop().unwrap_or_default())
    }

    /// [`Store::trend_runs`] of several series of `benchmark` on `machine`, in their order:
    /// what the series share (the machine, the blocks' runs, the runs past the last block,
    /// the marks) is read once, and every series' cells in one query, in one read
    /// transaction. The alert detector reads a tree's series this way, a few reads for a
    /// benchmark however many series it has.
    pub async fn trend_runs_of(
        &self,
        benchmark: &str,
        machine: &str,
        series: &[(&str, &str)],
    ) -> StoreResult<Vec<TrendRuns>> {
        let keys: Vec<super::cache::ChunkKey> = series
            .iter()
            .map(|(metric, param)| [benchmark, machine, metric, param].map(str::to_owned))
            .collect();
        let mut chunks: Vec<Vec<Arc<[TrendRun]>>> =
            keys.iter().map(|k| self.caches.full_chunks(k)).collect();
        let mut tx = self.reader.begin_read().await?;
        let Some(machine_id) = machine_id(&mut tx, machine).await? else {
            return Ok(vec![TrendRuns::default(); series.len()]);
        };
        // The dictionary's keys of each metric and param (one, unless its unit or direction
        // changed along the way).
        let wanted: Vec<[&str; 2]> = series.iter().map(|&(m, p)| [m, p]).collect();
        let rows: Vec<(i64, String, String)> = query_as(sql_each!(
            sqlite: "SELECT k.id, k.metric, k.param FROM json_each(?) j \
                     JOIN metric_key k ON k.metric = j.value ->> 0 AND k.param = j.value ->> 1",
            postgres: "SELECT k.id, k.metric, k.param FROM json_array_elements(CAST($1 AS JSON)) j \
                       JOIN metric_key k ON k.metric = j ->> 0 AND k.param = j ->> 1",
        ))
        .bind(serde_json::to_string(&wanted)?)
        .fetch_all(&mut tx)
        .await?;
        let mut ids_of: HashMap<(&str, &str), Vec<i64>> = HashMap::new();
        for (id, metric, param) in &rows {
            let ids = ids_of.entry((metric.as_str(), param.as_str())).or_default();
            // (A series asked for twice joins its keys twice.)
            if !ids.contains(id) {
                ids.push(*id);
            }
        }
        let ids: Vec<&[i64]> = series
            .iter()
            .map(|k| ids_of.get(k).map_or(&[][..], Vec::as_slice))
            .collect();
        let all: Vec<i64> = ids.iter().flat_map(|i| i.iter().copied()).collect();
        let names = self
            .keys
            .names(Target::from(&mut tx), all.iter().copied())
            .await?;
        let record = |head: &RunHead, key: i64, (n, sum, min, max): Summary| {
            let k = &names[&key];
            TrendRun {
                run_id: head.run_id,
                kernel: head.kernel.clone(),
                commit: head.commit.clone(),
                commit_time: head.commit_time,
                unit: k.unit.as_deref().map(Into::into),
                direction: k.direction,
                n,
                sum,
                min,
                max,
            }
        };
        // Blocks from the first one a series has not in memory.
        let known: Vec<usize> = chunks.iter().map(Vec::len).collect();
        let first = known.iter().copied().min().unwrap_or(0);
        let blocks: Vec<(i64, Vec<u8>)> = query_as(sql!(
            "SELECT block, runs FROM trend_block WHERE benchmark = ? AND machine_id = ? AND block >= ? \
             ORDER BY block"
        ))
        .bind(benchmark)
        .bind(machine_id)
        .bind(first as i64)
        .fetch_all(&mut tx)
        .await?;
        let cells: Vec<(i64, i64, Vec<u8>)> = if all.is_empty() || blocks.is_empty() {
            Vec::new()
        } else {
            query_as(sql!(
                "SELECT block, metric_key, packed FROM trend_cell WHERE benchmark = ? \
                 AND machine_id = ? AND metric_key IN {ids} AND block >= ? ORDER BY block"
            ))
            .bind(benchmark)
            .bind(machine_id)
            .bind(serde_json::to_string(&all)?)
            .bind(first as i64)
            .fetch_all(&mut tx)
            .await?
        };
        let mut by_block: HashMap<i64, HashMap<i64, &[u8]>> = HashMap::new();
        for (block, key, packed) in &cells {
            by_block.entry(*block).or_default().insert(*key, packed);
        }
        let mut full: Vec<Vec<Arc<[TrendRun]>>> = vec![Vec::new(); series.len()];
        for (block, runs) in &blocks {
            let heads = unpack_heads(runs)?;
            let cells = by_block.get(block);
            for (i, ids) in ids.iter().enumerate() {
                // This series has the block in memory.
                if (*block as usize) < known[i] {
                    continue;
                }
                let mut records: Vec<(usize, TrendRun)> = Vec::new();
                for key in *ids {
                    let Some(packed) = cells.and_then(|c| c.get(key)) else {
                        continue;
                    };
                    for (at, summary) in unpack_cell(packed)? {
                        let head = heads.get(at).ok_or_else(|| {
                            super::StoreError::Corrupt(format!(
                                "trend block {block} has no run {at} for its cell"
                            ))
                        })?;
                        records.push((at, record(head, *key, summary)));
                    }
                }
                records.sort_by_key(|(at, _)| *at);
                let chunk: Arc<[TrendRun]> = records.into_iter().map(|(_, r)| r).collect();
                full[i].push(chunk.clone());
                chunks[i].push(chunk);
            }
        }
        // Blocks never change (a deletion drops every copy in memory).
        for ((key, known), full) in keys.into_iter().zip(&known).zip(full) {
            self.caches.put_full_chunks(key, *known, full);
        }
        let (_, last) = last_block(Target::from(&mut tx), benchmark, machine_id).await?;
        let pending = heads_after(Target::from(&mut tx), benchmark, machine_id, last).await?;
        let summaries = self.summaries(&mut tx, &pending).await?;
        let marks: HashMap<i64, Mark> = query_as::<(i64, String)>(sql!(
            "SELECT r.id, r.mark FROM run r JOIN machine m ON m.id = r.machine_id \
             WHERE r.benchmark = ? AND m.name = ? AND r.mark IS NOT NULL"
        ))
        .bind(benchmark)
        .bind(machine)
        .fetch_all(&mut tx)
        .await?
        .into_iter()
        .filter_map(|(id, mark)| Some((id, Mark::parse(&mark)?)))
        .collect();
        let mut out = Vec::with_capacity(series.len());
        for (mut chunks, ids) in chunks.into_iter().zip(&ids) {
            let mut tail = Vec::new();
            for head in &pending {
                let Some(s) = summaries.get(&head.run_id) else {
                    continue;
                };
                for &key in *ids {
                    if let Some(&summary) = s.get(&key) {
                        tail.push(record(head, key, summary));
                    }
                }
            }
            chunks.push(tail.into());
            out.push(TrendRuns {
                chunks,
                marks: marks.clone(),
            });
        }
        Ok(out)
    }

    /// The summaries of the runs `heads` names, from memory or `run_data`.
    async fn summaries(
        &self,
        tx: &mut super::sql::Tx,
        heads: &[RunHead],
    ) -> StoreResult<HashMap<i64, Arc<RunSummaries>>> {
        let mut out = HashMap::with_capacity(heads.len());
        let mut missing = Vec::new();
        for h in heads {
            match self.caches.summaries(h.run_id) {
                Some(s) => {
                    out.insert(h.run_id, s);
                }
                None => missing.push(h.run_id),
            }
        }
        for (id, s) in summaries_of(Target::from(&mut *tx), &missing).await? {
            let s = Arc::new(s);
            self.caches.put_summaries(id, s.clone());
            out.insert(id, s);
        }
        Ok(out)
    }

    /// The metrics and params of `benchmark` on `machine`, for the trend page's choices.
    pub async fn trend_choices(
        &self,
        benchmark: &str,
        machine: &str,
    ) -> StoreResult<Vec<(String, String)>> {
        let mut tx = self.reader.begin_read().await?;
        let Some(machine_id) = machine_id(&mut tx, machine).await? else {
            return Ok(Vec::new());
        };
        let folded: Vec<(i64,)> = query_as(sql!(
            "SELECT metric_key FROM trend_key WHERE benchmark = ? AND machine_id = ?"
        ))
        .bind(benchmark)
        .bind(machine_id)
        .fetch_all(&mut tx)
        .await?;
        let mut ids: std::collections::BTreeSet<i64> = folded.into_iter().map(|(id,)| id).collect();
        let (_, last) = last_block(Target::from(&mut tx), benchmark, machine_id).await?;
        let pending = heads_after(Target::from(&mut tx), benchmark, machine_id, last).await?;
        for s in self.summaries(&mut tx, &pending).await?.values() {
            ids.extend(s.keys().copied());
        }
        let names = self
            .keys
            .names(Target::from(&mut tx), ids.iter().copied())
            .await?;
        let mut choices: Vec<(String, String)> = names
            .values()
            .map(|k| (k.metric.clone(), k.param.clone()))
            .collect();
        // In byte order on both engines, whatever PostgreSQL's collation.
        choices.sort_unstable();
        choices.dedup();
        Ok(choices)
    }
}

impl Store {
    /// Every series of `benchmark` on `machine` from runs of `commits` (full or abbreviated
    /// either way), the commit (as stored) in place of the kernel: what a report compares.
    pub async fn commit_series(
        &self,
        benchmark: &str,
        machine: &str,
        commits: [&str; 2],
    ) -> StoreResult<Vec<super::CompareSeries>> {
        // Runs whose commit is either one, either abbreviating the other (the caller checks
        // the exact rule); only these runs' samples are read.
        let rows: Vec<(i64, String, Vec<u8>)> = query_as(sql!(
            "SELECT r.id, r.commit_sha, d.packed \
             FROM run r JOIN machine m ON m.id = r.machine_id JOIN run_data d ON d.run_id = r.id \
             WHERE r.benchmark = ? AND m.name = ? AND r.commit_sha IS NOT NULL \
             AND (substr(r.commit_sha, 1, length(?)) = ? OR substr(?, 1, length(r.commit_sha)) = r.commit_sha \
                  OR substr(r.commit_sha, 1, length(?)) = ? OR substr(?, 1, length(r.commit_sha)) = r.commit_sha) \
             ORDER BY r.id"
        ))
        .bind(benchmark)
        .bind(machine)
        .bind(commits[0])
        .bind(commits[0])
        .bind(commits[0])
        .bind(commits[1])
        .bind(commits[1])
        .bind(commits[1])
        .fetch_all(&self.reader)
        .await?;
        self.decode_runs(rows, None).await
    }
}

/// The commit marks by sha, found by full or abbreviated sha either way round (a point's full
/// sha and a mark's abbreviation, or the reverse) in logarithmic time, however many there are.
#[derive(Debug, Default, Clone)]
pub struct CommitMarks {
    by_sha: HashMap<String, (Mark, bool)>,
    /// The marked shas, sorted: an abbreviation's matches are a range of it.
    sorted: Vec<String>,
}

/// The marks of each series' newest bisection: (benchmark, machine, metric, param) → sha →
/// (mark, first bad).
pub type SeriesMarks = HashMap<(String, String, String, String), HashMap<String, (Mark, bool)>>;

impl CommitMarks {
    /// These marks with `over`'s in their place where both mark a commit (a bisection's
    /// verdicts over the marks people uploaded); `first_bad` only from `over` when it has one.
    pub fn overlaid(&self, over: &HashMap<String, (Mark, bool)>) -> CommitMarks {
        let culprit = over.values().any(|(_, first)| *first);
        let mut by_sha: HashMap<String, (Mark, bool)> = self
            .by_sha
            .iter()
            .map(|(k, &(m, first))| (k.clone(), (m, first && !culprit)))
            .collect();
        by_sha.extend(over.iter().map(|(k, v)| (k.clone(), *v)));
        CommitMarks::new(by_sha)
    }

    pub fn new(by_sha: HashMap<String, (Mark, bool)>) -> CommitMarks {
        let mut sorted: Vec<String> = by_sha.keys().cloned().collect();
        sorted.sort_unstable();
        CommitMarks { by_sha, sorted }
    }

    /// The mark of the commit `sha` names: its own, else one of a full sha it abbreviates
    /// (at least 7 characters), else one of an abbreviation of it.
    pub fn get(&self, sha: &str) -> Option<(Mark, bool)> {
        if let Some(m) = self.by_sha.get(sha) {
            return Some(*m);
        }
        if sha.len() >= 7 {
            let i = self.sorted.partition_point(|k| k.as_str() < sha);
            if let Some(full) = self.sorted.get(i).filter(|k| k.starts_with(sha)) {
                return self.by_sha.get(full).copied();
            }
        }
        (7..sha.len())
            .rev()
            .find_map(|n| sha.get(..n).and_then(|short| self.by_sha.get(short)))
            .copied()
    }
}

/// The id of the machine named `name`, if there is one.
async fn machine_id(tx: &mut super::sql::Tx, name: &str) -> StoreResult<Option<i64>> {
    let row: Option<(i64,)> = query_as(sql!("SELECT id FROM machine WHERE name = ?"))
        .bind(name)
        .fetch_optional(tx)
        .await?;
    Ok(row.map(|(id,)| id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::history::CommitDetail;
    use crate::store::bisection::tests::bisection;
    use crate::store::testdb::TestDb;
    use crate::store::tests::{runs_csv, upload_csv};
    use app::bisection::BisectionState;

    crate::store::on_both_engines!(
        a_history_reads_back_in_order_and_a_new_upload_replaces_it,
        the_history_for_a_trend_is_the_one_holding_most_of_its_commits,
        a_bisect_logs_marks_read_back_by_full_or_short_sha,
        a_run_mark_is_set_cleared_and_read_with_its_trend,
        a_series_shows_the_marks_of_its_newest_live_bisection,
    );

    /// A log of `n` commits, oldest first, their shas starting with `first`.
    fn log(first: char, n: usize) -> Vec<HistoryCommit> {
        (0..n)
            .map(|i| HistoryCommit {
                sha: format!("{first}{i:02x}{}", "0".repeat(37)),
                time: Some(1_700_000_000 + i as i64),
                subject: (i % 2 == 0).then(|| format!("commit {i}")),
            })
            .collect()
    }

    /// A history reads back as uploaded, in order; the same log again changes nothing, and
    /// a longer one replaces it (not a copy kept in memory); what a log with files says of a
    /// commit is kept.
    async fn a_history_reads_back_in_order_and_a_new_upload_replaces_it(db: &TestDb) {
        let store = db.open().await;
        let commits = log('a', 5);
        let put = |commits: Vec<HistoryCommit>| {
            let store = store.clone();
            async move {
                store
                    .put_history("linux", "master", &commits, "ann")
                    .await
                    .unwrap()
            }
        };
        let read = || async {
            store
                .history_for(Some(("linux", "master")), &[])
                .await
                .unwrap()
                .expect("the history")
        };
        assert_eq!(put(commits.clone()).await, 5);
        let history = read().await;
        assert_eq!(
            (history.repo.as_str(), history.branch.as_str()),
            ("linux", "master")
        );
        assert_eq!(history.commits, commits);
        assert_eq!(put(commits.clone()).await, 5);
        assert_eq!(read().await.commits, commits);
        let longer = log('a', 8);
        assert_eq!(put(longer.clone()).await, 8);
        assert_eq!(read().await.commits, longer);
        assert_eq!(
            store
                .commit_position("linux/master", app::text::head(&longer[6].sha, 12))
                .await
                .unwrap(),
            Some(6)
        );
        assert!(store
            .history_for(Some(("linux", "next")), &[])
            .await
            .unwrap()
            .is_none());
        let details = [
            CommitDetail {
                sha: longer[7].sha.clone(),
                parents: 2,
                files: Some(vec!["mm/slub.c".into(), "mm/slab.h".into()]),
            },
            CommitDetail {
                sha: longer[6].sha.clone(),
                parents: 1,
                files: None,
            },
        ];
        let stored = store
            .put_history_detailed("linux", "master", &longer, &details, "ann")
            .await
            .unwrap();
        assert_eq!(stored, 8);
        let detail = |sha: String| {
            let store = store.clone();
            async move { store.commit_detail(&sha).await.unwrap() }
        };
        assert_eq!(
            detail(longer[7].sha.clone()).await,
            Some((
                2,
                Some(vec!["mm/slub.c".to_owned(), "mm/slab.h".to_owned()])
            ))
        );
        assert_eq!(detail(longer[6].sha.clone()).await, Some((1, None)));
        assert_eq!(detail(longer[0].sha.clone()).await, None);
    }

    /// Without a history named, a trend's commits choose the history holding most of them;
    /// commits no history holds, the newest one.
    async fn the_history_for_a_trend_is_the_one_holding_most_of_its_commits(db: &TestDb) {
        let store = db.open().await;
        assert!(store.history_for(None, &[]).await.unwrap().is_none());
        let (master, next) = (log('a', 4), log('b', 3));
        store
            .put_history("linux", "master", &master, "ann")
            .await
            .unwrap();
        store
            .put_history("linux", "next", &next, "ann")
            .await
            .unwrap();
        let branch = |shas: Vec<&str>| {
            let store = store.clone();
            let shas: Vec<String> = shas.into_iter().map(str::to_owned).collect();
            async move {
                let shas: Vec<&str> = shas.iter().map(String::as_str).collect();
                let history = store.history_for(None, &shas).await.unwrap().unwrap();
                history.branch.clone()
            }
        };
        assert_eq!(branch(vec![&master[1].sha]).await, "master");
        assert_eq!(
            branch(vec![&next[0].sha, &next[2].sha, &master[0].sha]).await,
            "next"
        );
        assert_eq!(branch(vec!["cccccccccc"]).await, "next");
    }

    /// A bisect log's verdicts are commit marks, found by the full sha or an abbreviation of
    /// it; a later log's first bad commit takes the place of the earlier one's.
    async fn a_bisect_logs_marks_read_back_by_full_or_short_sha(db: &TestDb) {
        let store = db.open().await;
        let [a, b, c] = ['a', 'b', 'c'].map(|x| x.to_string().repeat(40));
        store
            .set_commit_marks(
                &[(a.clone(), Mark::Good), (b.clone(), Mark::Bad)],
                Some(&b),
                "ann",
            )
            .await
            .unwrap();
        let marks = store.commit_marks().await.unwrap();
        assert_eq!(marks.get(&a), Some((Mark::Good, false)));
        assert_eq!(marks.get(&b), Some((Mark::Bad, true)));
        assert_eq!(marks.get(app::text::head(&b, 7)), Some((Mark::Bad, true)));
        assert_eq!(marks.get(&c), None);
        store
            .set_commit_marks(
                &[(c.clone(), Mark::Bad), (a.clone(), Mark::Skip)],
                Some(&c),
                "ann",
            )
            .await
            .unwrap();
        let marks = store.commit_marks().await.unwrap();
        assert_eq!(
            [&a, &b, &c].map(|s| marks.get(s)),
            [
                Some((Mark::Skip, false)),
                Some((Mark::Bad, false)),
                Some((Mark::Bad, true))
            ]
        );
    }

    /// A run's mark is read with its trend, and cleared; a run that does not exist is not
    /// marked.
    async fn a_run_mark_is_set_cleared_and_read_with_its_trend(db: &TestDb) {
        let store = db.open().await;
        upload_csv(&store, &runs_csv(0, 3)).await;
        assert!(store.set_run_mark(2, Some(Mark::Bad), "ann").await.unwrap());
        assert!(store
            .set_run_mark(1, Some(Mark::Good), "ann")
            .await
            .unwrap());
        assert!(!store
            .set_run_mark(99, Some(Mark::Good), "ann")
            .await
            .unwrap());
        let marks = || async { store.trend_runs("b", "m1", "tput", "").await.unwrap().marks };
        assert_eq!(
            marks().await,
            HashMap::from([(1, Mark::Good), (2, Mark::Bad)])
        );
        assert!(store.set_run_mark(2, None, "ann").await.unwrap());
        assert_eq!(marks().await, HashMap::from([(1, Mark::Good)]));
    }

    /// A bisection's own verdicts are kept apart, and a trend shows those of its series'
    /// newest bisection while it runs or is done: a newer one's replace them, and a cancelled
    /// newest one shows none.
    async fn a_series_shows_the_marks_of_its_newest_live_bisection(db: &TestDb) {
        let store = db.open().await;
        let [s1, s2, s3] = ['1', '2', '3'].map(|x| x.to_string().repeat(40));
        let started = bisection(None, &s1, &s3);
        let first = store.insert_bisection(&started).await.unwrap();
        store
            .set_bisection_marks(
                first,
                &[(s1.clone(), Mark::Good), (s2.clone(), Mark::Bad)],
                Some(&s2),
            )
            .await
            .unwrap();
        let own = store.bisection_marks(first).await.unwrap();
        assert_eq!(
            [&s1, &s2, &s3].map(|s| own.get(s)),
            [Some((Mark::Good, false)), Some((Mark::Bad, true)), None]
        );
        let series = ("b".into(), "m1".into(), "tput".into(), String::new());
        let shown = store.series_marks().await.unwrap();
        assert_eq!(
            shown,
            HashMap::from([(
                series.clone(),
                HashMap::from([
                    (s1.clone(), (Mark::Good, false)),
                    (s2.clone(), (Mark::Bad, true))
                ])
            )])
        );
        let second = store.insert_bisection(&started).await.unwrap();
        store
            .set_bisection_marks(second, &[(s3.clone(), Mark::Skip)], None)
            .await
            .unwrap();
        let shown = store.series_marks().await.unwrap();
        assert_eq!(shown[&series], HashMap::from([(s3, (Mark::Skip, false))]));
        let cancel = Some((BisectionState::Cancelled, None));
        assert!(store
            .bisection_event(second, "ann", "cancel", "not needed", cancel)
            .await
            .unwrap());
        assert!(store.series_marks().await.unwrap().is_empty());
        assert_eq!(
            store.bisection_marks(first).await.unwrap().get(&s2),
            Some((Mark::Bad, true))
        );
    }
}
