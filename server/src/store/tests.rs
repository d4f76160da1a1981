// SPDX-License-Identifier: GPL-3.0-or-later
//! The store's own tests, run on both engines (`on_both_engines!`).

use super::*;
use crate::ingest::{parse_file, test_meta, Format};
use app::types::CompareQuery;
use sha2::Digest;
use std::collections::HashMap;

use super::testdb::TestDb;

crate::store::on_both_engines!(
    series_of_older_databases_are_packed_at_start,
    trends_read_every_run_across_chunks_and_uploads,
    several_series_read_at_once_read_as_each_alone,
    the_data_version_moves_with_data_only,
    deleting_an_upload_rebuilds_its_trends,
    older_databases_get_their_packed_trends_at_start,
    uploads_through_two_stores_at_once_are_serialised,
    jobs_with_the_same_keys_reordered_or_changed_read_back_as_sent,
    an_upload_of_many_benchmarks_folds_each_that_has_a_block_waiting,
    the_folder_writes_blocks_after_the_upload_has_answered,
    a_planned_block_that_was_overtaken_is_not_written,
);

/// The trend blocks of an upload's runs are the folder's (`fold.rs`): written by its task,
/// after the upload has answered, with the trend the same before and after.
async fn the_folder_writes_blocks_after_the_upload_has_answered(db: &TestDb) {
    let store = db.open().await;
    store.start_folder();
    let chunk = trend_block::BLOCK_RUNS;
    insert_csv(&store, &runs_csv(0, chunk + 3)).await;
    let before = store.trend_runs("b", "m1", "tput", "").await.unwrap();
    assert_eq!(summaries(&before), expected(chunk + 3));
    // No `fold_pending`: the background task folds on its own.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let blocks: Vec<(i64, i64)> = query_as(sql!("SELECT block, last_run FROM trend_block"))
            .fetch_all(&store.reader)
            .await
            .unwrap();
        if !blocks.is_empty() {
            assert_eq!(blocks, [(0, chunk as i64)]);
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the folder wrote no block"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    store.caches.clear();
    let after = store.trend_runs("b", "m1", "tput", "").await.unwrap();
    assert_eq!(summaries(&after), expected(chunk + 3));
}

/// A block planned outside the write lock is written only if its runs are still the next to
/// fold: not after another writer folded them, nor after one of them was deleted.
async fn a_planned_block_that_was_overtaken_is_not_written(db: &TestDb) {
    let store = db.open().await;
    // The folder waits while this test holds its pass.
    let pass = store.folds.pass.lock().await;
    let chunk = trend_block::BLOCK_RUNS;
    insert_csv(&store, &runs_csv(0, chunk + 4)).await;
    let (m,): (i64,) = query_as(sql!("SELECT id FROM machine WHERE name = 'm1'"))
        .fetch_one(&store.reader)
        .await
        .unwrap();
    let plan = || async {
        trend_block::plan_fold(Target::from(&store.reader), "b", m)
            .await
            .unwrap()
    };
    let apply = |p: trend_block::Planned| {
        let writer = store.writer.clone();
        async move {
            let mut tx = writer.begin_write().await.unwrap();
            let applied = trend_block::apply_fold(&mut tx, &p).await.unwrap();
            tx.commit().await.unwrap();
            applied
        }
    };
    let blocks = || async {
        query_as::<(i64, i64)>(sql!(
            "SELECT block, last_run FROM trend_block ORDER BY block"
        ))
        .fetch_all(&store.reader)
        .await
        .unwrap()
    };
    // Another writer folds first.
    let first = plan().await.expect("a block waits");
    let mut tx = store.writer.begin_write().await.unwrap();
    trend_block::fold(&mut tx, "b", m).await.unwrap();
    tx.commit().await.unwrap();
    assert!(!apply(first).await, "a block folded twice");
    assert_eq!(blocks().await, [(0, chunk as i64)]);
    assert!(plan().await.is_none(), "4 runs wait, not a block");
    // Planned, then the runs before it deleted: the deletion folds what is left again, and
    // the plan (block 1, after run 32) is overtaken.
    insert_csv(&store, &runs_csv(chunk + 4, 2 * chunk + 4)).await;
    let second = plan().await.expect("a block waits");
    store.delete_upload(1, "test").await.unwrap().unwrap();
    let refolded = [(0, 2 * chunk as i64 + 4)];
    assert_eq!(blocks().await, refolded);
    assert!(!apply(second).await, "a block planned before a deletion");
    assert_eq!(blocks().await, refolded);
    // Planned and not overtaken: written, and the trend reads the same.
    insert_csv(&store, &runs_csv(2 * chunk + 4, 3 * chunk + 4)).await;
    let third = plan().await.expect("the third upload's runs fill a block");
    assert!(apply(third).await);
    assert_eq!(blocks().await, [refolded[0], (1, 3 * chunk as i64 + 4)]);
    store.caches.clear();
    let runs = store.trend_runs("b", "m1", "tput", "").await.unwrap();
    assert_eq!(summaries(&runs), expected(3 * chunk + 4)[chunk + 4..]);
    drop(pass);
}

/// The metric dictionary compares a job's keys in place with the last job's: jobs whose keys
/// come in another order, lose one, gain one or change a key's direction each read back with
/// their own values (a key matched by place must be the same key).
async fn jobs_with_the_same_keys_reordered_or_changed_read_back_as_sent(db: &TestDb) {
    let store = db.open().await;
    let jobs = [
        r#"{"netperf.Throughput_Mbps": 1, "proc-vmstat.a": 2, "proc-vmstat.b": 3}"#,
        r#"{"netperf.Throughput_Mbps": 11, "proc-vmstat.a": 12, "proc-vmstat.b": 13}"#,
        r#"{"proc-vmstat.b": 23, "netperf.Throughput_Mbps": 21, "proc-vmstat.a": 22}"#,
        r#"{"netperf.Throughput_Mbps": 31, "proc-vmstat.b": 33}"#,
        r#"{"netperf.Throughput_Mbps": 41, "proc-vmstat.c": 44, "proc-vmstat.b": 43}"#,
        r#"{"netperf.Throughput_Mbps": 51, "dmesg.proc-vmstat.a": 55, "proc-vmstat.b": 53}"#,
    ];
    for (i, job) in jobs.iter().enumerate() {
        let (_, runs) = parse_file(job.as_bytes(), Some(Format::LkpStats), &test_meta()).unwrap();
        let id = store
            .insert_upload(&NewUpload {
                digest: format!("job-{i}"),
                metadata: "{}".into(),
                files: Vec::new(),
                runs,
                mark: None,
                commit_time: None,
                uploaded_by: "test".into(),
                calibration: None,
            })
            .await
            .unwrap();
        let Inserted::Created(upload_id) = id else {
            panic!("job {i} was not new")
        };
        let (run_id,): (i64,) = query_as(sql!("SELECT id FROM run WHERE upload_id = ?"))
            .bind(upload_id)
            .fetch_one(&store.reader)
            .await
            .unwrap();
        let mut got: Vec<(String, f64, String)> = store
            .run_series(run_id)
            .await
            .unwrap()
            .into_iter()
            .map(|s| (s.metric, s.samples[0].1, s.direction.as_str().to_owned()))
            .collect();
        got.sort_by(|a, b| a.0.cmp(&b.0));
        let mut want: Vec<(String, f64, String)> =
            serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(job)
                .unwrap()
                .into_iter()
                .map(|(k, v)| {
                    let direction = if k.starts_with("netperf.") {
                        "higher"
                    } else if k.starts_with("dmesg.") {
                        "lower"
                    } else {
                        "unknown"
                    };
                    (k, v.as_f64().unwrap(), direction.to_owned())
                })
                .collect();
        want.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(got, want, "job {i}");
    }
}

/// Two stores (two servers) upload runs of one series at the same time: every run is in
/// the trend once, in chunks of the right sizes; the same bytes through both at once are
/// stored once. Without the write lock (PostgreSQL's advisory lock, SQLite's one writer)
/// both would find no upload with that digest and the second would fail on the unique
/// digest.
async fn uploads_through_two_stores_at_once_are_serialised(db: &TestDb) {
    let (a, b) = (db.open().await, db.open().await);
    let robot = |store: Store, from: usize| async move {
        for i in from..from + 30 {
            upload_csv(&store, &runs_csv(i, i + 1)).await;
        }
    };
    let (ra, rb) = tokio::join!(
        tokio::spawn(robot(a.clone(), 0)),
        tokio::spawn(robot(b.clone(), 30))
    );
    ra.unwrap();
    rb.unwrap();
    for store in [&a, &b] {
        let runs = store.trend_runs("b", "m1", "tput", "").await.unwrap();
        let mut ids: Vec<i64> = runs.iter().map(|r| r.run_id).collect();
        ids.sort_unstable();
        assert_eq!(ids, (1..=60).collect::<Vec<i64>>());
    }
    // 60 runs: one block of 32, 28 waiting for the next.
    let stored: Vec<(i64, i64)> = query_as(sql!("SELECT block, last_run FROM trend_block"))
        .fetch_all(&a.reader)
        .await
        .unwrap();
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].0, 0);
    // The same bytes through both at once: stored once, the other told it exists.
    for round in 0..10 {
        let (_, runs) = parse_file(
            runs_csv(100 + round, 101 + round).as_bytes(),
            Some(Format::Csv),
            &test_meta(),
        )
        .unwrap();
        let upload = std::sync::Arc::new(NewUpload {
            digest: format!("same-{round}"),
            metadata: "{}".into(),
            files: Vec::new(),
            runs,
            mark: None,
            commit_time: None,
            uploaded_by: "test".into(),
            calibration: None,
        });
        let put = |store: Store| {
            let upload = upload.clone();
            tokio::spawn(async move { store.insert_upload(&upload).await.unwrap() })
        };
        let (x, y) = tokio::join!(put(a.clone()), put(b.clone()));
        let mut both = [x.unwrap(), y.unwrap()];
        both.sort_by_key(|i| matches!(i, Inserted::Existing(_)));
        match both {
            [Inserted::Created(c), Inserted::Existing(e)] => assert_eq!(c, e),
            other => panic!("round {round}: {other:?}"),
        }
    }
}

