// SPDX-License-Identifier: GPL-3.0-or-later
//! Writing an upload: one transaction on the single writer connection.
//!
//! `Store::insert_upload_answered`: an upload with the same digest is answered as it is; else
//! the upload, its raw files, machines and kernels, runs and the runs' `metric_key` ids
//! (resolved once per upload, from memory after the first: a job's keys are compared in place
//! with the last job's), one `run_data` row per run (every series in file order, named by
//! `metric_key` id; SQLite row by row, PostgreSQL with bound arrays), an `alert_job` per series
//! key of known direction, the audit line. The answer is made inside the transaction, so a
//! success never depends on a round trip after the commit. CPU work goes `beside` the
//! database's: the series keys are worked out while the upload row is inserted, the runs
//! packed while the raw files are, the alert keys while the runs are, the answer while the
//! commit syncs (dropped if it fails). No trend row is written here: the folder (`fold.rs`)
//! writes trend blocks after the upload has answered.

use super::error::decode;
use super::{StoreError, StoreResult};
use std::collections::{BTreeSet, HashMap};

use super::metric_key::{KeyRef, MetricKey, Resolved};
use super::sql::{query, query_as, sql, Arg, Bind as _, Builder, Tx};

use super::trend_pack::HistoryCommit;
use super::Store;
use crate::ingest::ParsedRun;

pub struct NewFile {
    pub name: Option<String>,
    pub format: String,
    pub sha256: String,
    pub bytes: bytes::Bytes,
}

pub struct NewUpload {
    pub digest: String,
    pub metadata: String,
    pub files: Vec<NewFile>,
    /// The runs parsed from each file, in file order.
    pub runs: Vec<ParsedRun>,
    /// A bisect mark (for every run without one of its own) and a commit time for every run,
    /// from the upload's fields.
    pub mark: Option<app::trend::Mark>,
    pub commit_time: Option<i64>,
    /// Who stored it: a token's name, or `open`; recorded with the upload and in the audit
    /// trail, in the upload's transaction.
    pub uploaded_by: String,
    /// An A/A upload's name (`calibration=NAME`).
    pub calibration: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inserted {
    Created(i64),
    /// The same bytes with the same metadata were uploaded before as this upload.
    Existing(i64),
}

impl Store {
    pub async fn insert_upload(&self, upload: &NewUpload) -> StoreResult<Inserted> {
        Ok(self.insert_upload_detailed(upload).await?.0)
    }

    /// Stores an upload as [`Store::insert_upload`] does, and answers with what the
    /// transaction wrote (the upload, its files and runs), read inside it before the commit:
    /// an acknowledgement never needs a second round trip that could fail after the commit.
    pub async fn insert_upload_detailed(
        &self,
        upload: &NewUpload,
    ) -> StoreResult<(Inserted, app::types::UploadDetail)> {
        self.insert_upload_answered(upload, |inserted, detail| (inserted, detail))
            .await
    }

