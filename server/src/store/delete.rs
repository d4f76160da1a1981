// SPDX-License-Identifier: GPL-3.0-or-later
//! Deleting an upload: its raw files, runs, series and their trend summaries, in one
//! transaction, with the trend chunks of every series key it touched rebuilt from the runs
//! that remain. The runs it removed are remembered (`retired_run`), so a permalink that
//! pinned one can say what happened to it.

use std::collections::{BTreeMap, BTreeSet};

use super::metric_key::Keys;
use super::sql::{query, query_as, sql, Tx};
use super::trend_block::{fold, unfold_from};
use super::write::{id_of, Named};
use super::{Store, StoreResult};

/// What a deletion removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deleted {
    pub runs: usize,
    pub series: usize,
}

/// Why a run is gone or changed: what happened (`deleted with upload 2`, `corrected: machine
/// m1 → m2`), by whom, and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gone {
    pub upload_id: i64,
    pub reason: String,
    pub deleted_at: String,
    pub deleted_by: String,
}

/// A correction of a run's names: each `Some` replaces what the run says (`commit:
/// Some(None)` removes its commit).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Correction {
    pub machine: Option<String>,
    pub kernel: Option<String>,
    pub commit: Option<Option<String>>,
    /// `[[key, value], ...]`, as stored.
    pub tags: Option<Vec<(String, String)>>,
}

impl Correction {
    /// Parses a correction as users give it: `None` leaves a name as it is; a commit or tags
    /// of `""` remove them. Errors name the field (`tags` errors are the upload's).
    pub fn parse(
        machine: Option<&str>,
        kernel: Option<&str>,
        commit: Option<&str>,
        tags: Option<&str>,
    ) -> Result<Correction, crate::ingest::IngestError> {
        use crate::ingest::IngestError;
        let label = |field: &str, v: &str| {
            app::label::Label::parse(v)
                .map(String::from)
                .map_err(|e| IngestError::field(field, format!("{field} {e}")))
        };
        Ok(Correction {
            machine: machine.map(|m| label("machine", m)).transpose()?,
            kernel: kernel.map(|k| label("kernel", k)).transpose()?,
            commit: match commit.map(str::trim) {
                None => None,
                Some("") => Some(None),
                Some(c) => Some(Some(
                    app::label::CommitSha::parse(c)
                        .map(|c| c.as_str().to_owned())
                        .map_err(|e| IngestError::field("commit", format!("commit {e}")))?,
                )),
            },
            tags: tags
                .map(|t| {
                    crate::ingest::parse_tags(t).map(|tags| {
                        tags.into_iter()
                            .map(|(k, v)| (String::from(k), String::from(v)))
                            .collect()
                    })
                })
                .transpose()?,
        })
    }
}

impl Store {
    /// Corrects run `id` (the robot said the wrong machine, kernel, commit or tags): the run is
    /// renamed, the trends of its old and new series keys rebuilt, names only it used dropped,
    /// permalinks that pinned it answer 410 from now on; in one transaction. `None` if there is
    /// no such run; else what changed (empty when nothing did).
    pub async fn correct_run(
        &self,
        id: i64,
        c: &Correction,
        actor: &str,
    ) -> StoreResult<Option<String>> {
        let mut tx = self.writer.begin_write().await?;
        type Old = (
            String,
            i64,
            i64,
            String,
            String,
            Option<String>,
            String,
            i64,
        );
        let old: Option<Old> = query_as(
            sql!("SELECT r.benchmark, r.machine_id, r.kernel_id, m.name, k.version, r.commit_sha, r.tags, r.upload_id \
             FROM run r JOIN machine m ON m.id = r.machine_id JOIN kernel k ON k.id = r.kernel_id WHERE r.id = ?"),
        )
        .bind(id)
        .fetch_optional(&mut tx)
        .await?;
        let Some((benchmark, machine_id, kernel_id, machine, kernel, commit, tags, upload_id)) =
            old
        else {
            return Ok(None);
        };
        let mut changes = Vec::new();
        let mut new_machine_id = machine_id;
        if let Some(m) = c.machine.as_ref().filter(|m| **m != machine) {
            new_machine_id = id_of(&mut tx, Named::Machine, m).await?;
            changes.push(format!("machine {machine} → {m}"));
        }
        let mut new_kernel_id = kernel_id;
        if let Some(k) = c.kernel.as_ref().filter(|k| **k != kernel) {
            new_kernel_id = id_of(&mut tx, Named::Kernel, k).await?;
            changes.push(format!("kernel {kernel} → {k}"));
        }
        let mut new_commit = commit.clone();
        if let Some(cm) = c.commit.as_ref().filter(|cm| **cm != commit) {
            new_commit = cm.clone();
            changes.push(format!(
                "commit {} → {}",
                commit.as_deref().unwrap_or("none"),
                cm.as_deref().unwrap_or("none")
            ));
        }
        let mut new_tags = tags.clone();
        if let Some(t) = &c.tags {
            let json = serde_json::to_string(t)?;
            if json != tags {
                changes.push(format!("tags {tags} → {json}"));
                new_tags = json;
            }
        }
        if changes.is_empty() {
            return Ok(Some(String::new()));
        }
        let what = changes.join(", ");
        let (keys, _) = series_keys(&mut tx, &self.keys, sql!("SELECT r.benchmark, r.machine_id, d.packed FROM run r JOIN run_data d ON d.run_id = r.id WHERE r.id = ?"), id).await?;
        let keys: BTreeSet<(String, String)> = keys.into_values().flatten().collect();
        query(sql!(
            "UPDATE run SET machine_id = ?, kernel_id = ?, commit_sha = ?, tags = ? WHERE id = ?"
        ))
        .bind(new_machine_id)
        .bind(new_kernel_id)
        .bind(&new_commit)
        .bind(&new_tags)
        .bind(id)
        .execute(&mut tx)
        .await?;
        query(sql!(
            "INSERT INTO retired_run (run_id, upload_id, reason, deleted_by) VALUES (?, ?, ?, ?)"
        ))
        .bind(id)
        .bind(upload_id)
        .bind(format!("corrected (run {id}: {what})"))
        .bind(actor)
        .execute(&mut tx)
        .await?;
        let mut machines = vec![machine_id];
        if new_machine_id != machine_id {
            machines.push(new_machine_id);
        }
        for m in &machines {
            refold(&mut tx, &benchmark, *m, id, &keys).await?;
        }
        drop_orphans(&mut tx, kernel_id, machine_id).await?;
        super::tokens::audit_in(&mut tx, actor, "run.correct", &format!("run {id}"), &what).await?;
        tx.commit().await?;
        self.caches.clear();
        self.alert_jobs_queued.notify_one();
        Ok(Some(what))
    }