/// Makes `store`'s database one of before `run_data`: every run's series as `series` rows,
/// those `as_rows` picks (by their index in the run) with their samples as `sample` rows (older
/// still), the others packed in `series.packed`.
async fn make_legacy(store: &Store, as_rows: impl Fn(usize) -> bool) {
    let runs: Vec<(i64, Vec<u8>)> = query_as(sql!("SELECT run_id, packed FROM run_data"))
        .fetch_all(&store.writer)
        .await
        .unwrap();
    for (run_id, bytes) in runs {
        let stored = run_pack::unpack(&bytes).unwrap();
        let names = store
            .keys
            .names(Target::from(&store.writer), stored.iter().map(|s| s.key))
            .await
            .unwrap();
        for (i, s) in stored.iter().enumerate() {
            let k = &names[&s.key];
            let samples: Vec<(i64, f64)> = s
                .iterations
                .iter()
                .copied()
                .zip(s.values.iter().copied())
                .collect();
            let (id,): (i64,) = query_as(sql!(
                "INSERT INTO series (run_id, metric, param, unit, direction, packed) \
                 VALUES (?, ?, ?, ?, ?, ?) RETURNING id"
            ))
            .bind(run_id)
            .bind(k.metric.as_str())
            .bind(k.param.as_str())
            .bind(k.unit.as_deref())
            .bind(k.direction.as_str())
            .bind((!as_rows(i)).then(|| packed::pack(&samples)))
            .fetch_one(&store.writer)
            .await
            .unwrap();
            if as_rows(i) {
                for (iteration, value) in samples {
                    query(sql!(
                        "INSERT INTO sample (series_id, iteration, value) VALUES (?, ?, ?)"
                    ))
                    .bind(id)
                    .bind(iteration)
                    .bind(value)
                    .execute(&store.writer)
                    .await
                    .unwrap();
                }
            }
        }
    }
    query(sql!("DELETE FROM run_data"))
        .execute(&store.writer)
        .await
        .unwrap();
}

