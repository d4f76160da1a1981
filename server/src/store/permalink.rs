// SPDX-License-Identifier: GPL-3.0-or-later
//! Permalinks: a comparison's spec (its question and the exact runs that answered it) under a
//! short unguessable id, found again by the digest of the spec, so that asking the same
//! question over the same runs never writes twice.
//!
//! Those an anonymous reader made are bounded: `permalink.anonymous` is 0 for a permalink kept
//! for ever, else the order anonymous ones were made in; making one beyond the cap removes the
//! oldest anonymous ones in the same transaction. A token holder asking for an anonymous one
//! keeps it for ever.

use super::sql::{query, query_as, sql};
use super::{Store, StoreResult};

/// Who a permalink is made for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// For ever: a token holder's (or open mode's).
    Always,
    /// One of at most this many anonymous ones; the oldest go first.
    Newest(usize),
}

/// What [`Store::ensure_permalinks`] did.
#[derive(Debug, Default)]
pub struct Ensured {
    /// Each spec's permalink, in the order asked.
    pub ids: Vec<String>,
    /// The anonymous permalinks removed to stay within the cap.
    pub removed: Vec<String>,
}

impl Store {
    /// The permalink with this digest, if it exists, and whether it is kept for ever (a read,
    /// so that viewing a comparison twice never touches the writer).
    pub async fn permalink_by_digest(&self, digest: &str) -> StoreResult<Option<(String, bool)>> {
        Ok(
            query_as::<(String, i64)>(sql!("SELECT id, anonymous FROM permalink WHERE digest = ?"))
                .bind(digest)
                .fetch_optional(&self.reader)
                .await?
                .map(|(id, anonymous)| (id, anonymous == 0)),
        )
    }

    /// The stored spec of permalink `id`.
    pub async fn permalink(&self, id: &str) -> StoreResult<Option<String>> {
        Ok(
            query_as::<(String,)>(sql!("SELECT spec FROM permalink WHERE id = ?"))
                .bind(id)
                .fetch_optional(&self.reader)
                .await?
                .map(|(spec,)| spec),
        )
    }

    /// The ids of the permalinks with these `(digest, spec, new_id)`, in one transaction: each
    /// digest's stored id, or its new one; and the ids of the anonymous ones removed to make
    /// room. `Keep::Always` makes them (and any anonymous one found) kept for ever;
    /// `Keep::Newest(cap)` makes new ones anonymous and then removes the oldest anonymous ones
    /// beyond `cap`, never one of this call's (so one call's own, at most a whole-tree report's
    /// sections, may stand over the cap until the next).
    pub async fn ensure_permalinks(
        &self,
        wanted: &[(String, String, String)],
        keep: Keep,
    ) -> StoreResult<Ensured> {
        let mut ensured = Ensured::default();
        if wanted.is_empty() {
            return Ok(ensured);
        }
        let mut tx = self.writer.begin_write().await?;
        let out = &mut ensured.ids;
        out.reserve(wanted.len());
        // The number of this call's first new anonymous permalink, and of its next.
        let mut numbers: Option<(i64, i64)> = None;
        for (digest, spec, new_id) in wanted {
            if let Some((id, anonymous)) = query_as::<(String, i64)>(sql!(
                "SELECT id, anonymous FROM permalink WHERE digest = ?"
            ))
            .bind(digest)
            .fetch_optional(&mut tx)
            .await?
            {
                if anonymous > 0 && keep == Keep::Always {
                    query(sql!("UPDATE permalink SET anonymous = 0 WHERE id = ?"))
                        .bind(&id)
                        .execute(&mut tx)
                        .await?;
                }
                out.push(id);
                continue;
            }
            let anonymous = match keep {
                Keep::Always => 0,
                Keep::Newest(_) => {
                    let (first, n) = match numbers {
                        Some(numbers) => numbers,
                        None => {
                            let (max,): (Option<i64>,) = query_as(sql!(
                                "SELECT MAX(anonymous) FROM permalink WHERE anonymous > 0"
                            ))
                            .fetch_one(&mut tx)
                            .await?;
                            let first = max.unwrap_or(0) + 1;
                            (first, first)
                        }
                    };
                    numbers = Some((first, n + 1));
                    n
                }
            };
            query(sql!(
                "INSERT INTO permalink (id, spec, digest, anonymous) VALUES (?, ?, ?, ?)"
            ))
            .bind(new_id)
            .bind(spec)
            .bind(digest)
            .bind(anonymous)
            .execute(&mut tx)
            .await?;
            out.push(new_id.clone());
        }
        if let (Keep::Newest(cap), Some((first, _))) = (keep, numbers) {
            // This call's own are numbered from `first`: only older ones are removed.
            let (kept,): (i64,) =
                query_as(sql!("SELECT COUNT(*) FROM permalink WHERE anonymous > 0"))
                    .fetch_one(&mut tx)
                    .await?;
            let over = kept - cap as i64;
            if over > 0 {
                let removed: Vec<(String,)> = query_as(sql!(
                    "DELETE FROM permalink WHERE id IN (SELECT id FROM permalink \
                     WHERE anonymous > 0 AND anonymous < ? ORDER BY anonymous LIMIT ?) RETURNING id"
                ))
                .bind(first)
                .bind(over)
                .fetch_all(&mut tx)
                .await?;
                ensured.removed = removed.into_iter().map(|(id,)| id).collect();
            }
        }
        tx.commit().await?;
        Ok(ensured)
    }

    /// [`Store::ensure_permalinks`] of one spec, kept for ever.
    pub async fn ensure_permalink(
        &self,
        digest: &str,
        spec: &str,
        new_id: &str,
    ) -> StoreResult<String> {
        let ensured = self
            .ensure_permalinks(
                &[(digest.to_owned(), spec.to_owned(), new_id.to_owned())],
                Keep::Always,
            )
            .await?;
        Ok(ensured
            .ids
            .into_iter()
            .next()
            .unwrap_or_else(|| new_id.to_owned()))
    }
}
