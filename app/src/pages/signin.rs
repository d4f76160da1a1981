// SPDX-License-Identifier: GPL-3.0-or-later
//! Signing in with a token (token mode), and who is signed in, for the header.

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use crate::api::get_whoami;

/// `/signin`: a token in, a session cookie out (the form posts to `/api/v1/session`).
#[component]
pub fn SignInPage() -> impl IntoView {
    let query = use_query_map();
    let failed = move || query.read().get("failed").is_some();
    let next = move || query.read().get("next").unwrap_or_else(|| "/".to_owned());
    view! {
        <h1>"Sign in"</h1>
        <p>"Sign in with a Perfline token to upload and mark commits from these pages. "
           "An administrator makes one with " <code>"perfline token create --name YOU --scope upload,mark"</code> "."</p>
        <Show when=failed>
            <p class="error" id="signin-error">"That token is unknown, revoked or expired."</p>
        </Show>
        <form id="signin-form" method="post" action="/api/v1/session" class="form">
            <label for="signin-token">"Token"</label>
            <input id="signin-token" name="token" type="password" autocomplete="off" required
                placeholder="perfline_..." maxlength="200" />
            <input type="hidden" name="next" prop:value=next value=next() />
            <div></div>
            <button type="submit" id="signin-submit">"Sign in"</button>
        </form>
    }
}

/// The header's account corner: who is signed in and a way out, or a way in; nothing when
/// anyone may write.
#[component]
pub fn Account() -> impl IntoView {
    let who = Resource::new(|| (), |_| get_whoami());
    view! {
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                match who.await {
                    Ok(w) => match w.name {
                        Some(name) => view! {
                            <span class="account">
                                {w.is_admin.then(|| view! { <a id="admin-link" href="/admin">"Admin"</a> })}
                                <span id="signed-in">"Signed in as " <strong>{name}</strong></span>
                                <form method="post" action="/api/v1/session/end" class="inline">
                                    <button type="submit" id="signout">"Sign out"</button>
                                </form>
                            </span>
                        }.into_any(),
                        None if w.token_mode => view! {
                            <span class="account"><a id="signin-link" href="/signin">"Sign in"</a></span>
                        }.into_any(),
                        // Open mode: anyone may administer.
                        None if w.is_admin => view! {
                            <span class="account"><a id="admin-link" href="/admin">"Admin"</a></span>
                        }.into_any(),
                        None => ().into_any(),
                    },
                    Err(_) => ().into_any(),
                }
            })}
        </Suspense>
    }
}
