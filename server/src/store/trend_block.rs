// SPDX-License-Identifier: GPL-3.0-or-later
//! Trends by block: the runs of a benchmark on a machine, in run order, folded `BLOCK_RUNS` at
//! a time (migration 0012). A `trend_block` row says once who its runs are; a `trend_cell` row
//! holds one series key's summaries (count, sum, minimum, maximum) in one block; `trend_key`
//! lists the keys with a cell. Runs past the last block are read from `run_data` (and their
//! summaries kept in memory, `cache.rs`).
//!
//! An upload writes no trend row until its benchmark and machine have `BLOCK_RUNS` runs past
//! the last block; then it writes one block and one cell per key, never rewritten: so an LKP
//! job of 5,000 keys costs ~5,000 / 32 trend rows, and a sample ~10 bytes of trend.
//!
//! Architecture invariant: blocks are only added, in order, by [`fold`]; a deletion or a
//! correction [`unfold_from`]s the first block it touches and folds again, and drops the
//! copies in memory.
//!
//! ```text
//! trend_block.runs: per run: run id (varint), kernel (varint length, UTF-8), commit (varint
//!                   length + 1, 0 for none), commit time (0, or 1 and i64 LE)
//! trend_cell.packed: presence (u64 LE, bit i: run i of the block), per present run: n
//!                   (varint), then the value (n = 1) or sum, minimum, maximum (f64 LE)
//! ```

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::run_pack::{put_varint, Reader};
use super::sql::{query, query_as, sql, sql_each, Builder, Target, Tx};
use super::{StoreError, StoreResult};

/// Runs per block (at most 64: a cell's presence is a `u64`).
pub const BLOCK_RUNS: usize = 32;

/// Who a run of a trend is.
#[derive(Debug, Clone, PartialEq)]
pub struct RunHead {
    pub run_id: i64,
    pub kernel: Arc<str>,
    pub commit: Option<Arc<str>>,
    pub commit_time: Option<i64>,
}

/// A series' samples in one run, summarised: count, sum, minimum, maximum.
pub type Summary = (usize, f64, f64, f64);

/// A run's summaries by series key (`metric_key` id).
pub type RunSummaries = HashMap<i64, Summary>;

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

fn torn(what: &str) -> StoreError {
    StoreError::Corrupt(format!("a packed {what} is torn"))
}

fn take_str(r: &mut Reader<'_>, len: usize) -> Option<Arc<str>> {
    if r.bytes.len() < len {
        return None;
    }
    let (s, rest) = r.bytes.split_at(len);
    r.bytes = rest;
    std::str::from_utf8(s).ok().map(Into::into)
}

pub fn pack_heads(heads: &[RunHead]) -> Vec<u8> {
    let mut out = Vec::with_capacity(heads.len() * 64);
    for h in heads {
        put_varint(&mut out, h.run_id as u64);
        put_str(&mut out, &h.kernel);
        match &h.commit {
            Some(c) => {
                put_varint(&mut out, c.len() as u64 + 1);
                out.extend_from_slice(c.as_bytes());
            }
            None => put_varint(&mut out, 0),
        }
        match h.commit_time {
            Some(t) => {
                out.push(1);
                out.extend_from_slice(&t.to_le_bytes());
            }
            None => out.push(0),
        }
    }
    out
}

pub fn unpack_heads(bytes: &[u8]) -> StoreResult<Vec<RunHead>> {
    let decode = || -> Option<Vec<RunHead>> {
        let mut r = Reader { bytes };
        let mut out = Vec::new();
        while !r.bytes.is_empty() {
            let run_id = i64::try_from(r.varint()?).ok()?;
            let len = usize::try_from(r.varint()?).ok()?;
            let kernel = take_str(&mut r, len)?;
            let commit = match usize::try_from(r.varint()?).ok()? {
                0 => None,
                n => Some(take_str(&mut r, n - 1)?),
            };
            let commit_time = match r.byte()? {
                0 => None,
                1 => Some(r.i64()?),
                _ => return None,
            };
            out.push(RunHead {
                run_id,
                kernel,
                commit,
                commit_time,
            });
        }
        Some(out)
    };
    decode().ok_or_else(|| torn("trend block"))
}