    /// [`Store::insert_upload_detailed`], the answer made of what was written by `answer`
    /// while the commit reaches the disk (a tree's answer is 150 KB of JSON, half a
    /// millisecond to write out). An answer made for a commit that then fails is dropped.
    pub async fn insert_upload_answered<T>(
        &self,
        upload: &NewUpload,
        answer: impl FnOnce(Inserted, app::types::UploadDetail) -> T,
    ) -> StoreResult<T> {
        let mut tx = self.writer.begin_write().await?;
        let written = match self.write_upload(&mut tx, upload).await? {
            Err(id) => {
                let detail = Store::upload_detail_in(&mut tx, id)
                    .await?
                    .ok_or_else(|| StoreError::NotFound(format!("upload {id} vanished")))?;
                return Ok(answer(Inserted::Existing(id), detail));
            }
            Ok(written) => written,
        };
        let upload_id = written.upload_id;
        let summary = Store::upload_in(super::sql::Target::from(&mut tx), upload_id)
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("upload {upload_id} vanished")))?;
        // The answer, its runs summarised, while the commit reaches the disk.
        let (committed, answered) = beside(tx.commit(), || {
            let detail =
                Store::stored_upload_detail(summary, upload, &written.run_ids, &written.created_at);
            answer(Inserted::Created(upload_id), detail)
        })
        .await;
        committed?;
        self.after_commit(vec![written]);
        Ok(answered)
    }

    /// Stores several uploads in one transaction (`perfline import-mail`'s plots, a batch's
    /// worth): each as [`Store::insert_upload`] does, an upload stored before answered as it is.
    pub async fn insert_uploads(&self, uploads: &[NewUpload]) -> StoreResult<Vec<Inserted>> {
        if uploads.is_empty() {
            return Ok(Vec::new());
        }
        let mut tx = self.writer.begin_write().await?;
        let mut out = Vec::with_capacity(uploads.len());
        let mut written = Vec::new();
        for upload in uploads {
            match self.write_upload(&mut tx, upload).await? {
                Err(id) => out.push(Inserted::Existing(id)),
                Ok(w) => {
                    out.push(Inserted::Created(w.upload_id));
                    written.push(w);
                }
            }
        }
        tx.commit().await?;
        self.after_commit(written);
        Ok(out)
    }

    /// What the background tasks learn once uploads are committed: the metric dictionary's
    /// new keys, the benchmarks and machines whose runs to fold, the detector's queue.
    fn after_commit(&self, written: Vec<Written>) {
        for w in written {
            self.keys.committed(w.learned);
            // Each benchmark and machine the upload touched folds its waiting runs into a
            // trend block once it has enough: the folder's work (`fold.rs`), not this
            // transaction's.
            self.folds.touched(w.pairs);
        }
        self.alert_jobs_queued.notify_one();
        self.wal_written.notify_one();
    }

    /// An upload's rows in `tx`: the upload, its files, its runs, the detector's queue and
    /// the audit trail; or the id of the upload of the same digest stored before.
    async fn write_upload(
        &self,
        tx: &mut Tx,
        upload: &NewUpload,
    ) -> StoreResult<Result<Written, i64>> {
        if let Some((id,)) = query_as::<(i64,)>(sql!("SELECT id FROM upload WHERE digest = ?"))
            .bind(&upload.digest)
            .fetch_optional(&mut *tx)
            .await?
        {
            return Ok(Err(id));
        }
        // While the database inserts the upload's row, and then its files' raw bytes (a
        // tree's 800 KB archive, a millisecond of SQLite's copying), this task works out the
        // runs' series keys, and then packs their samples by the ids the keys resolved to.
        let (row, wanted) = beside(
            query_as::<(i64, String)>(sql!(
                "INSERT INTO upload (digest, metadata, uploaded_by, calibration) VALUES (?, ?, ?, ?) RETURNING id, created_at"
            ))
            .bind(&upload.digest)
            .bind(&upload.metadata)
            .bind(&upload.uploaded_by)
            .bind(&upload.calibration)
            .fetch_one(&mut *tx),
            || Wanted::of(&upload.runs),
        )
        .await;
        // The upload's time is its runs' too: nothing is read back to answer with it.
        let (upload_id, created_at) = row?;
        // Each run's series by their ids in the metric dictionary, resolved once.
        let (ids, learned) = self.keys.resolve(tx, &wanted.keys).await?;
        let (files, packed) = beside(insert_files(tx, upload_id, &upload.files), || {
            wanted.pack(&upload.runs, &ids)
        })
        .await;
        files?;
        // The runs' ids, and what they touched: the series keys for the alert detector, and
        // every benchmark and machine they are runs of.
        let (run_ids, trends) = if let Some(pg) = tx.postgres() {
            insert_runs_postgres(pg, (upload_id, &created_at), upload, &packed).await?
        } else {
            insert_runs_sqlite(tx, (upload_id, &created_at), upload, &packed).await?
        };
        queue_alert_jobs(tx, &trends.keys, upload_id).await?;
        let samples: usize = upload.runs.iter().map(ParsedRun::sample_count).sum();
        super::tokens::audit_in(
            tx,
            &upload.uploaded_by,
            "upload",
            &format!("upload {upload_id}"),
            &format!("{} run(s), {samples} sample(s)", upload.runs.len()),
        )
        .await?;
        Ok(Ok(Written {
            upload_id,
            created_at,
            run_ids,
            learned,
            pairs: trends.pairs,
        }))
    }
}

