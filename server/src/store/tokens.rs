// SPDX-License-Identifier: GPL-3.0-or-later
//! API tokens (only their SHA-256) and the audit trail.

use super::sql::{query, query_as, sql, sql_each, Row, Tx};
use super::{Store, StoreResult};

/// A stored token, without the token itself (the admin console's row as it is).
pub type TokenInfo = app::console::TokenRow;

/// One line of the audit trail.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct AuditEntry {
    pub id: i64,
    pub at: String,
    pub actor: String,
    pub action: String,
    pub target: String,
    pub detail: String,
}

/// The columns `token_info` reads.
macro_rules! token_columns {
    () => {
        "SELECT id, name, scopes, created_at, expires_at, last_used_at, revoked_at FROM api_token"
    };
}

fn token_info(r: &Row) -> TokenInfo {
    TokenInfo {
        id: r.get(0),
        name: r.get(1),
        scopes: r.get(2),
        created_at: r.get(3),
        expires_at: r.get(4),
        last_used_at: r.get(5),
        revoked_at: r.get(6),
    }
}

impl Store {
    /// Stores a token's hash under `name` (unique); `None` if the name is taken. Recorded in
    /// the audit trail in the same transaction.
    pub async fn create_token(
        &self,
        name: &str,
        hash: &str,
        scopes: &str,
        expires_days: Option<u32>,
        actor: &str,
    ) -> StoreResult<Option<i64>> {
        let mut tx = self.writer.begin_write().await?;
        let id: Option<(i64,)> = query_as(sql!(
            "INSERT INTO api_token (name, hash, scopes, expires_at) VALUES (?, ?, ?, \
             CASE WHEN ? IS NULL THEN NULL ELSE {now_s_plus_days} END) \
             ON CONFLICT (name) DO NOTHING RETURNING id"
        ))
        .bind(name)
        .bind(hash)
        .bind(scopes)
        .bind(expires_days)
        .bind(expires_days)
        .fetch_optional(&mut tx)
        .await?;
        if id.is_some() {
            audit_in(&mut tx, actor, "token.create", name, scopes).await?;
        }
        tx.commit().await?;
        Ok(id.map(|(id,)| id))
    }

    pub async fn list_tokens(&self) -> StoreResult<Vec<TokenInfo>> {
        let rows = query(sql!(token_columns!(), " ORDER BY id"))
            .fetch_all(&self.reader)
            .await?;
        Ok(rows.iter().map(token_info).collect())
    }

    /// Revokes the token named `name_or_id` (a name, or an id); false if there is none.
    pub async fn revoke_token(&self, name_or_id: &str, actor: &str) -> StoreResult<bool> {
        let mut tx = self.writer.begin_write().await?;
        let id = name_or_id.parse::<i64>().ok();
        let revoked: Option<(String,)> = query_as(sql!(
            "UPDATE api_token SET revoked_at = {now_s} \
             WHERE (name = ? OR id = ?) AND revoked_at IS NULL RETURNING name"
        ))
        .bind(name_or_id)
        .bind(id)
        .fetch_optional(&mut tx)
        .await?;
        if let Some((name,)) = &revoked {
            audit_in(&mut tx, actor, "token.revoke", name, "").await?;
        }
        tx.commit().await?;
        Ok(revoked.is_some())
    }

    /// The live token with this hash: not revoked, not expired.
    pub async fn token_by_hash(&self, hash: &str) -> StoreResult<Option<TokenInfo>> {
        let row = query(sql!(
            token_columns!(),
            " WHERE hash = ? AND revoked_at IS NULL \
             AND (expires_at IS NULL OR expires_at > {now_s})"
        ))
        .bind(hash)
        .fetch_optional(&self.reader)
        .await?;
        Ok(row.as_ref().map(token_info))
    }

    /// Records that token `id` was used now.
    pub async fn touch_token(&self, id: i64) -> StoreResult<()> {
        query(sql!(
            "UPDATE api_token SET last_used_at = {now_s} WHERE id = ?"
        ))
        .bind(id)
        .execute(&self.writer)
        .await?;
        Ok(())
    }