pub fn pack_cell(cells: &[Option<Summary>]) -> Vec<u8> {
    let mut present = 0u64;
    for (i, c) in cells.iter().enumerate() {
        if c.is_some() {
            present |= 1 << i;
        }
    }
    let mut out = Vec::with_capacity(8 + cells.len() * 9);
    out.extend_from_slice(&present.to_le_bytes());
    for &(n, sum, min, max) in cells.iter().flatten() {
        put_varint(&mut out, n as u64);
        if n == 1 {
            out.extend_from_slice(&sum.to_le_bytes());
        } else {
            for v in [sum, min, max] {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
    }
    out
}

/// A cell's summaries with the index of their run in the block.
pub fn unpack_cell(bytes: &[u8]) -> StoreResult<Vec<(usize, Summary)>> {
    let decode = || -> Option<Vec<(usize, Summary)>> {
        let (present, rest) = bytes.split_first_chunk::<8>()?;
        let present = u64::from_le_bytes(*present);
        let mut r = Reader { bytes: rest };
        let mut out = Vec::with_capacity(present.count_ones() as usize);
        for i in (0..64).filter(|i| present & (1 << i) != 0) {
            let n = usize::try_from(r.varint()?).ok()?;
            let summary = if n == 1 {
                let v = r.f64()?;
                (1, v, v, v)
            } else {
                (n, r.f64()?, r.f64()?, r.f64()?)
            };
            out.push((i, summary));
        }
        r.bytes.is_empty().then_some(out)
    };
    decode().ok_or_else(|| torn("trend cell"))
}

/// The summaries of every series key of a packed run.
pub fn summarise(packed: &[u8]) -> StoreResult<RunSummaries> {
    let series = super::run_pack::unpack(packed)?;
    let mut out = HashMap::with_capacity(series.len());
    for s in series {
        if !s.values.is_empty() {
            out.insert(s.key, super::trend_pack::TrendRun::summary(&s.values));
        }
    }
    Ok(out)
}

/// The runs of `benchmark` on `machine_id` after run `after`, in run order; never the runs
/// of A/A uploads (`calibration=NAME`): they measure noise, they are not points of a trend.
pub async fn heads_after(
    target: Target<'_>,
    benchmark: &str,
    machine_id: i64,
    after: i64,
) -> StoreResult<Vec<RunHead>> {
    let rows: Vec<(i64, String, Option<String>, Option<i64>)> = query_as(sql!(
        "SELECT r.id, k.version, r.commit_sha, r.commit_time FROM run r \
         JOIN kernel k ON k.id = r.kernel_id JOIN upload u ON u.id = r.upload_id \
         WHERE r.benchmark = ? AND r.machine_id = ? AND r.id > ? AND u.calibration IS NULL \
         ORDER BY r.id"
    ))
    .bind(benchmark)
    .bind(machine_id)
    .bind(after)
    .fetch_all(target)
    .await?;
    let mut kernels: HashMap<String, Arc<str>> = HashMap::new();
    Ok(rows
        .into_iter()
        .map(|(run_id, kernel, commit, commit_time)| RunHead {
            run_id,
            kernel: kernels
                .entry(kernel)
                .or_insert_with_key(|k| k.as_str().into())
                .clone(),
            commit: commit.map(Into::into),
            commit_time,
        })
        .collect())
}

/// The summaries of runs `ids`, read from `run_data`.
pub async fn summaries_of(
    target: Target<'_>,
    ids: &[i64],
) -> StoreResult<HashMap<i64, RunSummaries>> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let rows: Vec<(i64, Vec<u8>)> = query_as(sql!(
        "SELECT run_id, packed FROM run_data WHERE run_id IN {ids}"
    ))
    .bind(serde_json::to_string(ids)?)
    .fetch_all(target)
    .await?;
    rows.into_iter()
        .map(|(id, packed)| Ok((id, summarise(&packed)?)))
        .collect()
}

/// The next block's number and the last run in a block (0 before any).
pub async fn last_block(
    target: Target<'_>,
    benchmark: &str,
    machine_id: i64,
) -> StoreResult<(i64, i64)> {
    let (next, last): (i64, i64) = query_as(sql!(
        "SELECT COALESCE(MAX(block) + 1, 0), COALESCE(MAX(last_run), 0) FROM trend_block \
         WHERE benchmark = ? AND machine_id = ?"
    ))
    .bind(benchmark)
    .bind(machine_id)
    .fetch_one(target)
    .await?;
    Ok((next, last))
}

/// Cells inserted by one statement (5 parameters each: within both engines' limits).
const CELLS_PER_STATEMENT: usize = 500;

/// Of `pairs` (benchmark, machine id), those with at least [`BLOCK_RUNS`] runs past their
/// last block: the ones [`fold`] would fold now. Two statements for up to 200 pairs, where
/// asking [`fold`] of each is two a pair (an mmtests tree touches a pair per benchmark, and
/// each statement is a round trip to the engine).
pub async fn ready_to_fold<'p>(
    mut conn: Target<'_>,
    pairs: &'p std::collections::BTreeSet<(String, i64)>,
) -> StoreResult<Vec<&'p (String, i64)>> {
    let mut ready = Vec::new();
    let pairs: Vec<&(String, i64)> = pairs.iter().collect();
    for chunk in pairs.chunks(200) {
        let benchmarks: Vec<&str> = chunk.iter().map(|(b, _)| b.as_str()).collect();
        let machines: Vec<i64> = chunk.iter().map(|(_, m)| *m).collect();
        // The last run folded of each pair (of the benchmarks and machines named: a superset).
        let folded: HashMap<(String, i64), i64> = query_as::<(String, i64, i64)>(sql!(
            "SELECT benchmark, machine_id, MAX(last_run) FROM trend_block \
             WHERE benchmark IN {texts} AND machine_id IN {ids} GROUP BY benchmark, machine_id"
        ))
        .bind(serde_json::to_string(&benchmarks)?)
        .bind(serde_json::to_string(&machines)?)
        .fetch_all(conn.reborrow())
        .await?
        .into_iter()
        .map(|(b, m, last)| ((b, m), last))
        .collect();
        let mut q = Builder::new(
            "SELECT r.benchmark, r.machine_id, COUNT(*) FROM run r JOIN upload u ON u.id = r.upload_id \
             WHERE u.calibration IS NULL AND (",
        );
        for (i, (benchmark, machine_id)) in chunk.iter().enumerate() {
            if i > 0 {
                q.push(" OR ");
            }
            let last = folded
                .get(&(benchmark.clone(), *machine_id))
                .copied()
                .unwrap_or(0);
            q.push("(r.benchmark = ")
                .push_bind(benchmark.as_str())
                .push(" AND r.machine_id = ")
                .push_bind(*machine_id)
                .push(" AND r.id > ")
                .push_bind(last)
                .push(")");
        }
        q.push(") GROUP BY r.benchmark, r.machine_id");
        let waiting: HashMap<(String, i64), i64> = q
            .build_query_as::<(String, i64, i64)>()
            .fetch_all(conn.reborrow())
            .await?
            .into_iter()
            .map(|(b, m, n)| ((b, m), n))
            .collect();
        ready.extend(
            chunk
                .iter()
                .copied()
                .filter(|&pair| waiting.get(pair).is_some_and(|&n| n >= BLOCK_RUNS as i64)),
        );
    }
    Ok(ready)
}