/// An upload written in a transaction not yet committed.
struct Written {
    upload_id: i64,
    created_at: String,
    run_ids: Vec<i64>,
    learned: Resolved,
    pairs: BTreeSet<(String, i64)>,
}

/// `statement`, sent to the database first, and `work`, done on this task while the database
/// runs it (on SQLite's worker thread, or the PostgreSQL server): the CPU work of storing an
/// upload overlaps the database's own.
async fn beside<S: std::future::Future, T>(
    statement: S,
    work: impl FnOnce() -> T,
) -> (S::Output, T) {
    let mut statement = std::pin::pin!(statement);
    // Polled once, the statement is on its way (or done).
    let first =
        std::future::poll_fn(|cx| std::task::Poll::Ready(statement.as_mut().poll(cx))).await;
    let out = work();
    let done = match first {
        std::task::Poll::Ready(done) => done,
        std::task::Poll::Pending => statement.await,
    };
    (done, out)
}

/// An upload's files, raw, in `tx`.
async fn insert_files(tx: &mut Tx, upload_id: i64, files: &[NewFile]) -> StoreResult<()> {
    for (idx, f) in files.iter().enumerate() {
        query(sql!("INSERT INTO upload_file (upload_id, idx, name, format, sha256, size, raw) VALUES (?, ?, ?, ?, ?, ?, ?)"))
            .bind(upload_id)
            .bind(idx as i64)
            .bind(&f.name)
            .bind(&f.format)
            .bind(&f.sha256)
            .bind(f.bytes.len() as i64)
            .bind(f.bytes.as_ref())
            .execute(&mut *tx)
            .await?;
    }
    Ok(())
}

/// The distinct series keys of an upload's runs, and which of them each run's series is.
struct Wanted<'a> {
    keys: Vec<KeyRef<'a>>,
    of_run: Vec<Vec<usize>>,
}

impl<'a> Wanted<'a> {
    fn of(runs: &'a [ParsedRun]) -> Wanted<'a> {
        fn key(s: &crate::ingest::ParsedSeries) -> KeyRef<'_> {
            KeyRef {
                metric: s.metric.as_str(),
                param: &s.param,
                unit: s.unit.as_ref().map(app::label::Unit::as_str),
                direction: s.direction,
            }
        }
        let mut keys = Vec::new();
        let mut of_run: Vec<Vec<usize>> = Vec::with_capacity(runs.len());
        if let [run] = runs {
            // A run's series differ in metric or param: its keys are distinct as they are.
            keys.extend(run.series.iter().map(key));
            of_run.push((0..keys.len()).collect());
        } else {
            let mut index: hashbrown::HashMap<KeyRef<'_>, usize> = hashbrown::HashMap::new();
            for run in runs {
                let mut slots = Vec::with_capacity(run.series.len());
                for s in &run.series {
                    let next = keys.len();
                    let slot = *index.entry(key(s)).or_insert(next);
                    if slot == next {
                        keys.push(key(s));
                    }
                    slots.push(slot);
                }
                of_run.push(slots);
            }
        }
        Wanted { keys, of_run }
    }

    /// Each run's `run_data.packed`: its series named by the dictionary `ids` of [`Self::keys`].
    fn pack(&self, runs: &[ParsedRun], ids: &[i64]) -> Vec<Vec<u8>> {
        runs.iter()
            .zip(&self.of_run)
            .map(|(run, slots)| {
                super::run_pack::pack(
                    run.series.iter().zip(slots).map(|(s, &slot)| {
                        (ids[slot], s.samples.as_slice(), s.integer == Some(true))
                    }),
                )
            })
            .collect()
    }
}