    /// Deletes upload `id` and everything stored from it; `None` if there is no such upload.
    pub async fn delete_upload(&self, id: i64, actor: &str) -> StoreResult<Option<Deleted>> {
        let mut tx = self.writer.begin_write().await?;
        let exists: Option<(i64,)> = query_as(sql!("SELECT id FROM upload WHERE id = ?"))
            .bind(id)
            .fetch_optional(&mut tx)
            .await?;
        if exists.is_none() {
            return Ok(None);
        }
        // The series keys whose trends lose runs.
        let (keys, series) = series_keys(&mut tx, &self.keys, sql!("SELECT r.benchmark, r.machine_id, d.packed FROM run r JOIN run_data d ON d.run_id = r.id WHERE r.upload_id = ?"), id).await?;
        // The trend blocks fold again from the one that holds its first run.
        let (first_deleted,): (Option<i64>,) =
            query_as(sql!("SELECT MIN(id) FROM run WHERE upload_id = ?"))
                .bind(id)
                .fetch_one(&mut tx)
                .await?;
        let runs = query(
            sql!("INSERT INTO retired_run (run_id, upload_id, reason, deleted_by) \
             SELECT id, upload_id, 'deleted with upload ' || upload_id, ? FROM run WHERE upload_id = ?"),
        )
        .bind(actor)
        .bind(id)
        .execute(&mut tx)
        .await?
        .rows_affected() as usize;
        let names: Vec<(i64, i64)> = query_as(sql!(
            "SELECT DISTINCT kernel_id, machine_id FROM run WHERE upload_id = ?"
        ))
        .bind(id)
        .fetch_all(&mut tx)
        .await?;
        // Files, runs, series and legacy sample rows go by ON DELETE CASCADE.
        query(sql!("DELETE FROM upload WHERE id = ?"))
            .bind(id)
            .execute(&mut tx)
            .await?;
        for ((benchmark, machine_id), keys) in keys {
            let first_run = first_deleted.unwrap_or_default();
            refold(&mut tx, &benchmark, machine_id, first_run, &keys).await?;
        }
        // A kernel or machine only this upload named (the robot's typo) goes with it, once
        // the trends above no longer hold its runs (refolding writes rows naming the machine).
        for (kernel_id, machine_id) in names {
            drop_orphans(&mut tx, kernel_id, machine_id).await?;
        }
        super::tokens::audit_in(
            &mut tx,
            actor,
            "upload.delete",
            &format!("upload {id}"),
            &format!("{runs} run(s), {series} series"),
        )
        .await?;
        tx.commit().await?;
        // Full trend chunks were rewritten: the copies in memory are no longer true.
        self.caches.clear();
        self.alert_jobs_queued.notify_one();
        Ok(Some(Deleted { runs, series }))
    }