/// Folds the runs of `benchmark` on `machine_id` past its last block into new blocks,
/// `BLOCK_RUNS` at a time (none while fewer are waiting), all in `conn`. Uploads do not: the
/// folder does (`fold.rs`), planning each block outside the write lock.
pub async fn fold(conn: &mut Tx, benchmark: &str, machine_id: i64) -> StoreResult<()> {
    while let Some(plan) = plan_fold(Target::from(&mut *conn), benchmark, machine_id).await? {
        if !apply_fold(conn, &plan).await? {
            return Err(StoreError::Corrupt(format!(
                "the trend block of {benchmark} on machine {machine_id} changed while it was folded"
            )));
        }
    }
    Ok(())
}

/// The next block of a benchmark on a machine, made from reads ([`plan_fold`]) and written
/// by [`apply_fold`] only if the runs it folds are still the next ones.
pub struct Planned {
    benchmark: String,
    machine_id: i64,
    /// The block's number, and the last run folded before it (0 before any).
    block: i64,
    after: i64,
    heads: Vec<RunHead>,
    /// `(metric_key, packed cell)`, in key order.
    cells: Vec<(i64, Vec<u8>)>,
}

/// The next block of `benchmark` on `machine_id` if [`BLOCK_RUNS`] runs wait past the last:
/// reads only, so the work of an LKP job's 5,000 cells is done on a reader, outside the lock
/// every upload waits for.
pub async fn plan_fold(
    mut target: Target<'_>,
    benchmark: &str,
    machine_id: i64,
) -> StoreResult<Option<Planned>> {
    let (block, after) = last_block(target.reborrow(), benchmark, machine_id).await?;
    let mut heads = heads_after(target.reborrow(), benchmark, machine_id, after).await?;
    if heads.len() < BLOCK_RUNS {
        return Ok(None);
    }
    heads.truncate(BLOCK_RUNS);
    let ids: Vec<i64> = heads.iter().map(|h| h.run_id).collect();
    let sums = summaries_of(target, &ids).await?;
    let mut cells: BTreeMap<i64, Vec<Option<Summary>>> = BTreeMap::new();
    for (i, h) in heads.iter().enumerate() {
        for (&key, &s) in sums.get(&h.run_id).into_iter().flatten() {
            cells.entry(key).or_insert_with(|| vec![None; BLOCK_RUNS])[i] = Some(s);
        }
    }
    Ok(Some(Planned {
        benchmark: benchmark.to_owned(),
        machine_id,
        block,
        after,
        heads,
        cells: cells.iter().map(|(&k, c)| (k, pack_cell(c))).collect(),
    }))
}