/// The id of the machine or kernel named `value`, created if new.
pub(super) async fn id_of(conn: &mut Tx, table: Named, value: &str) -> StoreResult<i64> {
    let sql = match table {
        Named::Machine => sql!("INSERT INTO machine (name) VALUES (?) ON CONFLICT (name) DO UPDATE SET name = excluded.name RETURNING id"),
        Named::Kernel => sql!("INSERT INTO kernel (version) VALUES (?) ON CONFLICT (version) DO UPDATE SET version = excluded.version RETURNING id"),
    };
    let (id,): (i64,) = query_as(sql).bind(value).fetch_one(&mut *conn).await?;
    Ok(id)
}

/// The tables of named things a run refers to.
#[derive(Clone, Copy)]
pub(super) enum Named {
    Machine,
    Kernel,
}

/// Alert keys a multi-row `INSERT` on SQLite holds: 4 placeholders a key (and one more).
const SQLITE_KEYS_PER_STATEMENT: usize = 2000;

/// Runs a multi-row `INSERT` on SQLite holds: 12 placeholders a run, well under SQLite's
/// 32,766 variables a statement.
const SQLITE_RUNS_PER_STATEMENT: usize = 500;

/// Inserts all of an upload's runs and their packed series on SQLite in a few statements
/// whatever their number: each distinct machine and kernel once, then the runs and their
/// `run_data` as multi-row `VALUES`. The ids are the ones SQLite itself would give (the
/// table's largest plus one, in order): the transaction is the only writer.
async fn insert_runs_sqlite<'u>(
    conn: &mut Tx,
    (upload_id, created_at): (i64, &str),
    upload: &'u NewUpload,
    packed: &[Vec<u8>],
) -> StoreResult<(Vec<i64>, Touched<'u>)> {
    let runs = &upload.runs;
    let mut machines: HashMap<&str, i64> = HashMap::new();
    let mut kernels: HashMap<&str, i64> = HashMap::new();
    for r in runs {
        let (machine, kernel) = (r.key.machine.as_str(), r.key.kernel.as_str());
        if !machines.contains_key(machine) {
            machines.insert(machine, id_of(&mut *conn, Named::Machine, machine).await?);
        }
        if !kernels.contains_key(kernel) {
            kernels.insert(kernel, id_of(&mut *conn, Named::Kernel, kernel).await?);
        }
    }
    let (last,): (i64,) = query_as(sql!("SELECT COALESCE(MAX(id), 0) FROM run"))
        .fetch_one(&mut *conn)
        .await?;
    let ids = (last + 1..).take(runs.len());
    let rows: Vec<(i64, &ParsedRun, &Vec<u8>)> = ids
        .zip(runs)
        .zip(packed)
        .map(|((id, r), p)| (id, r, p))
        .collect();
    // What the runs touched, worked out while SQLite inserts the first of them.
    let mut touched = None;
    for chunk in rows.chunks(SQLITE_RUNS_PER_STATEMENT) {
        let mut q = Builder::new(
            "INSERT INTO run (id, upload_id, benchmark, machine_id, kernel_id, commit_sha, tags, facts, sample_count, mark, commit_time, created_at) VALUES ",
        );
        let mut data = Builder::new("INSERT INTO run_data (run_id, packed) VALUES ");
        for (i, &(id, r, p)) in chunk.iter().enumerate() {
            if i > 0 {
                q.push(", ");
                data.push(", ");
            }
            q.push_list([
                Arg::Int(Some(id)),
                Arg::Int(Some(upload_id)),
                r.key.benchmark.as_str().arg(),
                Arg::Int(Some(machines[r.key.machine.as_str()])),
                Arg::Int(Some(kernels[r.key.kernel.as_str()])),
                r.key
                    .commit
                    .as_ref()
                    .map(app::label::CommitSha::as_str)
                    .arg(),
                tags_json(r)?.arg(),
                serde_json::to_string(&r.facts)?.arg(),
                Arg::Int(Some(r.sample_count() as i64)),
                r.mark.or(upload.mark).map(app::trend::Mark::as_str).arg(),
                Arg::Int(upload.commit_time),
                created_at.arg(),
            ]);
            data.push_list([Arg::Int(Some(id)), p.arg()]);
        }
        let (inserted, ()) = beside(q.build().execute(&mut *conn), || {
            if touched.is_none() {
                touched = Some(Touched::of(runs, |r| machines[r.key.machine.as_str()]));
            }
        })
        .await;
        inserted?;
        data.build().execute(&mut *conn).await?;
    }
    let touched =
        touched.unwrap_or_else(|| Touched::of(runs, |r| machines[r.key.machine.as_str()]));
    Ok((rows.iter().map(|&(id, _, _)| id).collect(), touched))
}

