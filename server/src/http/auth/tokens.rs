// SPDX-License-Identifier: GPL-3.0-or-later
//! API tokens: how one is made (`perfline_` and 43 base62 characters, 256 random bits), that
//! only its SHA-256 is stored, and the scopes it carries.

use rand::distr::{Alphanumeric, SampleString};
use sha2::{Digest, Sha256};

/// The prefix that makes a Perfline token recognisable (secret scanners, logs).
pub const TOKEN_PREFIX: &str = "perfline_";

pub use app::scope::Scope;

/// A set of scopes, as stored (`upload,mark`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Scopes(Vec<Scope>);

impl Scopes {
    /// Parses `upload,mark`; refuses unknown names and an empty list.
    pub fn parse(raw: &str) -> Result<Scopes, String> {
        let mut scopes = Vec::new();
        for part in raw.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let scope = Scope::parse(part).ok_or_else(|| {
                format!("unknown scope '{part}'; the scopes are read, upload, mark, admin")
            })?;
            if !scopes.contains(&scope) {
                scopes.push(scope);
            }
        }
        if scopes.is_empty() {
            return Err("give at least one scope: read, upload, mark or admin".into());
        }
        scopes.sort();
        Ok(Scopes(scopes))
    }

    /// Whether these scopes allow what `needed` allows: `admin` allows everything, and any
    /// scope allows reading.
    pub fn allow(&self, needed: Scope) -> bool {
        self.0.contains(&Scope::Admin) || self.0.contains(&needed) || needed == Scope::Read
    }
}

impl std::fmt::Display for Scopes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.0.iter().map(|s| s.as_str()).collect();
        f.write_str(&names.join(","))
    }
}

/// A new token: the prefix and 43 base62 characters (~256 bits from the OS's generator).
pub fn new_token() -> String {
    format!(
        "{TOKEN_PREFIX}{}",
        Alphanumeric.sample_string(&mut rand::rng(), 43)
    )
}

/// What is stored of a token.
pub fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// The live token `token` is (not revoked, not expired), if any.
pub async fn find_token(
    store: &crate::store::Store,
    token: &str,
) -> crate::store::StoreResult<Option<crate::store::TokenInfo>> {
    if !token.starts_with(TOKEN_PREFIX) {
        return Ok(None);
    }
    store.token_by_hash(&token_hash(token)).await
}

/// Makes a token named `name` with `scopes` and stores its hash (the audit trail says `actor`
/// did): its id and the token, to show once; `None` if the name is taken.
pub async fn issue_token(
    store: &crate::store::Store,
    name: &str,
    scopes: &Scopes,
    expires_days: Option<u32>,
    actor: &str,
) -> crate::store::StoreResult<Option<(i64, String)>> {
    let token = new_token();
    let id = store
        .create_token(
            name,
            &token_hash(&token),
            &scopes.to_string(),
            expires_days,
            actor,
        )
        .await?;
    Ok(id.map(|id| (id, token)))
}