    /// Records a write in the audit trail (for writes that are not one transaction of ours:
    /// those record it inside their transaction).
    pub async fn audit(
        &self,
        actor: &str,
        action: &str,
        target: &str,
        detail: &str,
    ) -> StoreResult<()> {
        let mut tx = self.writer.begin_write().await?;
        audit_in(&mut tx, actor, action, target, detail).await?;
        tx.commit().await?;
        Ok(())
    }

    /// The audit trail, newest first.
    pub async fn audit_log(&self, limit: i64, offset: i64) -> StoreResult<(Vec<AuditEntry>, i64)> {
        let rows = query(
            sql!("SELECT id, at, actor, action, target, detail FROM audit ORDER BY id DESC LIMIT ? OFFSET ?"),
        )
        .bind(limit)
        .bind(offset)
        .fetch_all(&self.reader)
        .await?;
        let (total,): (i64,) = query_as(sql!("SELECT COUNT(*) FROM audit"))
            .fetch_one(&self.reader)
            .await?;
        let entries = rows
            .iter()
            .map(|r| AuditEntry {
                id: r.get(0),
                at: r.get(1),
                actor: r.get(2),
                action: r.get(3),
                target: r.get(4),
                detail: r.get(5),
            })
            .collect();
        Ok((entries, total))
    }
}

/// SQL for the time `$days` (an integer: a column, or `?`) before the time `$time` (a column,
/// or `'now'`) on engine `$engine`, as the schemas write times (ISO-8601 UTC to the second).
macro_rules! days_before {
    (sqlite, $time:expr, $days:expr) => {
        concat!(
            "strftime('%Y-%m-%dT%H:%M:%SZ', ",
            $time,
            ", '-' || (",
            $days,
            ") || ' days')"
        )
    };
    (postgres, "'now'", $days:expr) => {
        days_before!(postgres, "now()", $days)
    };
    (postgres, $time:expr, $days:expr) => {
        concat!(
            "to_char((CAST(",
            $time,
            " AS TIMESTAMPTZ) - make_interval(days => CAST(",
            $days,
            " AS INTEGER))) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
        )
    };
}

/// SQL for the time a session's use was last due to be recorded: a minute ago. A session's
/// `last_seen_at` is written at most once a minute (a write per request would put every
/// signed-in page view on the single writer).
macro_rules! touch_due_before {
    (sqlite) => {
        "strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-60 seconds')"
    };
    (postgres) => {
        "to_char((now() - make_interval(secs => 60)) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
    };
}

/// The statements about sessions, spelled for engine `sqlite` or `postgres`.
macro_rules! end_expired_sessions {
    ($e:ident) => {
        concat!(
            "DELETE FROM session WHERE expires_at <= {now_s} \
             OR COALESCE(last_seen_at, created_at) <= ",
            days_before!($e, "'now'", "idle_days"),
            " OR COALESCE(last_seen_at, created_at) <= ",
            days_before!($e, "'now'", "?"),
            " OR created_at <= ",
            days_before!($e, "'now'", "?")
        )
    };
}
macro_rules! session_token {
    ($e:ident) => {
        concat!(
            "SELECT t.id, t.name, t.scopes, t.created_at, t.expires_at, t.last_used_at, \
             t.revoked_at, CAST(CASE WHEN COALESCE(s.last_seen_at, s.created_at) <= ",
            touch_due_before!($e),
            " THEN 1 ELSE 0 END AS BIGINT) \
             FROM session s JOIN api_token t ON t.id = s.token_id \
             WHERE s.hash = ? AND s.expires_at > {now_s} \
             AND COALESCE(s.last_seen_at, s.created_at) > ",
            days_before!($e, "'now'", "s.idle_days"),
            " AND COALESCE(s.last_seen_at, s.created_at) > ",
            days_before!($e, "'now'", "?"),
            " AND s.created_at > ",
            days_before!($e, "'now'", "?"),
            " AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > {now_s})"
        )
    };
}
macro_rules! touch_session {
    ($e:ident) => {
        concat!(
            "UPDATE session SET last_seen_at = {now_s} WHERE hash = ? \
             AND (last_seen_at IS NULL OR last_seen_at <= ",
            touch_due_before!($e),
            ")"
        )
    };
}
macro_rules! backdate_session {
    ($e:ident) => {
        concat!(
            "UPDATE session SET created_at = ",
            days_before!($e, "created_at", "?"),
            ", expires_at = ",
            days_before!($e, "expires_at", "?"),
            ", last_seen_at = ",
            days_before!($e, "COALESCE(last_seen_at, created_at)", "?"),
            " WHERE hash = ?"
        )
    };
}