/// A run's tags as stored: a JSON array of `[key, value]` pairs.
fn tags_json(run: &ParsedRun) -> StoreResult<String> {
    Ok(serde_json::to_string(
        &run.tags
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect::<Vec<_>>(),
    )?)
}

/// What an upload touched: the benchmarks and machines it stored runs of, and the series keys
/// the alert detector looks at (sorted, each once).
struct Touched<'a> {
    pairs: BTreeSet<(String, i64)>,
    keys: Vec<AlertKey<'a>>,
}

/// A series key as the alert detector's queue holds it: benchmark, machine id, metric, param.
pub(super) type AlertKey<'a> = (&'a str, i64, &'a str, &'a str);

impl<'a> Touched<'a> {
    /// What `runs` touch, their machines' ids by `machine_of`. The keys are those of series
    /// with samples and a known direction: a change of a metric whose direction is unknown
    /// raises no alert (most of an LKP job's 5,000 keys).
    fn of(runs: &'a [ParsedRun], machine_of: impl Fn(&ParsedRun) -> i64) -> Touched<'a> {
        let mut pairs = BTreeSet::new();
        let mut keys = Vec::new();
        for run in runs {
            let (benchmark, machine_id) = (run.key.benchmark.as_str(), machine_of(run));
            pairs.insert((benchmark.to_owned(), machine_id));
            keys.extend(
                run.series
                    .iter()
                    .filter(|s| !s.samples.is_empty() && s.direction.is_known())
                    .map(|s| (benchmark, machine_id, s.metric.as_str(), s.param.as_str())),
            );
        }
        keys.sort_unstable();
        keys.dedup();
        Touched { pairs, keys }
    }
}

/// The ids of `names` in `machine` or `kernel` (by the upsert `sql`), created if new.
async fn ids_of_names(
    pg: &mut sqlx::PgConnection,
    sql: &'static str,
    mut names: Vec<&str>,
) -> StoreResult<HashMap<String, i64>> {
    names.sort_unstable();
    names.dedup();
    let rows: Vec<(i64, String)> = sqlx::query_as(sql).bind(names).fetch_all(pg).await?;
    Ok(rows.into_iter().map(|(id, name)| (name, id)).collect())
}

/// Inserts all of an upload's runs and their packed series on PostgreSQL in five statements, whatever
/// their number: machines and kernels (`UNNEST`ed names, upserted), the run ids (taken from
/// the identity's sequence), the runs and their `run_data`, each column bound as one array and
/// `UNNEST`ed. (SQLite inserts them row by row: in process, a row costs microseconds; here each
/// statement is a round trip.)
async fn insert_runs_postgres<'u>(
    pg: &mut sqlx::PgConnection,
    (upload_id, created_at): (i64, &str),
    upload: &'u NewUpload,
    packed: &[Vec<u8>],
) -> StoreResult<(Vec<i64>, Touched<'u>)> {
    let runs = &upload.runs;
    if runs.is_empty() {
        return Ok((Vec::new(), Touched::of(runs, |_| 0)));
    }
    let machines = ids_of_names(
        &mut *pg,
        "INSERT INTO machine (name) SELECT * FROM UNNEST($1::TEXT[]) \
         ON CONFLICT (name) DO UPDATE SET name = excluded.name RETURNING id, name",
        runs.iter().map(|r| r.key.machine.as_str()).collect(),
    )
    .await?;
    let kernels = ids_of_names(
        &mut *pg,
        "INSERT INTO kernel (version) SELECT * FROM UNNEST($1::TEXT[]) \
         ON CONFLICT (version) DO UPDATE SET version = excluded.version RETURNING id, version",
        runs.iter().map(|r| r.key.kernel.as_str()).collect(),
    )
    .await?;
    let run_ids: Vec<(i64,)> = sqlx::query_as(
        "SELECT nextval(pg_get_serial_sequence('run', 'id')) FROM generate_series(1, $1)",
    )
    .bind(runs.len() as i64)
    .fetch_all(&mut *pg)
    .await?;
    let run_ids: Vec<i64> = run_ids.into_iter().map(|(id,)| id).collect();
    let machine_of = |r: &ParsedRun| {
        machines
            .get(r.key.machine.as_str())
            .copied()
            .unwrap_or_default()
    };
    let mut tags = Vec::with_capacity(runs.len());
    let mut facts = Vec::with_capacity(runs.len());
    for r in runs {
        tags.push(tags_json(r)?);
        facts.push(serde_json::to_string(&r.facts)?);
    }
    // What the runs touched, worked out while the server inserts them.
    let (inserted, touched) = beside(sqlx::query(
        "INSERT INTO run (id, upload_id, benchmark, machine_id, kernel_id, commit_sha, tags, facts, sample_count, mark, commit_time, created_at) \
         SELECT u.id, $1, u.benchmark, u.machine_id, u.kernel_id, u.commit_sha, u.tags, u.facts, u.samples, u.mark, $3, $12 \
         FROM UNNEST($4::BIGINT[], $5::TEXT[], $6::BIGINT[], $7::BIGINT[], $8::TEXT[], $9::TEXT[], $10::TEXT[], $11::BIGINT[], $2::TEXT[]) \
         AS u(id, benchmark, machine_id, kernel_id, commit_sha, tags, facts, samples, mark)",
    )
    .bind(upload_id)
    .bind(
        runs.iter()
            .map(|r| r.mark.or(upload.mark).map(app::trend::Mark::as_str))
            .collect::<Vec<_>>(),
    )
    .bind(upload.commit_time)
    .bind(&run_ids)
    .bind(runs.iter().map(|r| r.key.benchmark.as_str()).collect::<Vec<_>>())
    .bind(runs.iter().map(machine_of).collect::<Vec<_>>())
    .bind(
        runs.iter()
            .map(|r| kernels.get(r.key.kernel.as_str()).copied().unwrap_or_default())
            .collect::<Vec<_>>(),
    )
    .bind(
        runs.iter()
            .map(|r| r.key.commit.as_ref().map(app::label::CommitSha::as_str))
            .collect::<Vec<_>>(),
    )
    .bind(tags)
    .bind(facts)
    .bind(runs.iter().map(|r| r.sample_count() as i64).collect::<Vec<_>>())
    .bind(created_at)
    .execute(&mut *pg), || Touched::of(runs, machine_of))
    .await;
    inserted?;
    // Every run's series in one row each (see `run_pack.rs`).
    sqlx::query(
        "INSERT INTO run_data (run_id, packed) SELECT * FROM UNNEST($1::BIGINT[], $2::BYTEA[])",
    )
    .bind(&run_ids)
    .bind(packed)
    .execute(&mut *pg)
    .await?;
    Ok((run_ids, touched))
}

