// SPDX-License-Identifier: GPL-3.0-or-later
//! What the admin's console reads beyond the other files' queries: the audit trail searched,
//! and the series of the last days (for the alert rules' preview).

use super::sql::{query_as, sql_each, Builder};
use super::tokens::AuditEntry;
use super::{Store, StoreResult};

/// A search of the audit trail: parts of the actor, action and target, and days
/// (`YYYY-MM-DD`, inclusive), each `None` when not searched.
#[derive(Debug, Clone, Default)]
pub struct AuditFilter {
    pub actor: Option<String>,
    pub action: Option<String>,
    pub target: Option<String>,
    pub since: Option<String>,
    pub until: Option<String>,
}

impl AuditFilter {
    /// The filter of a search from the console or the API, once it checks; a blank field
    /// searches nothing.
    pub fn of(search: &app::console::AuditSearch) -> Result<AuditFilter, String> {
        search.check()?;
        let given = |v: &str| Some(v.trim().to_owned()).filter(|v| !v.is_empty());
        Ok(AuditFilter {
            actor: given(&search.actor),
            action: given(&search.action),
            target: given(&search.target),
            since: given(&search.since),
            until: given(&search.until),
        })
    }
}

/// `%part%` for `LIKE ... ESCAPE '\'`, the part's own `%`, `_` and `\` taken literally.
fn contains(part: &str) -> String {
    let mut p = String::with_capacity(part.len() + 2);
    p.push('%');
    for c in part.chars() {
        if matches!(c, '%' | '_' | '\\') {
            p.push('\\');
        }
        p.push(c);
    }
    p.push('%');
    p
}

impl Store {
    /// The audit lines matching `filter`, newest first, `limit` from `offset`, and how many
    /// match in all.
    pub async fn audit_search(
        &self,
        filter: &AuditFilter,
        limit: i64,
        offset: i64,
    ) -> StoreResult<(Vec<AuditEntry>, i64)> {
        let conditions = |q: &mut Builder<'_>| {
            for (column, part) in [
                ("actor", &filter.actor),
                ("action", &filter.action),
                ("target", &filter.target),
            ] {
                if let Some(part) = part {
                    q.push(" AND LOWER(")
                        .push(column)
                        .push(") LIKE ")
                        .push_bind(contains(&part.to_lowercase()))
                        .push(" ESCAPE '\\'");
                }
            }
            // Times are ISO-8601 text: the day is its first ten characters.
            if let Some(day) = &filter.since {
                q.push(" AND SUBSTR(at, 1, 10) >= ").push_bind(day.clone());
            }
            if let Some(day) = &filter.until {
                q.push(" AND SUBSTR(at, 1, 10) <= ").push_bind(day.clone());
            }
        };
        let mut q =
            Builder::new("SELECT id, at, actor, action, target, detail FROM audit WHERE 1 = 1");
        conditions(&mut q);
        q.push(" ORDER BY id DESC LIMIT ")
            .push_bind(limit)
            .push(" OFFSET ")
            .push_bind(offset);
        let rows: Vec<(i64, String, String, String, String, String)> =
            q.build_query_as().fetch_all(&self.reader).await?;
        let mut count = Builder::new("SELECT COUNT(*) FROM audit WHERE 1 = 1");
        conditions(&mut count);
        let (total,): (i64,) = count.build_query_as().fetch_one(&self.reader).await?;
        let entries = rows
            .into_iter()
            .map(|(id, at, actor, action, target, detail)| AuditEntry {
                id,
                at,
                actor,
                action,
                target,
                detail,
            })
            .collect();
        Ok((entries, total))
    }

    /// Every benchmark and machine with runs uploaded in the last `days` days, with the
    /// first such run's id (ids grow with time: the runs from it on are the window's), in
    /// byte order.
    pub async fn recent_series_groups(&self, days: u32) -> StoreResult<Vec<(String, String, i64)>> {
        let mut groups: Vec<(String, String, i64)> = query_as(sql_each!(
            sqlite: "SELECT r.benchmark, m.name, MIN(r.id) FROM run r \
                     JOIN machine m ON m.id = r.machine_id \
                     WHERE r.created_at >= strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-' || ? || ' days') \
                     GROUP BY r.benchmark, m.name",
            postgres: "SELECT r.benchmark, m.name, MIN(r.id) FROM run r \
                       JOIN machine m ON m.id = r.machine_id \
                       WHERE r.created_at >= to_char((now() - make_interval(days => CAST(? AS INTEGER))) \
                       AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') \
                       GROUP BY r.benchmark, m.name",
        ))
        .bind(days)
        .fetch_all(&self.reader)
        .await?;
        groups.sort();
        Ok(groups)
    }

    /// Notifications waiting in the outbox (neither delivered nor given up).
    pub async fn outbox_waiting(&self) -> StoreResult<i64> {
        Ok(self.queue_lengths().await?.2)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testdb::TestDb;
    use super::*;

    #[test]
    fn like_patterns_take_wildcards_literally() {
        assert_eq!(contains("token.create"), "%token.create%");
        assert_eq!(contains("50%_a\\b"), "%50\\%\\_a\\\\b%");
    }

    crate::store::on_both_engines!(the_audit_trail_is_searched_by_part_and_day);

    async fn the_audit_trail_is_searched_by_part_and_day(db: &TestDb) {
        let store = db.open().await;
        for (actor, action, target) in [
            ("lead", "token.create", "robot-1"),
            ("lead", "token.revoke", "robot-1"),
            ("robot-1", "upload", "upload 1"),
            ("Lead", "alert_rules.replace", "2 rules"),
            ("x", "upload", "100%"),
        ] {
            store.audit(actor, action, target, "").await.unwrap();
        }
        let search = |f: AuditFilter, limit: i64, offset: i64| {
            let store = store.clone();
            async move { store.audit_search(&f, limit, offset).await.unwrap() }
        };
        let (all, total) = search(AuditFilter::default(), 2, 0).await;
        assert_eq!(total, 5);
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].target, "100%", "newest first");
        let (lead, total) = search(
            AuditFilter {
                actor: Some("LEAD".into()),
                ..Default::default()
            },
            10,
            0,
        )
        .await;
        assert_eq!(total, 3, "case does not matter: {lead:?}");
        let (tokens, total) = search(
            AuditFilter {
                action: Some("token.".into()),
                target: Some("robot".into()),
                ..Default::default()
            },
            10,
            1,
        )
        .await;
        assert_eq!(total, 2);
        assert_eq!(tokens.len(), 1);
        assert_eq!(tokens[0].action, "token.create", "the second page");
        let (_, total) = search(
            AuditFilter {
                target: Some("0%".into()),
                ..Default::default()
            },
            10,
            0,
        )
        .await;
        assert_eq!(total, 1, "a % searched is a %");
        let today = all[0].at.get(..10).unwrap().to_owned();
        let (_, total) = search(
            AuditFilter {
                since: Some(today.clone()),
                until: Some(today),
                ..Default::default()
            },
            10,
            0,
        )
        .await;
        assert_eq!(total, 5);
        let (_, total) = search(
            AuditFilter {
                until: Some("2000-01-01".into()),
                ..Default::default()
            },
            10,
            0,
        )
        .await;
        assert_eq!(total, 0);
    }
}
