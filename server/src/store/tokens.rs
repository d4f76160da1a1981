//! API tokens (only their SHA-256) and the audit trail.

use super::sql::{query, query_as, Row, Tx};
use super::{Store, StoreResult};

/// A stored token, without the token itself.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TokenInfo {
    pub id: i64,
    pub name: String,
    pub scopes: String,
    pub created_at: String,
    pub expires_at: Option<String>,
    pub last_used_at: Option<String>,
    pub revoked_at: Option<String>,
}

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

const TOKEN_COLUMNS: &str =
    "SELECT id, name, scopes, created_at, expires_at, last_used_at, revoked_at FROM api_token";

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
        let id: Option<(i64,)> = query_as(
            "INSERT INTO api_token (name, hash, scopes, expires_at) VALUES (?, ?, ?, \
             CASE WHEN ? IS NULL THEN NULL ELSE {now_s_plus_days} END) \
             ON CONFLICT (name) DO NOTHING RETURNING id",
        )
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
        let rows = query(format!("{TOKEN_COLUMNS} ORDER BY id"))
            .fetch_all(&self.reader)
            .await?;
        Ok(rows.iter().map(token_info).collect())
    }

    /// Revokes the token named `name_or_id` (a name, or an id); false if there is none.
    pub async fn revoke_token(&self, name_or_id: &str, actor: &str) -> StoreResult<bool> {
        let mut tx = self.writer.begin_write().await?;
        let id = name_or_id.parse::<i64>().ok();
        let revoked: Option<(String,)> = query_as(
            "UPDATE api_token SET revoked_at = {now_s} \
             WHERE (name = ? OR id = ?) AND revoked_at IS NULL RETURNING name",
        )
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
        let row = query(format!(
            "{TOKEN_COLUMNS} WHERE hash = ? AND revoked_at IS NULL \
             AND (expires_at IS NULL OR expires_at > {{now_s}})"
        ))
        .bind(hash)
        .fetch_optional(&self.reader)
        .await?;
        Ok(row.as_ref().map(token_info))
    }

    /// Records that token `id` was used now.
    pub async fn touch_token(&self, id: i64) -> StoreResult<()> {
        query("UPDATE api_token SET last_used_at = {now_s} WHERE id = ?")
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
            "SELECT id, at, actor, action, target, detail FROM audit ORDER BY id DESC LIMIT ? OFFSET ?",
        )
        .bind(limit)
        .bind(offset)
        .fetch_all(&self.reader)
        .await?;
        let (total,): (i64,) = query_as("SELECT COUNT(*) FROM audit")
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

impl Store {
    /// Starts a browser session for token `token_id`, valid `days`; `hash` is the SHA-256 of
    /// the cookie's value.
    pub async fn create_session(&self, hash: &str, token_id: i64, days: u32) -> StoreResult<()> {
        query(
            "INSERT INTO session (hash, token_id, expires_at) \
             VALUES (?, ?, {now_s_plus_days})",
        )
        .bind(hash)
        .bind(token_id)
        .bind(days)
        .execute(&self.writer)
        .await?;
        Ok(())
    }

    /// The live token behind a live session.
    pub async fn session_token(&self, hash: &str) -> StoreResult<Option<TokenInfo>> {
        let row = query(format!(
            "{TOKEN_COLUMNS} WHERE id = (SELECT token_id FROM session WHERE hash = ? \
             AND expires_at > {{now_s}}) AND revoked_at IS NULL \
             AND (expires_at IS NULL OR expires_at > {{now_s}})"
        ))
        .bind(hash)
        .fetch_optional(&self.reader)
        .await?;
        Ok(row.as_ref().map(token_info))
    }

    /// Ends a session (signing out).
    pub async fn end_session(&self, hash: &str) -> StoreResult<()> {
        query("DELETE FROM session WHERE hash = ?")
            .bind(hash)
            .execute(&self.writer)
            .await?;
        Ok(())
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
    query("INSERT INTO audit (actor, action, target, detail) VALUES (?, ?, ?, ?)")
        .bind(actor)
        .bind(action)
        .bind(target)
        .bind(detail)
        .execute(&mut *conn)
        .await?;
    Ok(())
}