impl Store {
    /// Brings data stored by older versions up to date: `series` rows (and their `sample`
    /// rows) become packed runs (migration 0011), runs become trend blocks (0012), and the
    /// packed histories of migration 0005 are filled. Does nothing on a database written since.
    pub(super) async fn fill_packed(&self) -> StoreResult<()> {
        let mut tx = self.writer.begin_write().await?;
        let learned = self.convert_series(&mut tx).await?;
        // Trend chunks (migration 0005) gave way to trend blocks (0012).
        query(sql!("DELETE FROM trend_chunk"))
            .execute(&mut tx)
            .await?;
        let (blocks, data): (bool, bool) = query_as(sql!(
            "SELECT EXISTS (SELECT 1 FROM trend_block), EXISTS (SELECT 1 FROM run_data)"
        ))
        .fetch_one(&mut tx)
        .await?;
        if data && !blocks {
            let pairs: Vec<(String, i64)> =
                query_as(sql!("SELECT DISTINCT benchmark, machine_id FROM run"))
                    .fetch_all(&mut tx)
                    .await?;
            for (benchmark, machine_id) in pairs {
                super::trend_block::fold(&mut tx, &benchmark, machine_id).await?;
            }
        }
        let histories: Vec<(i64,)> = query_as(sql!("SELECT id FROM history WHERE packed IS NULL"))
            .fetch_all(&mut tx)
            .await?;
        for (id,) in histories {
            let commits: Vec<HistoryCommit> = query_as::<(String, Option<i64>, Option<String>)>(
                sql!("SELECT sha, time, subject FROM history_commit WHERE history_id = ? ORDER BY position"),
            )
            .bind(id)
            .fetch_all(&mut tx)
            .await?
            .into_iter()
            .map(|(sha, time, subject)| HistoryCommit { sha, time, subject })
            .collect();
            query(sql!("UPDATE history SET packed = ? WHERE id = ?"))
                .bind(super::trend_pack::pack_commits(&commits))
                .bind(id)
                .execute(&mut tx)
                .await?;
        }
        tx.commit().await?;
        self.keys.committed(learned);
        Ok(())
    }

