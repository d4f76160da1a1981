//! Perfline's user interface and the types it shares with the server.
//!
//! Compiled twice: with `ssr` into the server (rendering HTML), with `hydrate` into the WASM
//! frontend (making that HTML live). Server-only code stays behind `#[cfg(feature = "ssr")]`.

// The trend page's view types nest deeper than the default limit in the WASM build.
#![recursion_limit = "256"]

pub mod alerts;
pub mod api;
pub mod chart;
pub mod compare;
pub mod facts;
pub mod kernel;
pub mod label;
pub mod mmtests;
mod pages;
pub mod trend;
pub mod types;

use leptos::prelude::*;
use leptos_meta::{provide_meta_context, MetaTags, Title};
use leptos_router::{
    components::{Route, Router, Routes},
    path,
};

/// The HTML document around the app, rendered on the server.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    // Inline scripts (hydration, streamed resources) run only with this response's nonce;
    // the server's header policy adds the rest (frames, objects, forms).
    let csp = use_nonce().map(|nonce| {
        format!("script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'; object-src 'none'; base-uri 'self'")
    });
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8" />
                {csp.map(|content| view! { <meta http-equiv="Content-Security-Policy" content=content /> })}
                <meta name="viewport" content="width=device-width, initial-scale=1" />
                <link rel="icon" href="data:," />
                <link rel="stylesheet" href=format!("/pkg/{}.css", options.output_name) />
                <HydrationScripts options />
                <MetaTags />
            </head>
            <body>
                <App />
            </body>
        </html>
    }
}

#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    // Effects run only in the browser: this attribute says the WASM has hydrated the page.
    Effect::new(move |_| {
        if let Some(body) = document().body() {
            let _ = body.set_attribute("data-hydrated", "true");
        }
    });
    view! {
        <Title text="Perfline" />
        <Router>
            <header class="top">
                <a class="brand" href="/">"Perfline"</a>
                <nav>
                    <a href="/">"Dashboard"</a>
                    <a href="/upload">"Upload"</a>
                    <a href="/compare">"Compare"</a>
                    <a href="/trend">"Trends"</a>
                    <a href="/alerts">"Alerts"</a>
                </nav>
                <pages::Account />
            </header>
            <main>
                <Routes fallback=|| view! { <pages::NotFound /> }>
                    <Route path=path!("/") view=pages::Dashboard />
                    <Route path=path!("/upload") view=pages::UploadPage />
                    <Route path=path!("/signin") view=pages::SignInPage />
                    <Route path=path!("/uploads/:id") view=pages::UploadView />
                    <Route path=path!("/runs/:id") view=pages::RunView />
                    <Route path=path!("/compare") view=pages::ComparePage />
                    <Route path=path!("/c/:id") view=pages::PermalinkPage />
                    <Route path=path!("/trend") view=pages::TrendPage />
                    <Route path=path!("/alerts") view=pages::AlertsPage />
                </Routes>
            </main>
        </Router>
    }
}
