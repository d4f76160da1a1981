// SPDX-License-Identifier: GPL-3.0-or-later
//! What a token may do, shared by the server (which enforces it) and the pages (which offer
//! only what the visitor may do), and the scope every server function declares beside its
//! definition ([`needs!`](crate::needs)).

/// What a token may do. `admin` may do everything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// Reads, on a `--private` instance (any token may read).
    Read,
    /// Uploads and commit histories.
    Upload,
    /// Run marks, bisect logs and alert triage.
    Mark,
    /// Everything, deletions and token management included.
    Admin,
}

impl Scope {
    pub const ALL: [Scope; 4] = [Scope::Read, Scope::Upload, Scope::Mark, Scope::Admin];

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Read => "read",
            Scope::Upload => "upload",
            Scope::Mark => "mark",
            Scope::Admin => "admin",
        }
    }

    pub fn parse(s: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|x| x.as_str() == s.trim())
    }
}

/// The scope a server function needs, registered where the function is defined by
/// [`needs!`](crate::needs). The server refuses a `/sfn/` name without one (deny by default),
/// and a test enumerates every registered function and fails on one without a scope.
#[cfg(feature = "ssr")]
#[derive(Debug)]
pub struct ServerFnScope {
    /// The function's path (`/sfn/mark_runs`), as `ServerFn::PATH` says.
    pub path: &'static str,
    pub scope: Scope,
}

#[cfg(feature = "ssr")]
inventory::collect!(ServerFnScope);

/// The scope a server function needs, by its path; `None` for a name without one.
#[cfg(feature = "ssr")]
pub fn server_fn_scope(path: &str) -> Option<Scope> {
    inventory::iter::<ServerFnScope>
        .into_iter()
        .find(|s| s.path == path)
        .map(|s| s.scope)
}

/// Every registered server function scope: `(path, scope)`.
#[cfg(feature = "ssr")]
pub fn server_fn_scopes() -> impl Iterator<Item = (&'static str, Scope)> {
    inventory::iter::<ServerFnScope>
        .into_iter()
        .map(|s| (s.path, s.scope))
}

/// `needs!(MarkRuns, Mark);` after `#[server] fn mark_runs`: the server function's struct
/// (the function's name in CamelCase) needs that scope.
#[macro_export]
macro_rules! needs {
    ($function:ty, $scope:ident) => {
        #[cfg(feature = "ssr")]
        inventory::submit! {
            $crate::scope::ServerFnScope {
                path: <$function as leptos::server_fn::ServerFn>::PATH,
                scope: $crate::scope::Scope::$scope,
            }
        }
    };
}