    /// Packs the `series` rows of older databases (their samples in `series.packed`, or in
    /// `sample` rows older still) into `run_data`, then deletes them.
    async fn convert_series(&self, tx: &mut Tx) -> StoreResult<Resolved> {
        type Legacy = (
            i64,
            i64,
            String,
            String,
            Option<String>,
            String,
            Option<Vec<u8>>,
        );
        let rows: Vec<Legacy> = query_as(sql!(
            "SELECT id, run_id, metric, param, unit, direction, packed FROM series ORDER BY run_id, id"
        ))
        .fetch_all(&mut *tx)
        .await?;
        if rows.is_empty() {
            return Ok(Resolved::default());
        }
        // Each run's series: its key and samples.
        type LegacyRun = (i64, Vec<(MetricKey, Vec<(i64, f64)>)>);
        let mut runs: Vec<LegacyRun> = Vec::new();
        for (series_id, run_id, metric, param, unit, direction, packed) in rows {
            let samples: Vec<(i64, f64)> = match packed {
                Some(bytes) => {
                    let (iterations, values) = super::packed::unpack(&bytes)?;
                    iterations.into_iter().zip(values).collect()
                }
                None => {
                    query_as(sql!(
                    "SELECT iteration, value FROM sample WHERE series_id = ? ORDER BY iteration"
                ))
                    .bind(series_id)
                    .fetch_all(&mut *tx)
                    .await?
                }
            };
            let key = MetricKey {
                metric,
                param,
                unit,
                direction: decode("series.direction", &direction, app::label::Direction::parse)?,
            };
            match runs.last_mut() {
                Some((id, series)) if *id == run_id => series.push((key, samples)),
                _ => runs.push((run_id, vec![(key, samples)])),
            }
        }
        let mut wanted: Vec<MetricKey> = runs
            .iter()
            .flat_map(|(_, series)| series.iter().map(|(k, _)| k.clone()))
            .collect();
        wanted.sort_by(|a, b| (&a.metric, &a.param, &a.unit).cmp(&(&b.metric, &b.param, &b.unit)));
        wanted.dedup();
        let refs: Vec<KeyRef<'_>> = wanted.iter().map(MetricKey::as_ref).collect();
        let (ids, learned) = self.keys.resolve(tx, &refs).await?;
        let id_of: HashMap<&MetricKey, i64> = wanted.iter().zip(ids).collect();
        for (run_id, series) in &runs {
            let packed = super::run_pack::pack(
                series
                    .iter()
                    .map(|(k, samples)| (id_of[k], samples.as_slice(), false)),
            );
            query(sql!("INSERT INTO run_data (run_id, packed) VALUES (?, ?)"))
                .bind(*run_id)
                .bind(packed)
                .execute(&mut *tx)
                .await?;
        }
        query(sql!("DELETE FROM sample")).execute(&mut *tx).await?;
        query(sql!("DELETE FROM series")).execute(&mut *tx).await?;
        Ok(learned)
    }
}

