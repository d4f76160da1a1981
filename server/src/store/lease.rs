// SPDX-License-Identifier: GPL-3.0-or-later
//! Leases on background tasks that must run in one process at a time across the servers that
//! share a database (`worker_lease`).

use std::time::Duration;

use super::sql::{query, query_as, sql};
use super::{Store, StoreResult};

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

impl Store {
    /// Takes or renews the lease `name` for `holder` for `ttl`: granted when nobody holds it,
    /// when `holder` does, or when its holder let it lapse. Whether `holder` holds it now.
    pub async fn take_lease(&self, name: &str, holder: &str, ttl: Duration) -> StoreResult<bool> {
        let now = now_ms();
        let until = now.saturating_add(i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX));
        let mut tx = self.writer.begin_write().await?;
        query(
            sql!("INSERT INTO worker_lease (name, holder, expires_at) VALUES (?, ?, ?) \
             ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at \
             WHERE worker_lease.holder = excluded.holder OR worker_lease.expires_at < ?"),
        )
        .bind(name)
        .bind(holder)
        .bind(until)
        .bind(now)
        .execute(&mut tx)
        .await?;
        let (held_by,): (String,) =
            query_as(sql!("SELECT holder FROM worker_lease WHERE name = ?"))
                .bind(name)
                .fetch_one(&mut tx)
                .await?;
        tx.commit().await?;
        Ok(held_by == holder)
    }

    /// Gives up every lease `holder` holds (at shutdown: another server takes over at once).
    pub async fn release_leases(&self, holder: &str) -> StoreResult<()> {
        query(sql!("DELETE FROM worker_lease WHERE holder = ?"))
            .bind(holder)
            .execute(&self.writer)
            .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::store::on_both_engines!(one_holder_at_a_time);

    /// One holder at a time; the holder renews; a lapsed lease is taken over; a released one
    /// is free at once.
    async fn one_holder_at_a_time(db: &crate::store::testdb::TestDb) {
        let (a, b) = (db.open().await, db.open().await);
        let ttl = Duration::from_millis(300);
        assert!(a.take_lease("detector", "a", ttl).await.unwrap());
        assert!(!b.take_lease("detector", "b", ttl).await.unwrap());
        assert!(
            b.take_lease("deliverer", "b", ttl).await.unwrap(),
            "another task's lease"
        );
        assert!(a.take_lease("detector", "a", ttl).await.unwrap(), "renewed");
        tokio::time::sleep(Duration::from_millis(400)).await;
        assert!(
            b.take_lease("detector", "b", ttl).await.unwrap(),
            "lapsed, taken over"
        );
        assert!(!a.take_lease("detector", "a", ttl).await.unwrap());
        b.release_leases("b").await.unwrap();
        assert!(
            a.take_lease("detector", "a", ttl).await.unwrap(),
            "released, free"
        );
        assert!(a.take_lease("deliverer", "a", ttl).await.unwrap());
    }
}