    /// Why the first of `runs` that was deleted is gone, if any was.
    pub async fn deleted(&self, runs: &[i64]) -> StoreResult<Option<Gone>> {
        let row: Option<(i64, String, String, String)> = query_as(sql!(
            "SELECT upload_id, reason, deleted_at, deleted_by FROM retired_run \
             WHERE run_id IN {ids} ORDER BY id LIMIT 1"
        ))
        .bind(serde_json::to_string(runs)?)
        .fetch_optional(&self.reader)
        .await?;
        Ok(row.map(|(upload_id, reason, deleted_at, deleted_by)| Gone {
            upload_id,
            reason,
            deleted_at,
            deleted_by,
        }))
    }

    /// How many runs were ever deleted: it changes whenever stored runs were taken away
    /// (by this process or another), which is what caches of "immutable" data key on.
    pub(super) async fn rewrites_in<'e>(
        target: impl Into<super::sql::Target<'e>>,
    ) -> StoreResult<i64> {
        let (n,): (i64,) = query_as(sql!("SELECT COALESCE(MAX(id), 0) FROM retired_run"))
            .fetch_one(target)
            .await?;
        Ok(n)
    }
}

/// The series keys (metric, param) of the runs `sql` selects (benchmark, machine id and packed
/// samples of each, by the one bound `id`), by benchmark and machine; and how many series
/// they have.
async fn series_keys(
    conn: &mut Tx,
    keys: &Keys,
    sql: &'static super::sql::Sql,
    id: i64,
) -> StoreResult<(BTreeMap<(String, i64), BTreeSet<(String, String)>>, usize)> {
    let rows: Vec<(String, i64, Vec<u8>)> = query_as(sql).bind(id).fetch_all(&mut *conn).await?;
    let mut out: BTreeMap<(String, i64), BTreeSet<(String, String)>> = BTreeMap::new();
    let mut count = 0;
    for (benchmark, machine_id, packed) in rows {
        let series = super::run_pack::unpack(&packed)?;
        count += series.len();
        let names = keys
            .names(
                super::sql::Target::from(&mut *conn),
                series.iter().map(|s| s.key),
            )
            .await?;
        let set = out.entry((benchmark, machine_id)).or_default();
        for s in &series {
            let k = &names[&s.key];
            set.insert((k.metric.clone(), k.param.clone()));
        }
    }
    Ok((out, count))
}

/// Folds the trend blocks of `benchmark` on `machine_id` again from the one that holds run
/// `first_run` (the first run deleted or changed), and has the alert detector look at the
/// series keys `wanted` again (a newest step may have moved or gone; the detector drops a key
/// left without runs).
async fn refold(
    conn: &mut Tx,
    benchmark: &str,
    machine_id: i64,
    first_run: i64,
    wanted: &BTreeSet<(String, String)>,
) -> StoreResult<()> {
    unfold_from(&mut *conn, benchmark, machine_id, first_run).await?;
    fold(&mut *conn, benchmark, machine_id).await?;
    // (`wanted` is sorted: so are its keys.)
    let keys: Vec<super::write::AlertKey<'_>> = wanted
        .iter()
        .map(|(metric, param)| (benchmark, machine_id, metric.as_str(), param.as_str()))
        .collect();
    super::write::queue_alert_jobs(&mut *conn, &keys, 0).await?;
    Ok(())
}