/// Series stored by older versions (a `series` row each, samples packed in it or as `sample`
/// rows) are packed into `run_data` when the server starts, and read the same, by comparisons
/// and by the run page.
async fn series_of_older_databases_are_packed_at_start(db: &TestDb) {
    let store = db.open().await;
    upload_csv(
        &store,
        "benchmark,metric,param,iteration,value\nb,tput,64,2,1.25\nb,tput,64,1,0.1\nb,tput,128,1,3e10\nb,lat,,7,2\n",
    )
    .await;
    let compare = CompareQuery::parse("b", "m1", &["6.1.0"]).unwrap();
    let read = |s: Vec<CompareSeries>| {
        s.into_iter()
            .map(|s| (s.metric, s.param, s.iterations, s.values))
            .collect::<Vec<_>>()
    };
    let packed = read(store.compare_series(&compare, None).await.unwrap());
    assert_eq!(
        packed,
        [
            (
                "tput".to_owned(),
                "64".to_owned(),
                vec![1, 2],
                vec![0.1, 1.25]
            ),
            ("tput".to_owned(), "128".to_owned(), vec![1], vec![3e10]),
            ("lat".to_owned(), String::new(), vec![7], vec![2.0]),
        ]
    );
    let run_before = store.run_series(1).await.unwrap();
    make_legacy(&store, |i| i % 2 == 1).await;
    store.close().await;
    let store = db.open().await;
    assert_eq!(store.run_series(1).await.unwrap(), run_before);
    assert_eq!(
        read(store.compare_series(&compare, None).await.unwrap()),
        packed
    );
    let counts: HashMap<String, i64> = store.table_counts().await.unwrap().into_iter().collect();
    assert_eq!(
        (counts["run_data"], counts["series"], counts["sample"]),
        (1, 0, 0)
    );
}