/// Queues every series key the upload touched for the alert detector (`alerts::detector`),
/// in the upload's transaction: a 201 means the detector will look, even after a crash. A
/// statement for thousands of keys (an LKP job touches 5,000), `keys` sorted.
pub(super) async fn queue_alert_jobs(
    conn: &mut Tx,
    keys: &[AlertKey<'_>],
    upload_id: i64,
) -> StoreResult<()> {
    if keys.is_empty() {
        return Ok(());
    }
    if let Some(pg) = conn.postgres() {
        // Every key in one statement: `[benchmark, machine id, metric, param]` rows of a JSON
        // array.
        sqlx::query(
            "INSERT INTO alert_job (benchmark, machine_id, metric, param, upload_id) \
             SELECT j ->> 0, CAST(j ->> 1 AS BIGINT), j ->> 2, j ->> 3, $1 FROM jsonb_array_elements($2::jsonb) j \
             ON CONFLICT (benchmark, machine_id, metric, param) \
             DO UPDATE SET upload_id = excluded.upload_id",
        )
        .bind(upload_id)
        .bind(serde_json::to_string(keys)?)
        .execute(pg)
        .await?;
        return Ok(());
    }
    // On SQLite, the keys as rows of `VALUES` (its JSON operators, four a row, were half a
    // tree's 848 keys' 1.3 ms). The queue time given, not left to the column's default:
    // SQLite works a default out again for each row, an expression of the `SELECT` once for
    // the statement.
    for chunk in keys.chunks(SQLITE_KEYS_PER_STATEMENT) {
        let mut q = Builder::new(
            "INSERT INTO alert_job (benchmark, machine_id, metric, param, upload_id, queued_at) \
             SELECT column1, column2, column3, column4, ",
        );
        q.push_bind(upload_id)
            .push(", strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM (VALUES ");
        for (i, &(benchmark, machine_id, metric, param)) in chunk.iter().enumerate() {
            if i > 0 {
                q.push(", ");
            }
            q.push_list([
                benchmark.arg(),
                Arg::Int(Some(machine_id)),
                metric.arg(),
                param.arg(),
            ]);
        }
        q.push(
            ") WHERE true ON CONFLICT (benchmark, machine_id, metric, param) \
             DO UPDATE SET upload_id = excluded.upload_id",
        );
        q.build().execute(&mut *conn).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};
    use std::task::Poll;

    /// The statement is sent (polled) before the work runs, is awaited after it, and both
    /// outputs come back; a statement done at once is not polled again.
    #[tokio::test]
    async fn beside_sends_the_statement_then_works_then_waits() {
        let order = Arc::new(Mutex::new(Vec::new()));
        let polls = Arc::new(Mutex::new(0));
        let statement = {
            let (order, polls) = (order.clone(), polls.clone());
            std::future::poll_fn(move |cx| {
                let mut n = polls.lock().unwrap();
                *n += 1;
                if *n == 1 {
                    order.lock().unwrap().push("sent");
                    cx.waker().wake_by_ref();
                    Poll::Pending
                } else {
                    order.lock().unwrap().push("done");
                    Poll::Ready(7)
                }
            })
        };
        let work = {
            let order = order.clone();
            move || {
                order.lock().unwrap().push("work");
                "packed"
            }
        };
        assert_eq!(super::beside(statement, work).await, (7, "packed"));
        assert_eq!(*order.lock().unwrap(), ["sent", "work", "done"]);

        let polled = Arc::new(Mutex::new(0));
        let at_once = {
            let polled = polled.clone();
            std::future::poll_fn(move |_| {
                *polled.lock().unwrap() += 1;
                Poll::Ready("stored")
            })
        };
        assert_eq!(super::beside(at_once, || 1).await, ("stored", 1));
        assert_eq!(*polled.lock().unwrap(), 1);
    }
}
