// SPDX-License-Identifier: GPL-3.0-or-later
//! Runs and uploads as the API and the pages show one: a run with its series, an upload with
//! its runs.

use app::types::{RunDetail, UploadDetail};

use crate::services::{ServiceResult, Services};
use crate::store::RunFilter;

impl Services {
    /// Run `id` with its series; `None` when there is no such run.
    pub async fn run_detail(&self, id: i64) -> ServiceResult<Option<RunDetail>> {
        let Some(run) = self.store.run(id).await? else {
            return Ok(None);
        };
        let series = self.store.run_series(id).await?;
        Ok(Some(RunDetail { run, series }))
    }

    /// Upload `id` with its runs, oldest first; `None` when there is no such upload.
    pub async fn upload_detail(&self, id: i64) -> ServiceResult<Option<UploadDetail>> {
        let Some(upload) = self.store.upload(id).await? else {
            return Ok(None);
        };
        let filter = RunFilter {
            upload: Some(id),
            ..Default::default()
        };
        let (mut runs, _) = self.store.list_runs(&filter, i64::MAX, 0).await?;
        runs.reverse();
        Ok(Some(UploadDetail { upload, runs }))
    }
}