/// On PostgreSQL, a write through one store wakes the others' detectors (the data
/// version's NOTIFY), and still does after the listening connection was cut: it is made
/// again and listens again.
#[tokio::test(flavor = "multi_thread")]
async fn postgres_notices_wake_other_servers_even_after_a_lost_connection() {
    use std::time::Duration;
    let db = TestDb::postgres().await;
    let (a, b) = (db.open().await, db.open().await);
    let woken = b.alert_jobs_queued();
    // Wakes left from before (the reconnection wakes too) are taken first.
    let drain = || async {
        while tokio::time::timeout(Duration::from_millis(300), woken.notified())
            .await
            .is_ok()
        {}
    };
    let woken_by_upload = |csv: String| {
        let (a, woken) = (a.clone(), woken.clone());
        async move {
            let notified = woken.notified();
            upload_csv(&a, &csv).await;
            tokio::time::timeout(Duration::from_secs(5), notified)
                .await
                .is_ok()
        }
    };
    drain().await;
    assert!(woken_by_upload(runs_csv(0, 1)).await, "B was not told");
    let (killed,): (i64,) = query_as(sql!(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity \
         WHERE datname = current_database() AND query LIKE 'LISTEN%'"
    ))
    .fetch_one(&a.reader)
    .await
    .unwrap();
    assert_eq!(killed, 2, "each store listens on a connection of its own");
    tokio::time::sleep(Duration::from_millis(500)).await;
    drain().await;
    assert!(
        woken_by_upload(runs_csv(1, 2)).await,
        "B was not told after its listening connection was cut"
    );
}

/// Stores `csv` (a generic CSV with the test machine and kernel) as one upload, and folds
/// the trend blocks its runs make.
pub(super) async fn upload_csv(store: &Store, csv: &str) {
    insert_csv(store, csv).await;
    store.fold_pending().await.unwrap();
}

/// Stores `csv` as one upload, leaving its trend blocks to the folder.
async fn insert_csv(store: &Store, csv: &str) {
    let (_, runs) = parse_file(csv.as_bytes(), Some(Format::Csv), &test_meta()).unwrap();
    let upload = NewUpload {
        digest: format!("{:x}", sha2::Sha256::digest(csv.as_bytes())),
        metadata: "{}".into(),
        files: Vec::new(),
        runs,
        mark: None,
        commit_time: None,
        uploaded_by: "test".into(),
        calibration: None,
    };
    store.insert_upload(&upload).await.unwrap();
}

/// Runs `from..to`, one per commit, each with the samples `i` and `i + 1` of `tput`.
pub(super) fn runs_csv(from: usize, to: usize) -> String {
    let mut csv = String::from("benchmark,commit,metric,iteration,value\n");
    for i in from..to {
        csv.push_str(&format!(
            "b,{i:08x},tput,1,{i}\nb,{i:08x},tput,2,{}\n",
            i + 1
        ));
    }
    csv
}

/// What a trend reads of runs `0..n`: their ids, commits and sample summaries.
fn expected(n: usize) -> Vec<(i64, String, usize, f64, f64, f64)> {
    (0..n)
        .map(|i| {
            let v = i as f64;
            (i as i64 + 1, format!("{i:08x}"), 2, v + v + 1.0, v, v + 1.0)
        })
        .collect()
}

fn summaries(runs: &TrendRuns) -> Vec<(i64, String, usize, f64, f64, f64)> {
    runs.iter()
        .map(|r| {
            let commit = r.commit.as_deref().unwrap().to_owned();
            (r.run_id, commit, r.n, r.sum, r.min, r.max)
        })
        .collect()
}