impl Store {
    /// Starts a browser session for token `token_id`: `hash` is the SHA-256 of the cookie's
    /// value; it ends when unused for `idle_days`, and `max_days` from now at the latest. In
    /// the same transaction, every session past its own limits or past these is deleted.
    pub async fn create_session(
        &self,
        hash: &str,
        token_id: i64,
        idle_days: u32,
        max_days: u32,
    ) -> StoreResult<()> {
        let mut tx = self.writer.begin_write().await?;
        self.end_expired_sessions_in(&mut tx, idle_days, max_days)
            .await?;
        query(sql!(
            "INSERT INTO session (hash, token_id, expires_at, last_seen_at, idle_days) \
             VALUES (?, ?, {now_s_plus_days}, {now_s}, ?)"
        ))
        .bind(hash)
        .bind(token_id)
        .bind(max_days)
        .bind(idle_days)
        .execute(&mut tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Deletes every session past its absolute or idle limit, or past `idle_days` unused or
    /// `max_days` from its start (the limits in force now); how many.
    pub async fn end_expired_sessions(&self, idle_days: u32, max_days: u32) -> StoreResult<u64> {
        let mut tx = self.writer.begin_write().await?;
        let n = self
            .end_expired_sessions_in(&mut tx, idle_days, max_days)
            .await?;
        tx.commit().await?;
        Ok(n)
    }

    async fn end_expired_sessions_in(
        &self,
        tx: &mut Tx,
        idle_days: u32,
        max_days: u32,
    ) -> StoreResult<u64> {
        let sql = sql_each!(
            sqlite: end_expired_sessions!(sqlite),
            postgres: end_expired_sessions!(postgres),
        );
        let done = query(sql)
            .bind(idle_days)
            .bind(max_days)
            .execute(&mut *tx)
            .await?;
        Ok(done.rows_affected())
    }

    /// The live token behind a live session: the session is neither past its absolute limit
    /// nor unused for longer than its idle limit, the token neither revoked nor expired. Its
    /// use is recorded (`last_seen_at`) when the last record is a minute old or more; that
    /// write changes no data version.
    ///
    /// `idle_days` and `max_days` are the limits configured now: a session made under longer
    /// ones ends by today's as well.
    pub async fn session_token(
        &self,
        hash: &str,
        idle_days: u32,
        max_days: u32,
    ) -> StoreResult<Option<TokenInfo>> {
        let sql = sql_each!(sqlite: session_token!(sqlite), postgres: session_token!(postgres));
        let Some(row) = query(sql)
            .bind(hash)
            .bind(idle_days)
            .bind(max_days)
            .fetch_optional(&self.reader)
            .await?
        else {
            return Ok(None);
        };
        let due: i64 = row.get(7);
        if due != 0 {
            // Best effort: a busy writer must not fail the request.
            if let Err(e) = self.touch_session(hash).await {
                tracing::debug!(error = %e, "could not record a session's last use");
            }
        }
        Ok(Some(token_info(&row)))
    }

    /// Records that the session with this hash was used now (unless a minute has not passed).
    async fn touch_session(&self, hash: &str) -> StoreResult<()> {
        let sql = sql_each!(sqlite: touch_session!(sqlite), postgres: touch_session!(postgres));
        query(sql).bind(hash).execute(&self.writer).await?;
        Ok(())
    }

    /// Ends a session (signing out).
    pub async fn end_session(&self, hash: &str) -> StoreResult<()> {
        query(sql!("DELETE FROM session WHERE hash = ?"))
            .bind(hash)
            .execute(&self.writer)
            .await?;
        Ok(())
    }

    /// For tests: moves the session with this hash into the past, its start (and so its
    /// absolute limit) by `started_days` and its last use by `seen_days`.
    #[doc(hidden)]
    pub async fn backdate_session(
        &self,
        hash: &str,
        started_days: u32,
        seen_days: u32,
    ) -> StoreResult<bool> {
        let sql = sql_each!(
            sqlite: backdate_session!(sqlite),
            postgres: backdate_session!(postgres),
        );
        let done = query(sql)
            .bind(started_days)
            .bind(started_days)
            .bind(seen_days)
            .bind(hash)
            .execute(&self.writer)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    /// For tests: the hashes of the stored sessions.
    #[doc(hidden)]
    pub async fn session_hashes(&self) -> StoreResult<Vec<String>> {
        let rows: Vec<(String,)> = query_as(sql!("SELECT hash FROM session ORDER BY id"))
            .fetch_all(&self.reader)
            .await?;
        Ok(rows.into_iter().map(|(h,)| h).collect())
    }
}

/// Writes one audit line on `conn` (inside the caller's transaction, when it has one).
pub(super) async fn audit_in(
    conn: &mut Tx,
    actor: &str,
    action: &str,
    target: &str,
    detail: &str,
) -> StoreResult<()> {
    query(sql!(
        "INSERT INTO audit (actor, action, target, detail) VALUES (?, ?, ?, ?)"
    ))
    .bind(actor)
    .bind(action)
    .bind(target)
    .bind(detail)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::sql::{query_as, sql};
    use super::super::testdb::TestDb;

    crate::store::on_both_engines!(sessions_end_when_idle_or_old_and_are_swept_at_sign_in);

    /// A session signs in until unused for its idle limit or past its absolute limit; its use
    /// is recorded without moving the data version; a new session deletes the expired ones.
    async fn sessions_end_when_idle_or_old_and_are_swept_at_sign_in(db: &TestDb) {
        let store = db.open().await;
        let id = store
            .create_token("robot", "token-hash", "upload", None, "test")
            .await
            .unwrap()
            .unwrap();
        let generation = store.generation().await.unwrap();
        let live = |hash: &'static str| {
            let store = store.clone();
            async move { store.session_token(hash, 7, 30).await.unwrap().is_some() }
        };
        store.create_session("idle", id, 7, 30).await.unwrap();
        assert!(live("idle").await);
        // Used a day ago and again now: its last use is now.
        assert!(store.backdate_session("idle", 2, 1).await.unwrap());
        assert!(live("idle").await);
        let (touched,): (i64,) = query_as(sql!(
            "SELECT COUNT(*) FROM session WHERE hash = 'idle' AND last_seen_at > created_at"
        ))
        .fetch_one(&store.reader)
        .await
        .unwrap();
        assert_eq!(touched, 1, "the use is recorded");
        assert!(store.backdate_session("idle", 0, 8).await.unwrap());
        assert!(!live("idle").await, "unused for 8 days");
        // Past its absolute limit, however fresh its use.
        store.create_session("old", id, 7, 30).await.unwrap();
        assert!(store.backdate_session("old", 29, 0).await.unwrap());
        assert!(live("old").await);
        assert!(store.backdate_session("old", 2, 0).await.unwrap());
        assert!(!live("old").await, "31 days old");
        // Each session keeps the idle limit it was made with.
        store.create_session("short", id, 1, 30).await.unwrap();
        store.create_session("long", id, 7, 30).await.unwrap();
        for hash in ["short", "long"] {
            assert!(store.backdate_session(hash, 2, 2).await.unwrap());
        }
        assert!(!live("short").await);
        assert!(live("long").await);
        // A new session sweeps the expired ones away, in the same transaction.
        store.create_session("new", id, 7, 30).await.unwrap();
        assert_eq!(store.session_hashes().await.unwrap(), ["long", "new"]);
        // Limits lowered since: what is past them goes too ("long" is two days old).
        assert_eq!(store.end_expired_sessions(7, 1).await.unwrap(), 1);
        assert_eq!(store.session_hashes().await.unwrap(), ["new"]);
        assert!(store.backdate_session("new", 0, 3).await.unwrap());
        assert_eq!(store.end_expired_sessions(7, 30).await.unwrap(), 0);
        assert_eq!(store.end_expired_sessions(2, 30).await.unwrap(), 1);
        assert!(store.session_hashes().await.unwrap().is_empty());
        // Sessions, their use and their end are no data: the version stays.
        assert_eq!(store.generation().await.unwrap(), generation);
    }
}
