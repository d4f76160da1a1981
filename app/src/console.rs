// SPDX-License-Identifier: GPL-3.0-or-later
//! The admin's console (`/admin`): what its pages and the server agree on. Tokens (never the
//! tokens themselves, but the one just made, once), the alert rules and a preview of what they
//! would have raised, the notification settings (never a secret), and the audit trail.

use serde::{Deserialize, Serialize};

/// A stored token as the console lists it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TokenRow {
    pub id: i64,
    pub name: String,
    pub scopes: String,
    pub created_at: String,
    pub expires_at: Option<String>,
    pub last_used_at: Option<String>,
    pub revoked_at: Option<String>,
}

/// A token to make: its name, scopes (`upload,mark`) and days to live (none: for ever).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct NewTokenForm {
    pub name: String,
    pub scopes: String,
    pub expires_days: Option<u32>,
}

/// A token just made: the secret is in this answer and nowhere else, ever.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct IssuedToken {
    pub id: i64,
    pub name: String,
    pub scopes: String,
    pub token: String,
}

/// One alert rule as the console's table shows it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RuleRow {
    pub benchmark: String,
    pub metric: String,
    /// Its settings in words (`min change 5 %, alpha 0.001`), the defaults for what it leaves
    /// unset.
    pub settings: String,
}

/// The alert rules: as a table, and as the JSON `PUT /api/v1/alert-rules` takes (the editor's
/// text), with the defaults in words.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RuleSet {
    pub rows: Vec<RuleRow>,
    pub json: String,
    pub defaults: String,
}

/// A step the rules would have raised an alert on.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PreviewAlert {
    pub benchmark: String,
    pub machine: String,
    /// `metric` or `metric.param`.
    pub series: String,
    /// The rule that governs the series (1-based), `None` for the defaults.
    pub rule: Option<usize>,
    /// The first commit (or kernel) at the new level.
    pub at: String,
    pub before: f64,
    pub after: f64,
    pub change_pct: f64,
    pub p_value: f64,
    pub regression: bool,
    /// The trend page of the series.
    pub trend: String,
}

/// What a set of rules would have raised over the last `days` days of stored series.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RulePreview {
    pub days: u32,
    /// Series with runs in the window.
    pub series_total: usize,
    /// Series examined (at most `cap`; those a rule names first).
    pub examined: usize,
    pub cap: usize,
    /// Series a rule says to ignore.
    pub ignored: usize,
    /// The preview stopped examining series at its time limit.
    #[serde(default)]
    pub out_of_time: bool,
    pub alerts: Vec<PreviewAlert>,
    /// Alerts found beyond those listed.
    pub alerts_left_out: usize,
}

/// The notification settings (server options), with every secret left out: webhook URLs show
/// their scheme and host only (the path of many is itself a key), the SMTP relay no user.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct NotifySettings {
    pub alerts_enabled: bool,
    pub webhooks: Vec<String>,
    pub webhook_signed: bool,
    pub internal_webhooks_allowed: bool,
    pub smtp: Option<String>,
    pub smtp_credentials: bool,
    pub mail_from: Option<String>,
    pub mail_to: Vec<String>,
    /// Notifications waiting in the outbox.
    pub outbox: i64,
}

/// A search of the audit trail: each field narrows it (text: a part of the field; dates
/// `YYYY-MM-DD`, inclusive); `offset` pages.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AuditSearch {
    #[serde(default)]
    pub actor: String,
    #[serde(default)]
    pub action: String,
    #[serde(default)]
    pub target: String,
    #[serde(default)]
    pub since: String,
    #[serde(default)]
    pub until: String,
    #[serde(default)]
    pub offset: i64,
}

/// Lines of the audit trail one page shows.
pub const AUDIT_PAGE: i64 = 50;

impl AuditSearch {
    /// Checks the search as received: texts of at most 200 characters, dates `YYYY-MM-DD`,
    /// an offset from 0.
    pub fn check(&self) -> Result<(), String> {
        for (field, v) in [
            ("actor", &self.actor),
            ("action", &self.action),
            ("target", &self.target),
        ] {
            if v.chars().count() > 200 || v.chars().any(char::is_control) {
                return Err(format!(
                    "{field}: at most 200 characters, no control characters"
                ));
            }
        }
        for (field, v) in [("since", &self.since), ("until", &self.until)] {
            if !v.is_empty() && !is_date(v) {
                return Err(format!("{field}: a date as YYYY-MM-DD"));
            }
        }
        if !(0..=100_000_000).contains(&self.offset) {
            return Err("offset: from 0".into());
        }
        Ok(())
    }

    /// The query string of this search at `offset` (for the page's links).
    pub fn query(&self, offset: i64) -> String {
        let mut parts = Vec::new();
        for (k, v) in [
            ("actor", &self.actor),
            ("action", &self.action),
            ("target", &self.target),
            ("since", &self.since),
            ("until", &self.until),
        ] {
            if !v.is_empty() {
                parts.push(format!("{k}={}", crate::url::encode(v)));
            }
        }
        if offset > 0 {
            parts.push(format!("offset={offset}"));
        }
        parts.join("&")
    }
}

/// `YYYY-MM-DD` with a plausible month and day.
fn is_date(v: &str) -> bool {
    let b = v.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let digits = |r: std::ops::Range<usize>| {
        b[r.clone()].iter().all(u8::is_ascii_digit)
            && std::str::from_utf8(&b[r])
                .ok()
                .and_then(|s| s.parse::<u32>().ok())
                .is_some()
    };
    if !(digits(0..4) && digits(5..7) && digits(8..10)) {
        return false;
    }
    let month: u32 = v.get(5..7).and_then(|s| s.parse().ok()).unwrap_or(0);
    let day: u32 = v.get(8..10).and_then(|s| s.parse().ok()).unwrap_or(0);
    (1..=12).contains(&month) && (1..=31).contains(&day)
}

/// One line of the audit trail.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AuditRow {
    pub id: i64,
    pub at: String,
    pub actor: String,
    pub action: String,
    pub target: String,
    pub detail: String,
}

/// A page of the audit trail: the lines, how many match, and where this page starts.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AuditPage {
    pub entries: Vec<AuditRow>,
    pub total: i64,
    pub offset: i64,
    pub limit: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn audit_searches_are_checked_and_linked() {
        let mut s = AuditSearch {
            actor: "lead".into(),
            since: "2026-12-01".into(),
            ..Default::default()
        };
        assert!(s.check().is_ok());
        assert_eq!(s.query(50), "actor=lead&since=2026-12-01&offset=50");
        s.until = "2026-13-01".into();
        assert!(s.check().unwrap_err().contains("until"));
        s.until = "yesterday".into();
        assert!(s.check().is_err());
        s.until = String::new();
        s.target = "x".repeat(201);
        assert!(s.check().unwrap_err().contains("target"));
        s.target = "a b&c".into();
        assert!(s.check().is_ok());
        assert!(s.query(0).contains("target=a%20b%26c"), "{}", s.query(0));
    }
}
