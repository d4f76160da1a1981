// SPDX-License-Identifier: GPL-3.0-or-later
//! The scope every route needs, read once from where each endpoint declares it.

use std::collections::HashMap;

use axum::http::Method;

use crate::http::error::ApiError;

use super::*;

/// The scope every route needs, read once from where each is declared: an API operation's
/// `security` in its `#[utoipa::path]` (the bearer requirement's scope; `security(())` for
/// what anyone may do), a server function's [`app::needs!`] beside its definition.
///
/// Deny by default: an API operation that declares no scope needs `admin`; a `/sfn/` name
/// without a declared scope is refused (404), and one called with another method than its
/// own is refused (405); any other non-GET request no route declares needs `admin`. Page and
/// file GETs are reads.
pub struct ScopeTable {
    /// `(method, route pattern as axum matches it)`: its scope.
    routes: HashMap<(Method, String), Scope>,
    /// `/sfn/name`: its method and scope.
    server_fns: HashMap<&'static str, (Method, Scope)>,
}

/// Every operation of the description with the scope it declares (`None`: it declares
/// nothing, and so needs `admin`): `(method, path, scope)`.
pub fn declared_scopes(doc: &utoipa::openapi::OpenApi) -> Vec<(Method, String, Option<Scope>)> {
    let json = serde_json::to_value(doc).unwrap_or_default();
    let mut out = Vec::new();
    let Some(paths) = json["paths"].as_object() else {
        return out;
    };
    for (path, item) in paths {
        let Some(item) = item.as_object() else {
            continue;
        };
        for (method, op) in item {
            let Ok(method) = Method::from_bytes(method.to_ascii_uppercase().as_bytes()) else {
                continue;
            };
            // The bearer (or session) requirement's scope; `security(())` alone (an empty
            // requirement, anyone) is a read; anything else unreadable needs `admin`.
            let scope = op["security"].as_array().map(|requirements| {
                let named = requirements.iter().find_map(|r| {
                    let scopes = r.get("bearer").or_else(|| r.get("session"))?;
                    scopes[0].as_str().map(Scope::parse)
                });
                match named {
                    Some(Some(scope)) => scope,
                    Some(None) => Scope::Admin,
                    None if requirements
                        .iter()
                        .any(|r| r.as_object().is_some_and(serde_json::Map::is_empty)) =>
                    {
                        Scope::Read
                    }
                    None => Scope::Admin,
                }
            });
            out.push((method, path.clone(), scope));
        }
    }
    out
}

/// Every registered server function with its method and declared scope (`None`: none).
pub fn server_fn_table() -> Vec<(&'static str, Method, Option<Scope>)> {
    leptos::server_fn::axum::server_fn_paths()
        .map(|(path, method)| (path, method, app::scope::server_fn_scope(path)))
        .collect()
}

impl ScopeTable {
    pub fn new(doc: &utoipa::openapi::OpenApi) -> ScopeTable {
        let routes = declared_scopes(doc)
            .into_iter()
            .map(|(method, path, scope)| ((method, path), scope.unwrap_or(Scope::Admin)))
            .collect();
        let server_fns = server_fn_table()
            .into_iter()
            .filter_map(|(path, method, scope)| Some((path, (method, scope?))))
            .collect();
        ScopeTable { routes, server_fns }
    }

    /// The scope `method path` needs; `matched` is the route pattern axum matched, if any.
    pub fn needed(
        &self,
        method: &Method,
        matched: Option<&str>,
        path: &str,
    ) -> Result<Scope, ApiError> {
        if path.starts_with("/sfn/") {
            let Some((own, scope)) = self.server_fns.get(path) else {
                return Err(ApiError::NotFound("no such server function".into()));
            };
            if own != method {
                return Err(ApiError::MethodNotAllowed(format!(
                    "this server function is called with {own}"
                )));
            }
            return Ok(*scope);
        }
        let get = if *method == Method::HEAD {
            &Method::GET
        } else {
            method
        };
        let key = (get.clone(), matched.unwrap_or(path).to_owned());
        match self.routes.get(&key) {
            Some(scope) => Ok(*scope),
            // Pages and the site's files are reads; an API path the description does not
            // declare is not (deny by default).
            None if is_safe(method) && !path.starts_with("/api/") => Ok(Scope::Read),
            None => Ok(Scope::Admin),
        }
    }
}
