// SPDX-License-Identifier: GPL-3.0-or-later
//! Work handed to robots on leases (`POST /api/v1/work/{id}/claim`, `…/renew`,
//! `…/release`; a bisection's `next` takes runs the same way): a robot that died frees its
//! runs when its lease ends, one whose command failed gives them back at once, and the
//! request says who holds it, since when and what failed last. Robots seen are listed
//! (`GET /api/v1/robots`).

use app::alerts::{Lease, Robot, RobotList};

use super::{now_ms, ServiceError, Services};
use crate::store::StoredRequest;

/// The most runs one claim takes.
pub const MAX_CLAIM: u32 = 1000;

/// The most robots listed.
const MAX_ROBOTS: i64 = 500;

/// A robot unseen for this many leases is called silent.
const SILENT_AFTER_LEASES: i64 = 3;

impl Services {
    /// How long a lease lasts, in ms.
    pub fn lease_ms(&self) -> i64 {
        i64::try_from(self.config.lease_secs.saturating_mul(1000)).unwrap_or(i64::MAX)
    }

    fn lease_of(&self, request: i64, runs: u32, until: i64) -> Lease {
        Lease {
            request,
            runs,
            until,
            renew_every_ms: u64::try_from(self.lease_ms() / 3).unwrap_or(1).max(1),
        }
    }

    async fn pending_request(&self, id: i64) -> Result<StoredRequest, ServiceError> {
        self.store
            .work_request(id)
            .await?
            .ok_or_else(|| ServiceError::NotFound(format!("no work request {id}")))
    }

    /// Takes up to `want` runs of request `id` for `robot`.
    pub async fn claim_work(&self, id: i64, robot: &str, want: u32) -> Result<Lease, ServiceError> {
        let r = self.pending_request(id).await?;
        if r.state != "pending" {
            return Ok(self.lease_of(id, 0, 0));
        }
        let received = self.store.rerun_count(&r).await?;
        let taken = self
            .store
            .take_runs(
                &r,
                received,
                robot,
                want.min(MAX_CLAIM),
                now_ms(),
                self.lease_ms(),
            )
            .await?;
        Ok(self.lease_of(id, taken.runs, taken.until))
    }

    /// Renews `robot`'s lease on request `id`: `until` 0 when it no longer holds it (the
    /// request ended, or its lease ran out and another robot took the runs); the run it is
    /// doing still counts when uploaded.
    pub async fn renew_work(&self, id: i64, robot: &str) -> Result<Lease, ServiceError> {
        self.pending_request(id).await?;
        let until = self
            .store
            .renew_lease(id, robot, now_ms(), self.lease_ms())
            .await?;
        Ok(self.lease_of(id, 0, until.unwrap_or(0)))
    }

    /// `robot` gives back `runs` runs of request `id` after a failure for `reason`.
    pub async fn release_work(
        &self,
        id: i64,
        robot: &str,
        runs: u32,
        reason: &str,
    ) -> Result<(), ServiceError> {
        let r = self.pending_request(id).await?;
        let received = self.store.rerun_count(&r).await?;
        let held = self
            .store
            .release_runs(
                id,
                received,
                robot,
                runs.clamp(1, MAX_CLAIM),
                reason,
                now_ms(),
            )
            .await?;
        tracing::info!(request = id, robot, held, reason, "a robot gave back a run");
        Ok(())
    }

    /// Records that `robot` on `machine` asked for work.
    pub async fn robot_asked(&self, robot: &str, machine: &str) -> Result<(), ServiceError> {
        Ok(self.store.robot_asked(robot, machine, now_ms()).await?)
    }

    /// The robots seen, the most recent first; silent ones are unseen for three leases.
    pub async fn robot_list(&self) -> Result<RobotList, ServiceError> {
        let now = now_ms();
        let quiet = self.lease_ms().saturating_mul(SILENT_AFTER_LEASES);
        let robots = self
            .store
            .robots(MAX_ROBOTS)
            .await?
            .into_iter()
            .map(|r| Robot {
                silent: now - r.last_seen > quiet,
                ..r
            })
            .collect();
        Ok(RobotList { robots })
    }
}