/// A trend reads the same runs whatever the blocks they were folded into, and blocks kept in
/// memory never hide runs uploaded later.
async fn trends_read_every_run_across_chunks_and_uploads(db: &TestDb) {
    let store = db.open().await;
    let chunk = trend_block::BLOCK_RUNS;
    // A partial chunk; then one that fills it and starts the next; then a few more.
    for (from, to) in [
        (0, chunk - 24),
        (chunk - 24, 2 * chunk + 10),
        (2 * chunk + 10, 2 * chunk + 13),
    ] {
        upload_csv(&store, &runs_csv(from, to)).await;
        for _ in 0..2 {
            let runs = store.trend_runs("b", "m1", "tput", "").await.unwrap();
            assert_eq!(summaries(&runs), expected(to));
            let sizes: Vec<usize> = runs.chunks.iter().map(|c| c.len()).collect();
            let full = to / chunk;
            assert_eq!(sizes[..full], vec![chunk; full][..], "{sizes:?}");
            assert_eq!(sizes[full..].iter().sum::<usize>(), to % chunk, "{sizes:?}");
        }
    }
    // Two full blocks; the last 13 runs wait in `run_data`.
    let stored: Vec<(i64, i64)> = query_as(sql!(
        "SELECT block, last_run FROM trend_block ORDER BY block"
    ))
    .fetch_all(&store.reader)
    .await
    .unwrap();
    assert_eq!(stored, [(0, chunk as i64), (1, 2 * chunk as i64)]);
    // Marks are read with the runs.
    store
        .set_run_mark(3, Some(app::trend::Mark::Bad), "test")
        .await
        .unwrap();
    let runs = store.trend_runs("b", "m1", "tput", "").await.unwrap();
    assert_eq!(runs.marks, HashMap::from([(3, app::trend::Mark::Bad)]));
}

/// The detector's read of several series of a benchmark at once gives each series what it
/// has: its own runs (a series a run lacks skips it), across blocks and the runs past them,
/// whichever blocks one series already had in memory; a series of no run has none.
async fn several_series_read_at_once_read_as_each_alone(db: &TestDb) {
    let store = db.open().await;
    let chunk = trend_block::BLOCK_RUNS;
    let n = 2 * chunk + 7;
    // tput in every run; lat at two params in the odd runs only, the second twice the first.
    let mut csv = String::from("benchmark,commit,metric,param,iteration,value\n");
    for i in 0..n {
        csv.push_str(&format!(
            "b,{i:08x},tput,,1,{i}\nb,{i:08x},tput,,2,{}\n",
            i + 1
        ));
        if i % 2 == 1 {
            csv.push_str(&format!("b,{i:08x},lat,8,1,{}\n", 10 * i));
            csv.push_str(&format!("b,{i:08x},lat,16,1,{}\n", 20 * i));
        }
    }
    upload_csv(&store, &csv).await;
    let lat = |scale: f64| -> Vec<(i64, String, usize, f64, f64, f64)> {
        (0..n)
            .filter(|i| i % 2 == 1)
            .map(|i| {
                let v = scale * i as f64;
                (i as i64 + 1, format!("{i:08x}"), 1, v, v, v)
            })
            .collect()
    };
    // lat at 8 alone first: its blocks are in memory, the others' not.
    let alone = store.trend_runs("b", "m1", "lat", "8").await.unwrap();
    assert_eq!(summaries(&alone), lat(10.0));
    let series = [
        ("tput", ""),
        ("lat", "16"),
        ("lat", "8"),
        ("lat", "32"),
        ("nothing", ""),
    ];
    for _ in 0..2 {
        let read = store.trend_runs_of("b", "m1", &series).await.unwrap();
        assert_eq!(read.len(), series.len());
        assert_eq!(summaries(&read[0]), expected(n));
        assert_eq!(summaries(&read[1]), lat(20.0));
        assert_eq!(summaries(&read[2]), lat(10.0));
        assert!(read[3].is_empty() && read[4].is_empty());
        // Two blocks and the runs past them, for every series.
        assert_eq!(read[1].chunks.len(), 3, "{:?}", read[1].chunks.len());
    }
    // Another machine has none of them.
    let other = store.trend_runs_of("b", "m2", &series[..2]).await.unwrap();
    assert!(other.iter().all(TrendRuns::is_empty) && other.len() == 2);
}