/// Writes `plan` in `conn` if its runs are still the next to fold, exactly as planned (no
/// block written since, none of them deleted or changed): whether it did. A stored run's
/// samples never change, so the cells stand when the runs do.
pub async fn apply_fold(conn: &mut Tx, plan: &Planned) -> StoreResult<bool> {
    let (benchmark, machine_id) = (plan.benchmark.as_str(), plan.machine_id);
    let (block, after) = last_block(Target::from(&mut *conn), benchmark, machine_id).await?;
    if (block, after) != (plan.block, plan.after) {
        return Ok(false);
    }
    let mut heads = heads_after(Target::from(&mut *conn), benchmark, machine_id, after).await?;
    heads.truncate(BLOCK_RUNS);
    if heads != plan.heads {
        return Ok(false);
    }
    let last = plan.heads[plan.heads.len() - 1].run_id;
    query(sql!(
        "INSERT INTO trend_block (benchmark, machine_id, block, last_run, runs) VALUES (?, ?, ?, ?, ?)"
    ))
    .bind(benchmark)
    .bind(machine_id)
    .bind(block)
    .bind(last)
    .bind(pack_heads(&plan.heads))
    .execute(&mut *conn)
    .await?;
    let keys: Vec<i64> = plan.cells.iter().map(|(k, _)| *k).collect();
    if let Some(pg) = conn.postgres() {
        // On PostgreSQL every cell and key in two statements of arrays (an LKP job's 5,000
        // cells as 10 statements of 2,500 parameters held the lock 5× longer).
        let packed: Vec<&[u8]> = plan.cells.iter().map(|(_, c)| c.as_slice()).collect();
        sqlx::query(
            "INSERT INTO trend_cell (benchmark, machine_id, metric_key, block, packed) \
             SELECT $1, $2, u.k, $3, u.p FROM UNNEST($4::BIGINT[], $5::BYTEA[]) AS u(k, p)",
        )
        .bind(benchmark)
        .bind(machine_id)
        .bind(block)
        .bind(&keys)
        .bind(&packed)
        .execute(&mut *pg)
        .await?;
        sqlx::query(
            "INSERT INTO trend_key (benchmark, machine_id, metric_key) \
             SELECT $1, $2, k FROM UNNEST($3::BIGINT[]) AS u(k) ON CONFLICT DO NOTHING",
        )
        .bind(benchmark)
        .bind(machine_id)
        .bind(&keys)
        .execute(&mut *pg)
        .await?;
        return Ok(true);
    }
    // Many cells a statement: an LKP job's 5,000 keys are 5,000 cells a block.
    for chunk in plan.cells.chunks(CELLS_PER_STATEMENT) {
        let mut q = Builder::new(
            "INSERT INTO trend_cell (benchmark, machine_id, metric_key, block, packed) VALUES ",
        );
        for (i, (key, cell)) in chunk.iter().enumerate() {
            if i > 0 {
                q.push(", ");
            }
            q.push("(")
                .push_bind(benchmark)
                .push(", ")
                .push_bind(machine_id)
                .push(", ")
                .push_bind(*key)
                .push(", ")
                .push_bind(block)
                .push(", ")
                .push_bind(cell.as_slice())
                .push(")");
        }
        q.build().execute(&mut *conn).await?;
    }
    // (SQLite's; PostgreSQL's arrays are above.)
    query(sql_each!(
        sqlite: "INSERT INTO trend_key (benchmark, machine_id, metric_key) \
                 SELECT ?, ?, value FROM json_each(?) WHERE true ON CONFLICT DO NOTHING",
        postgres: "INSERT INTO trend_key (benchmark, machine_id, metric_key) \
                   SELECT $1, $2, CAST(value AS BIGINT) FROM json_array_elements_text(CAST($3 AS JSON)) \
                   ON CONFLICT DO NOTHING",
    ))
    .bind(benchmark)
    .bind(machine_id)
    .bind(serde_json::to_string(&keys)?)
    .execute(&mut *conn)
    .await?;
    Ok(true)
}

