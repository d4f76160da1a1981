// SPDX-License-Identifier: GPL-3.0-or-later
//! The folder: writes the trend blocks of runs that uploads stored (`trend_block.rs`), in a
//! task of its own, never in an upload's transaction.
//!
//! Folding an LKP job's benchmark and machine is 32 runs of 5,000 keys read, unpacked and
//! packed again into 5,000 cells. In the upload's transaction it held the one writer for
//! tens of milliseconds, and robots that started together reach their 32nd run together: a
//! hundred of them queued two and a half seconds of writes behind each other. Here each block
//! is planned on a reader ([`trend_block::plan_fold`]) and written in a transaction of its own
//! ([`trend_block::apply_fold`]) that checks its runs are still the next ones: uploads take
//! the writer between blocks.
//!
//! Nothing is lost when the folder is behind, stopped or killed: a trend reads the runs past
//! its last block from `run_data` (only slower), and on start the folder looks at every
//! benchmark and machine.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use tokio::sync::Notify;

use super::sql::{query_as, sql, Pool, Target};
use super::trend_block;
use super::{Store, StoreResult};

/// The benchmarks and machines whose runs may have a block to fold.
#[derive(Default)]
pub struct Folds {
    pending: Mutex<BTreeSet<(String, i64)>>,
    wake: Notify,
    /// Held for a whole pass: a pass that finds nothing pending has waited for the one that
    /// took it to finish (so [`Store::fold_pending`] returns with the blocks written).
    pub(super) pass: tokio::sync::Mutex<()>,
}

impl Folds {
    /// Uploads stored runs of `pairs` (benchmark, machine id).
    pub fn touched(&self, pairs: impl IntoIterator<Item = (String, i64)>) {
        if let Ok(mut p) = self.pending.lock() {
            p.extend(pairs);
        }
        self.wake.notify_one();
    }

    fn take(&self) -> BTreeSet<(String, i64)> {
        self.pending
            .lock()
            .map(|mut p| std::mem::take(&mut *p))
            .unwrap_or_default()
    }
}

/// After each block the folder idles this many times as long as the block took.
const PACE: u32 = 2;

/// When no upload wakes it, the folder still looks this often (for what a failed pass put back).
const PERIOD: Duration = Duration::from_secs(30);

/// Folds every block waiting among `folds`' pending pairs: how many blocks were written. On
/// an error the pairs not done go back to wait for the next pass.
pub(super) async fn fold_pending(
    reader: &Pool,
    writer: &Pool,
    folds: &Folds,
) -> StoreResult<usize> {
    let _pass = folds.pass.lock().await;
    let pairs = folds.take();
    if pairs.is_empty() {
        return Ok(0);
    }
    let mut written = 0;
    let ready = match trend_block::ready_to_fold(Target::from(reader), &pairs).await {
        Ok(ready) => ready,
        Err(e) => {
            folds.touched(pairs);
            return Err(e);
        }
    };
    let ready: Vec<(String, i64)> = ready.into_iter().cloned().collect();
    for (i, (benchmark, machine_id)) in ready.iter().enumerate() {
        match fold_pair(reader, writer, benchmark, *machine_id).await {
            Ok(n) => written += n,
            Err(e) => {
                folds.touched(ready[i..].iter().cloned());
                return Err(e);
            }
        }
    }
    Ok(written)
}

/// The blocks waiting for `benchmark` on `machine_id`, each planned on `reader` and written
/// in a transaction of its own. A plan that another writer overtook (two servers, or a
/// deletion) is made again; the third in a row gives way to the next pass.
async fn fold_pair(
    reader: &Pool,
    writer: &Pool,
    benchmark: &str,
    machine_id: i64,
) -> StoreResult<usize> {
    let (mut written, mut overtaken) = (0, 0);
    loop {
        let started = std::time::Instant::now();
        let Some(plan) =
            trend_block::plan_fold(Target::from(reader), benchmark, machine_id).await?
        else {
            break;
        };
        let mut tx = writer.begin_write().await?;
        if trend_block::apply_fold(&mut tx, &plan).await? {
            tx.commit().await?;
            written += 1;
            // Twice as long idle: robots that started together make a hundred blocks due
            // at once, and their folding (reads, unpacking, the write) takes at most a third
            // of a core and of the writer's time while uploads go on.
            tokio::time::sleep(started.elapsed() * PACE).await;
        } else {
            tx.rollback().await?;
            overtaken += 1;
            if overtaken == 3 {
                break;
            }
        }
    }
    Ok(written)
}

/// Starts the folder of a store: it looks at every benchmark and machine once, then at those
/// uploads touch. It runs while `folds` lives (the store's clones hold it).
pub(super) fn spawn(reader: Pool, writer: Pool, folds: Weak<Folds>) {
    tokio::spawn(async move {
        match query_as::<(String, i64)>(sql!("SELECT DISTINCT benchmark, machine_id FROM run"))
            .fetch_all(&reader)
            .await
        {
            Ok(all) => {
                if let Some(f) = folds.upgrade() {
                    f.touched(all);
                }
            }
            Err(e) => tracing::warn!(error = %e, "cannot list the trends to fold"),
        }
        while let Some(f) = folds.upgrade() {
            if let Err(e) = fold_pending(&reader, &writer, &f).await {
                if reader.is_closed() {
                    break;
                }
                tracing::warn!(error = %e, "folding trend blocks failed; retrying");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            let _ = tokio::time::timeout(PERIOD, f.wake.notified()).await;
        }
    });
}

impl Store {
    /// Starts the folder (a server does, as it starts its probe; the command-line tools
    /// leave what they store to the next server that starts).
    pub fn start_folder(&self) {
        spawn(
            self.reader.clone(),
            self.writer.clone(),
            Arc::downgrade(&self.folds),
        );
    }

    /// Folds now what the folder would fold next: for tests and tools that want the blocks
    /// written before they look.
    pub async fn fold_pending(&self) -> StoreResult<usize> {
        fold_pending(&self.reader, &self.writer, &self.folds).await
    }
}
