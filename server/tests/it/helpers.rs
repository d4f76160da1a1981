// SPDX-License-Identifier: GPL-3.0-or-later
//! `spawn_app()`: the real server on 127.0.0.1:0 with a fresh database: a SQLite file in a temp
//! dir, or, when `PERFLINE_TEST_ENGINE=postgres` (the second pass of `scripts/test`), a new
//! database of its own on the throwaway PostgreSQL cluster `PERFLINE_TEST_PG` names.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use perfline_server::store::Store;
use perfline_server::{serve, AppState, Config};
use reqwest::multipart::{Form, Part};
use serde_json::Value;
use tokio::sync::oneshot;

pub struct TestApp {
    pub addr: SocketAddr,
    /// The database file (on SQLite).
    pub db: PathBuf,
    /// The database the server stores in.
    pub database: perfline_server::config::Database,
    pub base: String,
    pub store: Store,
    pub client: reqwest::Client,
    shutdown: Option<oneshot::Sender<()>>,
    served: Option<tokio::task::JoinHandle<()>>,
    _dir: tempfile::TempDir,
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with(|_| {}).await
}

/// Whether this pass runs the tests against PostgreSQL (`PERFLINE_TEST_ENGINE=postgres`).
pub fn on_postgres() -> bool {
    std::env::var("PERFLINE_TEST_ENGINE").is_ok_and(|e| e == "postgres")
}

/// A new empty database of its own on the test cluster (`PERFLINE_TEST_PG`, started by
/// `scripts/test`), and its URL. Without the cluster the test fails; it never skips.
pub async fn fresh_postgres() -> String {
    let base = std::env::var("PERFLINE_TEST_PG").expect(
        "PERFLINE_TEST_PG names no PostgreSQL: run scripts/test, which starts a throwaway cluster",
    );
    perfline_server::store::postgres::create_database(&base, "t")
        .await
        .expect("a fresh database on the test cluster")
}

/// A server configured by `configure`, on a fresh database of the pass's engine unless
/// `configure` names one.
pub async fn spawn_app_with(configure: impl FnOnce(&mut Config)) -> TestApp {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("perfline.db");
    let mut config = Config::for_db(db.clone());
    if on_postgres() {
        config.db = perfline_server::config::Database::Postgres(fresh_postgres().await);
    }
    configure(&mut config);
    let database = config.db.clone();
    let state = AppState::new(config).await.expect("server state");
    let store = state.store.clone();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind port 0");
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = oneshot::channel::<()>();
    let served = tokio::spawn(async move {
        serve(listener, state, async {
            let _ = rx.await;
        })
        .await
        .expect("server runs");
    });
    TestApp {
        addr,
        db,
        database,
        base: format!("http://{addr}"),
        store,
        client: reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap(),
        shutdown: Some(tx),
        served: Some(served),
        _dir: dir,
    }
}

