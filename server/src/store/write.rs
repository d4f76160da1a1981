//! Writing an upload: one transaction on the single writer connection.

use sqlx::{Sqlite, Transaction};

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
    /// A bisect mark and a commit time for every run, from the upload's fields.
    pub mark: Option<app::trend::Mark>,
    pub commit_time: Option<i64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inserted {
    Created(i64),
    /// The same bytes with the same metadata were uploaded before as this upload.
    Existing(i64),
}

impl Store {
    pub async fn insert_upload(&self, upload: &NewUpload) -> anyhow::Result<Inserted> {
        let mut tx = self.writer.begin().await?;
        if let Some((id,)) = sqlx::query_as::<_, (i64,)>("SELECT id FROM upload WHERE digest = ?")
            .bind(&upload.digest)
            .fetch_optional(&mut *tx)
            .await?
        {
            return Ok(Inserted::Existing(id));
        }
        let (upload_id,): (i64,) =
            sqlx::query_as("INSERT INTO upload (digest, metadata) VALUES (?, ?) RETURNING id")
                .bind(&upload.digest)
                .bind(&upload.metadata)
                .fetch_one(&mut *tx)
                .await?;
        for (idx, f) in upload.files.iter().enumerate() {
            sqlx::query("INSERT INTO upload_file (upload_id, idx, name, format, sha256, size, raw) VALUES (?, ?, ?, ?, ?, ?, ?)")
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
        for run in &upload.runs {
            insert_run(&mut tx, upload_id, run, upload).await?;
        }
        tx.commit().await?;
        self.wrote();
        Ok(Inserted::Created(upload_id))
    }
}

async fn id_of(
    tx: &mut Transaction<'_, Sqlite>,
    table: &'static str,
    column: &'static str,
    value: &str,
) -> anyhow::Result<i64> {
    // `table` and `column` are literals of this module, never user input.
    let sql = format!("INSERT INTO {table} ({column}) VALUES (?) ON CONFLICT ({column}) DO UPDATE SET {column} = excluded.{column} RETURNING id");
    let (id,): (i64,) = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(value)
        .fetch_one(&mut **tx)
        .await?;
    Ok(id)
}

async fn insert_run(
    tx: &mut Transaction<'_, Sqlite>,
    upload_id: i64,
    run: &ParsedRun,
    upload: &NewUpload,
) -> anyhow::Result<i64> {
    let machine_id = id_of(tx, "machine", "name", run.key.machine.as_str()).await?;
    let kernel_id = id_of(tx, "kernel", "version", run.key.kernel.as_str()).await?;
    let tags = serde_json::to_string(
        &run.tags
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect::<Vec<_>>(),
    )?;
    let facts = serde_json::to_string(&run.facts)?;
    let (run_id,): (i64,) = sqlx::query_as(
        "INSERT INTO run (upload_id, benchmark, machine_id, kernel_id, commit_sha, tags, facts, sample_count, mark, commit_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
    )
    .bind(upload_id)
    .bind(run.key.benchmark.as_str())
    .bind(machine_id)
    .bind(kernel_id)
    .bind(run.key.commit.as_ref().map(|c| c.as_str()))
    .bind(tags)
    .bind(facts)
    .bind(run.sample_count() as i64)
    .bind(upload.mark.map(app::trend::Mark::as_str))
    .bind(upload.commit_time)
    .fetch_one(&mut **tx)
    .await?;

    // One row per series, its samples packed (see `packed.rs`).
    for s in &run.series {
        sqlx::query("INSERT INTO series (run_id, metric, param, unit, direction, packed) VALUES (?, ?, ?, ?, ?, ?)")
            .bind(run_id)
            .bind(s.metric.as_str())
            .bind(&s.param)
            .bind(&s.unit)
            .bind(s.direction.as_str())
            .bind(super::packed::pack(&s.samples))
            .execute(&mut **tx)
            .await?;
    }
    Ok(run_id)
}

impl Store {
    /// The id of the permalink with this spec digest, creating it with `new_id` if there is none.
    pub async fn ensure_permalink(
        &self,
        digest: &str,
        spec: &str,
        new_id: &str,
    ) -> anyhow::Result<String> {
        let mut tx = self.writer.begin().await?;
        if let Some((id,)) =
            sqlx::query_as::<_, (String,)>("SELECT id FROM permalink WHERE digest = ?")
                .bind(digest)
                .fetch_optional(&mut *tx)
                .await?
        {
            return Ok(id);
        }
        sqlx::query("INSERT INTO permalink (id, spec, digest) VALUES (?, ?, ?)")
            .bind(new_id)
            .bind(spec)
            .bind(digest)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(new_id.to_owned())
    }
}