/// Drops a kernel and a machine no run names any more.
async fn drop_orphans(conn: &mut Tx, kernel_id: i64, machine_id: i64) -> StoreResult<()> {
    query(sql!(
        "DELETE FROM kernel WHERE id = ? AND NOT EXISTS (SELECT 1 FROM run WHERE kernel_id = ?)"
    ))
    .bind(kernel_id)
    .bind(kernel_id)
    .execute(&mut *conn)
    .await?;
    query(
        sql!("DELETE FROM alert_job WHERE machine_id = ? AND NOT EXISTS (SELECT 1 FROM run WHERE machine_id = ?)"),
    )
    .bind(machine_id)
    .bind(machine_id)
    .execute(&mut *conn)
    .await?;
    query(sql!(
        "DELETE FROM machine WHERE id = ? AND NOT EXISTS (SELECT 1 FROM run WHERE machine_id = ?) \
         AND NOT EXISTS (SELECT 1 FROM trend_block WHERE machine_id = ?)"
    ))
    .bind(machine_id)
    .bind(machine_id)
    .bind(machine_id)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::testdb::TestDb;
    use crate::store::tests::{runs_csv, upload_csv};
    use std::collections::HashMap;

    crate::store::on_both_engines!(
        deleting_an_upload_takes_its_runs_out_of_trends_and_says_why,
        a_corrected_run_moves_to_the_trend_of_its_new_names,
    );

    /// (run id, commit, kernel) of each run of the `b.tput` trend on `machine`.
    async fn trend(store: &Store, machine: &str) -> Vec<(i64, Option<String>, String)> {
        let runs = store.trend_runs("b", machine, "tput", "").await.unwrap();
        runs.iter()
            .map(|r| {
                (
                    r.run_id,
                    r.commit.as_deref().map(str::to_owned),
                    r.kernel.to_string(),
                )
            })
            .collect()
    }

    fn ids(trend: &[(i64, Option<String>, String)]) -> Vec<i64> {
        trend.iter().map(|r| r.0).collect()
    }

    /// (uploads, runs, machines, kernels) stored.
    async fn counts(store: &Store) -> (i64, i64, i64, i64) {
        let c: HashMap<String, i64> = store.table_counts().await.unwrap().into_iter().collect();
        (c["upload"], c["run"], c["machine"], c["kernel"])
    }

    /// Deleting an upload takes its runs out of the trend and the counts, says why each is
    /// gone, and is done once; the last upload of a machine and kernel takes them along, and
    /// the detector's jobs of the machine.
    async fn deleting_an_upload_takes_its_runs_out_of_trends_and_says_why(db: &TestDb) {
        let store = db.open().await;
        upload_csv(&store, &runs_csv(0, 3)).await;
        upload_csv(&store, &runs_csv(3, 5)).await;
        assert_eq!(ids(&trend(&store, "m1").await), [1, 2, 3, 4, 5]);
        assert_eq!(counts(&store).await, (2, 5, 1, 1));
        let deleted = store.delete_upload(1, "ann").await.unwrap();
        assert_eq!(deleted, Some(Deleted { runs: 3, series: 3 }));
        assert_eq!(ids(&trend(&store, "m1").await), [4, 5]);
        assert_eq!(counts(&store).await, (1, 2, 1, 1));
        let gone = store
            .deleted(&[4, 2])
            .await
            .unwrap()
            .expect("run 2 is gone");
        assert_eq!(
            (
                gone.upload_id,
                gone.reason.as_str(),
                gone.deleted_by.as_str()
            ),
            (1, "deleted with upload 1", "ann")
        );
        assert!(store.deleted(&[4, 5]).await.unwrap().is_none());
        assert!(store.delete_upload(1, "ann").await.unwrap().is_none());
        let deleted = store.delete_upload(2, "ann").await.unwrap();
        assert_eq!(deleted, Some(Deleted { runs: 2, series: 2 }));
        assert!(trend(&store, "m1").await.is_empty());
        assert_eq!(counts(&store).await, (0, 0, 0, 0));
        assert!(store.alert_jobs(10).await.unwrap().is_empty());
    }

    /// A corrected run leaves the trend of its old names for that of its new ones, is
    /// recorded as retired with what changed, and says nothing changed when nothing did;
    /// there is no correcting a run that does not exist.
    async fn a_corrected_run_moves_to_the_trend_of_its_new_names(db: &TestDb) {
        let store = db.open().await;
        upload_csv(&store, &runs_csv(0, 3)).await;
        let to_m2 = Correction::parse(Some("m2"), None, None, None).unwrap();
        let what = store.correct_run(2, &to_m2, "ann").await.unwrap();
        assert_eq!(what.as_deref(), Some("machine m1 → m2"));
        let run = |id: i64, commit: Option<&str>, kernel: &str| {
            (id, commit.map(str::to_owned), kernel.to_owned())
        };
        assert_eq!(
            trend(&store, "m1").await,
            [
                run(1, Some("00000000"), "6.1.0"),
                run(3, Some("00000002"), "6.1.0")
            ]
        );
        assert_eq!(
            trend(&store, "m2").await,
            [run(2, Some("00000001"), "6.1.0")]
        );
        let gone = store
            .deleted(&[2])
            .await
            .unwrap()
            .expect("run 2 was corrected");
        assert_eq!(
            (
                gone.upload_id,
                gone.reason.as_str(),
                gone.deleted_by.as_str()
            ),
            (1, "corrected (run 2: machine m1 → m2)", "ann")
        );
        let fix = Correction::parse(None, Some("6.2.0"), Some(""), None).unwrap();
        assert_eq!(fix.commit, Some(None));
        let what = store.correct_run(3, &fix, "ann").await.unwrap();
        assert_eq!(
            what.as_deref(),
            Some("kernel 6.1.0 → 6.2.0, commit 00000002 → none")
        );
        assert_eq!(
            trend(&store, "m1").await,
            [run(1, Some("00000000"), "6.1.0"), run(3, None, "6.2.0")]
        );
        assert_eq!(counts(&store).await, (1, 3, 2, 2));
        assert_eq!(
            store.correct_run(3, &fix, "ann").await.unwrap().as_deref(),
            Some("")
        );
        assert!(store.correct_run(99, &fix, "ann").await.unwrap().is_none());
        assert!(Correction::parse(None, None, Some("not-a-sha"), None).is_err());
    }
}