impl TestApp {
    /// Stops the server as SIGTERM would, and waits until it has closed the store.
    pub async fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(served) = self.served.take() {
            served.await.expect("the server stops cleanly");
        }
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// The cases of an oracle corpus (`tests/fixtures/<corpus>/cases/*/case.json`): each case's
/// name, directory and `case.json`, by name.
pub fn oracle_cases(corpus: &str) -> Vec<(String, PathBuf, Value)> {
    oracle_cases_in(&fixture(corpus))
}

/// The fixtures a ported crate keeps beside its own tests (`crates/<name>/tests/fixtures`).
pub fn crate_fixture(krate: &str, name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../crates")
        .join(krate)
        .join("tests/fixtures")
        .join(name)
}

/// The cases of an oracle corpus at `corpus`: each `cases/*/` with its `case.json`.
pub fn oracle_cases_in(corpus: &Path) -> Vec<(String, PathBuf, Value)> {
    let dir = corpus.join("cases");
    let mut cases: Vec<(String, PathBuf, Value)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter_map(|p| {
            let meta = std::fs::read(p.join("case.json")).ok()?;
            let name = p.file_name()?.to_string_lossy().into_owned();
            Some((name, p, serde_json::from_slice(&meta).unwrap()))
        })
        .collect();
    cases.sort_by(|a, b| a.0.cmp(&b.0));
    cases
}

/// A case's kernels (`case.json`'s `kernels`), the baseline first.
pub fn case_kernels(meta: &Value) -> Vec<&str> {
    meta["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap())
        .collect()
}

/// Fails with every difference when `wrong` is not empty.
pub fn assert_none_differ(wrong: &[String], checked: usize) {
    assert!(
        wrong.is_empty(),
        "{} of {checked} tables differ from the real tool's:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// Where `ours` first differs from `theirs`, as a test's message says it.
pub fn first_difference(what: &str, ours: &str, theirs: &str) -> String {
    let first = ours.lines().zip(theirs.lines()).position(|(a, b)| a != b);
    format!(
        "{what}: differs at line {first:?} of {}/{}\n  ours:    {:?}\n  theirs:  {:?}",
        ours.lines().count(),
        theirs.lines().count(),
        first.and_then(|i| ours.lines().nth(i)),
        first.and_then(|i| theirs.lines().nth(i)),
    )
}

pub fn read_fixture(name: &str) -> Vec<u8> {
    std::fs::read(fixture(name)).unwrap_or_else(|e| panic!("fixture {name}: {e}"))
}

/// A connection of its own to a database file, as another process would open it.
pub async fn sqlx_connect(path: &Path) -> sqlx::SqliteConnection {
    use sqlx::ConnectOptions;
    sqlx::sqlite::SqliteConnectOptions::new()
        .filename(path)
        .connect()
        .await
        .expect("a second connection")
}

/// A connection of its own to a test server's database, as a maintenance script or another
/// process would open it, on either engine.
pub enum OtherConnection {
    Sqlite(sqlx::SqliteConnection),
    Postgres(sqlx::PgConnection),
}

impl OtherConnection {
    /// Runs one statement of SQL both engines speak.
    pub async fn execute(&mut self, sql: &str) {
        let statement = || sqlx::AssertSqlSafe(sql.to_owned());
        match self {
            OtherConnection::Sqlite(c) => sqlx::query(statement()).execute(c).await.map(drop),
            OtherConnection::Postgres(c) => sqlx::query(statement()).execute(c).await.map(drop),
        }
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
}

impl TestApp {
    pub async fn other_connection(&self) -> OtherConnection {
        use sqlx::Connection;
        match &self.database {
            perfline_server::config::Database::Sqlite(path) => {
                OtherConnection::Sqlite(sqlx_connect(path).await)
            }
            perfline_server::config::Database::Postgres(url) => OtherConnection::Postgres(
                sqlx::PgConnection::connect(url)
                    .await
                    .expect("a second connection"),
            ),
        }
    }

    /// Another connection holding the store's write lock, as another process would: SQLite's
    /// (`BEGIN IMMEDIATE`), or the advisory lock every PostgreSQL write transaction takes.
    /// `execute("ROLLBACK")` lets go.
    pub async fn hold_write_lock(&self) -> OtherConnection {
        let mut other = self.other_connection().await;
        match &mut other {
            OtherConnection::Sqlite(_) => other.execute("BEGIN IMMEDIATE").await,
            OtherConnection::Postgres(_) => {
                other.execute("BEGIN").await;
                other
                    .execute(&format!(
                        "SELECT pg_advisory_xact_lock({})",
                        perfline_server::store::WRITE_LOCK
                    ))
                    .await;
            }
        }
        other
    }

    pub fn db_path(&self) -> PathBuf {
        self.db.clone()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// `curl --data-binary @file 'http://host/api/v1/upload?query'`
    pub async fn upload_raw(
        &self,
        query: &str,
        body: impl Into<reqwest::Body>,
    ) -> reqwest::Response {
        self.client
            .post(self.url(&format!("/api/v1/upload?{query}")))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .expect("upload request")
    }

    /// `curl -F file=@a -F file=@b -F k=v ... http://host/api/v1/upload`
    pub async fn upload_multipart(
        &self,
        files: &[(&str, Vec<u8>)],
        fields: &[(&str, &str)],
    ) -> reqwest::Response {
        let mut form = Form::new();
        for (name, bytes) in files {
            form = form.part(
                "file",
                Part::bytes(bytes.clone()).file_name(name.to_string()),
            );
        }
        for (k, v) in fields {
            form = form.text(k.to_string(), v.to_string());
        }
        self.client
            .post(self.url("/api/v1/upload"))
            .multipart(form)
            .send()
            .await
            .expect("upload request")
    }

    /// Uploads a fixture as a raw body with the query's fields; it must be stored (201).
    pub async fn upload_fixture(&self, query: &str, name: &str) -> Value {
        let r = self.upload_raw(query, read_fixture(name)).await;
        let status = r.status().as_u16();
        let body: Value = r.json().await.expect("JSON answer");
        assert_eq!(status, 201, "upload of {name} should be stored: {body}");
        body
    }

    /// The mmtests hackbench samples (four kernels) as benchmark `hackbench-process-pipes` on m1.
    pub async fn upload_hackbench_samples(&self) -> Value {
        self.upload_fixture(
            "benchmark=hackbench-process-pipes&machine=m1",
            "mmtests/hackbench-samples.csv",
        )
        .await
    }

    /// A `GET` that must answer 200, its body read into the wire type `T` as a client reads it:
    /// a field the server renames or drops fails here, where a `Value` lookup gives `null`.
    pub async fn get<T: serde::de::DeserializeOwned>(&self, path: &str) -> T {
        let r = self.client.get(self.url(path)).send().await.expect("GET");
        let status = r.status().as_u16();
        let body = r.text().await.expect("a body");
        assert_eq!(status, 200, "GET {path}: {body}");
        serde_json::from_str(&body)
            .unwrap_or_else(|e| panic!("GET {path}: not the wire type ({e}): {body}"))
    }

    /// A `POST` with no body that must answer 200, read into the wire type `T`.
    pub async fn post<T: serde::de::DeserializeOwned>(&self, path: &str) -> T {
        let r = self.client.post(self.url(path)).send().await.expect("POST");
        let status = r.status().as_u16();
        let body = r.text().await.expect("a body");
        assert_eq!(status, 200, "POST {path}: {body}");
        serde_json::from_str(&body)
            .unwrap_or_else(|e| panic!("POST {path}: not the wire type ({e}): {body}"))
    }

    pub async fn get_json(&self, path: &str) -> (u16, Value) {
        let r = self.client.get(self.url(path)).send().await.expect("GET");
        let status = r.status().as_u16();
        (status, r.json().await.expect("JSON body"))
    }

    /// A `POST` with no body, its answer as JSON.
    pub async fn post_json(&self, path: &str) -> (u16, Value) {
        let r = self.client.post(self.url(path)).send().await.expect("POST");
        let status = r.status().as_u16();
        (status, r.json().await.expect("JSON body"))
    }

    pub async fn get_text(&self, path: &str) -> (u16, String) {
        let r = self.client.get(self.url(path)).send().await.expect("GET");
        (r.status().as_u16(), r.text().await.unwrap())
    }

    /// Row counts of every table.
    pub async fn counts(&self) -> Vec<(String, i64)> {
        self.store.table_counts().await.expect("counts")
    }
}

/// The fixture mmtests `work/log` tree as a `.tar.gz`, as users upload it.
pub fn work_log_tar_gz() -> Vec<u8> {
    let mut tar = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::default(),
    ));
    tar.append_dir_all("log", fixture("mmtests/work-log"))
        .unwrap();
    tar.into_inner().unwrap().finish().unwrap()
}

impl TestApp {
    /// Uploads the fixture mmtests tree (four kernels, netperf-tcp and hackbench) for machine m1.
    pub async fn upload_work_log(&self) {
        let r = self
            .upload_multipart(
                &[("work-log.tar.gz", work_log_tar_gz())],
                &[("machine", "m1")],
            )
            .await;
        assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
    }

    /// GET with an Accept header: status, Content-Type and body.
    pub async fn get_accept(&self, path: &str, accept: &str) -> (u16, String, String) {
        let r = self
            .client
            .get(self.url(path))
            .header("accept", accept)
            .send()
            .await
            .expect("GET");
        let status = r.status().as_u16();
        let content_type = r
            .headers()
            .get("content-type")
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default();
        (status, content_type, r.text().await.unwrap())
    }
}

/// Asserts a JSON error answer: the status, and that the message contains `needle`.
pub async fn assert_error(response: reqwest::Response, status: u16, needle: &str) -> Value {
    assert_eq!(response.status().as_u16(), status, "status");
    let body: Value = response.json().await.expect("a JSON error body");
    let message = body["error"]["message"].as_str().expect("error.message");
    assert!(
        message.contains(needle),
        "error message {message:?} should contain {needle:?}"
    );
    assert_eq!(body["error"]["status"], status);
    body
}

/// Signs in with `token` as a script does (JSON in and out), with extra `headers`; the answer.
pub async fn sign_in_json(
    app: &TestApp,
    token: &str,
    headers: &[(&str, &str)],
) -> reqwest::Response {
    let mut r = app
        .client
        .post(app.url("/api/v1/session"))
        .header("content-type", "application/json")
        .header("accept", "application/json");
    for (k, v) in headers {
        r = r.header(*k, *v);
    }
    r.body(format!(r#"{{"token":"{token}"}}"#))
        .send()
        .await
        .unwrap()
}

/// Creates a token with `scopes` in the app's store; the token.
pub async fn token(app: &TestApp, name: &str, scopes: &str) -> String {
    let t = perfline_server::http::auth::new_token();
    app.store
        .create_token(
            name,
            &perfline_server::http::auth::token_hash(&t),
            scopes,
            None,
            "test",
        )
        .await
        .unwrap()
        .expect("a new name");
    t
}

/// The path of one of the built site's files, as this binary serves it: `site_file(".css")`,
/// `site_file("_bg.wasm")`, `site_file(".js")`.
pub fn site_file(suffix: &str) -> String {
    let name = perfline_server::http::assets::Site::embedded()
        .name()
        .expect("the test binary embeds the site: run scripts/build-site before building (scripts/test does)")
        .to_owned();
    format!("/pkg/{name}{suffix}")
}

/// The real `perfline` binary as a process on a fresh port, and the address it printed: for
/// what only a process shows (signals, `kill -9`, memory).
pub struct Perfline {
    pub child: Child,
    pub addr: String,
}

impl Perfline {
    /// Starts `perfline` on `db`: a SQLite file or a `postgres://` URL.
    pub fn start(db: impl AsRef<std::ffi::OsStr>, extra: &[&str]) -> Perfline {
        let mut child = Command::new(env!("CARGO_BIN_EXE_perfline"))
            .args(["--listen", "127.0.0.1:0", "--log", "info", "--db"])
            .arg(db)
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("perfline starts");
        let stdout = child.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        let addr = loop {
            let line = lines.next().expect("perfline printed its address").unwrap();
            if let Some(rest) = line.split("listening on http://").nth(1) {
                break rest.split_whitespace().next().unwrap().to_owned();
            }
        };
        // Keep draining the log so the process never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines.by_ref() {});
        Perfline { child, addr }
    }

    pub fn signal(&self, name: &str) {
        assert!(matches!(name, "TERM" | "INT" | "KILL"), "no signal {name}");
        // kill(1) on our own child's pid, which it still is (not yet waited for).
        let done = Command::new("kill")
            .args(["-s", name, &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(done.success(), "kill -{name}");
    }

    /// Waits up to `limit` for the process to exit: its exit code, or `Err` with the signal
    /// that killed it; panics if it is still running.
    pub fn wait(&mut self, limit: Duration) -> Result<i32, i32> {
        use std::os::unix::process::ExitStatusExt;
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code().ok_or(status.signal().unwrap_or(-1));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("perfline is still running after {limit:?}");
    }
}

impl Perfline {
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// A `/proc/PID/status` figure in KiB (`VmHWM`: the peak resident set; `VmRSS`).
    pub fn status_kib(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or_else(|| panic!("{field} in {status}"))
    }

    /// Starts the peak over from the present resident set (`clear_refs` 5).
    pub fn reset_peak(&self) {
        std::fs::write(format!("/proc/{}/clear_refs", self.child.id()), "5").unwrap();
    }
}

impl Drop for Perfline {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