/// Runs `from..to` of each benchmark in `benchmarks`, as [`runs_csv`] writes them.
fn runs_csv_of(benchmarks: &[&str], from: usize, to: usize) -> String {
    let mut csv = String::from("benchmark,commit,metric,iteration,value\n");
    for b in benchmarks {
        for i in from..to {
            csv.push_str(&format!("{b},{i:08x},tput,1,{i}\n"));
        }
    }
    csv
}

/// Which of an upload's (benchmark, machine) pairs have a block to fold is asked of all of
/// them at once: each pair folds when its own runs past its last block reach a block.
async fn an_upload_of_many_benchmarks_folds_each_that_has_a_block_waiting(db: &TestDb) {
    let store = db.open().await;
    let chunk = trend_block::BLOCK_RUNS;
    let blocks = || async {
        query_as::<(String, i64, i64)>(sql!(
            "SELECT benchmark, block, last_run FROM trend_block ORDER BY benchmark, block"
        ))
        .fetch_all(&store.reader)
        .await
        .unwrap()
        .into_iter()
        .map(|(b, block, _)| (b, block))
        .collect::<Vec<_>>()
    };
    // a: a block and 8 waiting; b: 10 waiting.
    upload_csv(&store, &runs_csv_of(&["a"], 0, chunk + 8)).await;
    upload_csv(&store, &runs_csv_of(&["b"], 0, 10)).await;
    assert_eq!(blocks().await, [("a".to_owned(), 0)]);
    let machine: (i64,) = query_as(sql!("SELECT id FROM machine WHERE name = 'm1'"))
        .fetch_one(&store.reader)
        .await
        .unwrap();
    let pairs: std::collections::BTreeSet<(String, i64)> = ["a", "b", "c"]
        .iter()
        .map(|b| ((*b).to_owned(), machine.0))
        .collect();
    let ready = trend_block::ready_to_fold(Target::from(&store.reader), &pairs)
        .await
        .unwrap();
    assert!(ready.is_empty(), "{ready:?}");
    // One upload of three benchmarks: a reaches a second block (8 + 24), b one (10 + 24),
    // c (24) none.
    upload_csv(
        &store,
        &runs_csv_of(&["a", "b", "c"], 1000, 1000 + chunk - 8),
    )
    .await;
    assert_eq!(
        blocks().await,
        [
            ("a".to_owned(), 0),
            ("a".to_owned(), 1),
            ("b".to_owned(), 0)
        ]
    );
    let trend = store.trend_runs("c", "m1", "tput", "").await.unwrap();
    assert_eq!(trend.iter().count(), chunk - 8);
}

/// The data version moves with every write of data, made through this store or another on
/// the same file, and stays put for writes that change no data.
async fn the_data_version_moves_with_data_only(db: &TestDb) {
    let a = db.open().await;
    let b = db.open().await;
    let start = a.generation().await.unwrap();
    upload_csv(&a, &runs_csv(0, 3)).await;
    let uploaded = a.generation().await.unwrap();
    assert!(uploaded > start);
    assert_eq!(
        b.generation().await.unwrap(),
        uploaded,
        "the other store sees it at once"
    );
    a.ensure_permalink("digest", "{}", "abc").await.unwrap();
    a.create_token("robot", "hash", "upload", None, "test")
        .await
        .unwrap();
    a.audit("test", "test", "nothing", "").await.unwrap();
    assert_eq!(a.generation().await.unwrap(), uploaded);
    assert_eq!(b.generation().await.unwrap(), uploaded);
    assert!(b
        .set_run_mark(1, Some(app::trend::Mark::Good), "test")
        .await
        .unwrap());
    let marked = a.generation().await.unwrap();
    assert!(marked > uploaded, "a mark through the other store is seen");
    assert_eq!(b.generation().await.unwrap(), marked);
}