/// Takes apart the blocks of `benchmark` on `machine_id` from the one that holds run `run_id`
/// (or any later run) on: their runs are read from `run_data` until [`fold`]ed again.
pub async fn unfold_from(
    conn: &mut Tx,
    benchmark: &str,
    machine_id: i64,
    run_id: i64,
) -> StoreResult<()> {
    let (first,): (Option<i64>,) = query_as(sql!(
        "SELECT MIN(block) FROM trend_block WHERE benchmark = ? AND machine_id = ? AND last_run >= ?"
    ))
    .bind(benchmark)
    .bind(machine_id)
    .bind(run_id)
    .fetch_one(&mut *conn)
    .await?;
    let Some(first) = first else {
        return Ok(());
    };
    for sql in [
        sql!("DELETE FROM trend_block WHERE benchmark = ? AND machine_id = ? AND block >= ?"),
        sql!("DELETE FROM trend_cell WHERE benchmark = ? AND machine_id = ? AND block >= ?"),
    ] {
        query(sql)
            .bind(benchmark)
            .bind(machine_id)
            .bind(first)
            .execute(&mut *conn)
            .await?;
    }
    // The keys that still have a cell.
    query(sql!(
        "DELETE FROM trend_key WHERE benchmark = ? AND machine_id = ? AND NOT EXISTS \
         (SELECT 1 FROM trend_cell c WHERE c.benchmark = trend_key.benchmark \
          AND c.machine_id = trend_key.machine_id AND c.metric_key = trend_key.metric_key)"
    ))
    .bind(benchmark)
    .bind(machine_id)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn heads_round_trip(heads in proptest::collection::vec(
            (0i64..i64::MAX, ".{0,12}", proptest::option::of("[0-9a-f]{0,40}"), proptest::option::of(any::<i64>())),
            0..BLOCK_RUNS,
        )) {
            let heads: Vec<RunHead> = heads
                .into_iter()
                .map(|(run_id, kernel, commit, commit_time)| RunHead {
                    run_id,
                    kernel: kernel.as_str().into(),
                    commit: commit.map(|c| c.as_str().into()),
                    commit_time,
                })
                .collect();
            let bytes = pack_heads(&heads);
            prop_assert_eq!(unpack_heads(&bytes).unwrap(), heads);
            if !bytes.is_empty() {
                prop_assert!(unpack_heads(&bytes[..bytes.len() - 1]).is_err());
            }
        }

        #[test]
        fn cells_round_trip(cells in proptest::collection::vec(
            proptest::option::of((1usize..5, any::<f64>(), any::<f64>(), any::<f64>())),
            BLOCK_RUNS,
        )) {
            // One sample: its sum, minimum and maximum are the value.
            let cells: Vec<Option<Summary>> = cells
                .into_iter()
                .map(|c| c.map(|(n, s, lo, hi)| if n == 1 { (1, s, s, s) } else { (n, s, lo, hi) }))
                .collect();
            let bytes = pack_cell(&cells);
            let back = unpack_cell(&bytes).unwrap();
            let bits = |s: &Summary| (s.0, s.1.to_bits(), s.2.to_bits(), s.3.to_bits());
            let expected: Vec<(usize, _)> = cells
                .iter()
                .enumerate()
                .filter_map(|(i, c)| c.as_ref().map(|c| (i, bits(c))))
                .collect();
            prop_assert_eq!(back.iter().map(|(i, s)| (*i, bits(s))).collect::<Vec<_>>(), expected);
            prop_assert!(unpack_cell(&bytes[..bytes.len() - 1]).is_err());
        }
    }

    #[test]
    fn a_one_sample_cell_is_nine_bytes_a_run() {
        let cells = vec![Some((1, 2.5, 2.5, 2.5)); BLOCK_RUNS];
        assert_eq!(pack_cell(&cells).len(), 8 + BLOCK_RUNS * 9);
    }
}
