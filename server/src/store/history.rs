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