/// Deleting an upload folds the trend blocks of its series again from the runs that remain,
/// and drops the copies of blocks kept in memory.
async fn deleting_an_upload_rebuilds_its_trends(db: &TestDb) {
    let store = db.open().await;
    let chunk = trend_block::BLOCK_RUNS;
    upload_csv(&store, &runs_csv(0, chunk + 10)).await;
    upload_csv(&store, &runs_csv(chunk + 10, 2 * chunk + 5)).await;
    // Read once, so full chunks are in memory.
    let all = store.trend_runs("b", "m1", "tput", "").await.unwrap();
    assert_eq!(summaries(&all), expected(2 * chunk + 5));
    let deleted = store.delete_upload(1, "test").await.unwrap().unwrap();
    assert_eq!(deleted.runs, chunk + 10);
    store.generation().await.unwrap();
    let left = store.trend_runs("b", "m1", "tput", "").await.unwrap();
    assert_eq!(summaries(&left), expected(2 * chunk + 5)[chunk + 10..]);
    // The chunk - 5 runs left: no full block, all read from `run_data`.
    let stored: Vec<(i64,)> = query_as(sql!("SELECT block FROM trend_block"))
        .fetch_all(&store.reader)
        .await
        .unwrap();
    assert!(stored.is_empty(), "{stored:?}");
    assert!(store.delete_upload(1, "test").await.unwrap().is_none());
    let gone = store.deleted(&[5, 7]).await.unwrap().unwrap();
    assert_eq!((gone.upload_id, gone.deleted_by.as_str()), (1, "test"));
    assert!(store.deleted(&[chunk as i64 + 11]).await.unwrap().is_none());
}

/// A database written before the packed trend chunks and histories existed gets them when
/// the server starts, with the same content as if they had been written with the runs.
async fn older_databases_get_their_packed_trends_at_start(db: &TestDb) {
    let store = db.open().await;
    upload_csv(&store, &runs_csv(0, 40)).await;
    let commits: Vec<HistoryCommit> = (0..40)
        .map(|i| HistoryCommit {
            sha: format!("{i:08x}"),
            time: (i % 2 == 0).then_some(i64::from(i)),
            subject: Some(format!("commit {i}")),
        })
        .collect();
    store
        .put_history("linux", "master", &commits, "test")
        .await
        .unwrap();
    let runs = summaries(&store.trend_runs("b", "m1", "tput", "").await.unwrap());
    assert_eq!(runs, expected(40));
    // Make it an older database: no chunks, no packed history, series as rows, some of
    // them with their samples as rows.
    for sql in [
        sql!("DELETE FROM trend_chunk"),
        sql!("UPDATE history SET packed = NULL"),
    ] {
        query(sql).execute(&store.writer).await.unwrap();
    }
    make_legacy(&store, |_| true).await;
    store.close().await;
    let store = db.open().await;
    let again = summaries(&store.trend_runs("b", "m1", "tput", "").await.unwrap());
    assert_eq!(again, runs);
    let history = store
        .history_for(Some(("linux", "master")), &[])
        .await
        .unwrap()
        .unwrap();
    assert_eq!(history.commits, commits);
    // A replaced history is read anew, not from the copy in memory.
    store
        .put_history("linux", "master", &commits[..3], "test")
        .await
        .unwrap();
    let history = store
        .history_for(None, &["00000001"])
        .await
        .unwrap()
        .unwrap();
    assert_eq!(history.commits, commits[..3]);
}

/// An upload's commit leaves the log to the checkpointer (`checkpoint.rs`), which copies it
/// into the database file at once: the file alone (without its `-wal`) soon holds the upload,
/// though its few pages are far from the writer's own checkpoint.
#[tokio::test]
async fn the_checkpointer_copies_an_upload_into_the_database_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.db");
    let store = Store::open(&path).await.unwrap();
    let uploads_in_file = || async {
        // A copy of the file alone: SQLite finds no log beside it. (Copied while the
        // checkpointer may write: a torn copy is "not yet".)
        let copy = dir.path().join("copy.db");
        std::fs::copy(&path, &copy).ok()?;
        let options = SqliteConnectOptions::new().filename(&copy).read_only(true);
        let mut conn = options.connect().await.ok()?;
        let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM upload")
            .fetch_one(&mut conn)
            .await
            .ok()?;
        let _ = sqlx::Connection::close(conn).await;
        Some(n)
    };
    upload_csv(&store, &runs_csv(0, 3)).await;
    let mut seen = None;
    for _ in 0..100 {
        seen = uploads_in_file().await;
        if seen == Some(1) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(seen, Some(1), "the upload never reached the database file");
    // The writer itself does not checkpoint a log this short.
    let (pages,): (i64,) = query_as(sql!("PRAGMA wal_autocheckpoint"))
        .fetch_one(&store.writer)
        .await
        .unwrap();
    assert_eq!(pages.to_string(), checkpoint::BACKSTOP_PAGES);
}
