// SPDX-License-Identifier: GPL-3.0-or-later
//! The root of the user interface: the HTML document around the app ([`shell`]), the router
//! ([`App`]) and the header's theme switch.

use leptos::prelude::*;
use leptos_meta::{provide_meta_context, MetaTags, Title};
use leptos_router::{
    components::{Route, Router, Routes},
    path, SsrMode,
};

/// Applies the remembered theme to `<html data-theme>` as the page loads.
const THEME_SCRIPT: &str = "try{var t=localStorage.getItem(\"perfline-theme\");if(t==\"dark\"||t==\"light\")document.documentElement.setAttribute(\"data-theme\",t)}catch(e){}";

/// The HTML document around the app, rendered on the server.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    // Inline scripts (hydration, streamed resources) run only with this response's nonce;
    // the server's header policy adds the rest (frames, objects, forms).
    let nonce = use_nonce();
    let csp = nonce.as_ref().map(|nonce| {
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
                // The remembered colour theme, before the first paint (no flash of the other).
                // A constant, never user text.
                <script nonce=nonce inner_html=THEME_SCRIPT></script>
                <HydrationScripts options islands=true />
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
                    <a href="/reports">"Reports"</a>
                    <a href="/calibration">"Noise"</a>
                </nav>
                <ThemeToggle />
                <crate::pages::Account />
            </header>
            // Every page is rendered whole before it is sent (`SsrMode::Async`): an island
            // streamed in after the islands hydrated would stay dead.
            <main>
                <Routes fallback=|| view! { <crate::pages::NotFound /> }>
                    <Route path=path!("/") ssr=SsrMode::Async view=crate::pages::Dashboard />
                    <Route path=path!("/upload") ssr=SsrMode::Async view=crate::pages::UploadPage />
                    <Route path=path!("/signin") ssr=SsrMode::Async view=crate::pages::SignInPage />
                    <Route path=path!("/uploads/:id") ssr=SsrMode::Async view=crate::pages::UploadView />
                    <Route path=path!("/runs/:id") ssr=SsrMode::Async view=crate::pages::RunView />
                    <Route path=path!("/compare") ssr=SsrMode::Async view=crate::pages::ComparePage />
                    <Route path=path!("/c/:id") ssr=SsrMode::Async view=crate::pages::PermalinkPage />
                    <Route path=path!("/trend") ssr=SsrMode::Async view=crate::pages::TrendPage />
                    <Route path=path!("/alerts") ssr=SsrMode::Async view=crate::pages::AlertsPage />
                    <Route path=path!("/calibration") ssr=SsrMode::Async view=crate::pages::CalibrationPage />
                    <Route path=path!("/bisections/:id") ssr=SsrMode::Async view=crate::pages::BisectionPage />
                    <Route path=path!("/admin") ssr=SsrMode::Async view=crate::pages::AdminPage />
                    <Route path=path!("/admin/rules") ssr=SsrMode::Async view=crate::pages::AdminRulesPage />
                    <Route path=path!("/admin/audit") ssr=SsrMode::Async view=crate::pages::AdminAuditPage />
                    <Route path=path!("/profile") ssr=SsrMode::Async view=crate::pages::ProfilePage />
                    <Route path=path!("/reports") ssr=SsrMode::Async view=crate::pages::ReportsPage />
                    <Route path=path!("/reports/:id") ssr=SsrMode::Async view=crate::pages::ReportPage />
                    <Route path=path!("/commits/:sha") ssr=SsrMode::Async view=crate::pages::CommitReportsPage />
                </Routes>
            </main>
            <footer class="licence">
                "Perfline is free software under the "
                <a href="/docs/licence">"GNU GPL, version 3 or later"</a>
                ". "
                <a href="/source.tar.gz" download="">"Its source"</a>
                "."
            </footer>
        </Router>
    }
}

/// The header's colour-theme switch: the system's choice, then dark, then light, remembered in
/// this browser. Without JavaScript the system's choice applies (`prefers-color-scheme`).
///
/// An island on every page, so it also says when the page's islands have hydrated: the islands
/// hydrate one after another in one task, and effects run after it.
#[island]
fn ThemeToggle() -> impl IntoView {
    let theme = RwSignal::new("auto".to_owned());
    Effect::new(move |_| {
        if let Some(body) = document().body() {
            let _ = body.set_attribute("data-hydrated", "true");
        }
        let root = document().document_element();
        if let Some(t) = root.and_then(|r| r.get_attribute("data-theme")) {
            theme.set(t);
        }
    });
    let switch = move |_| {
        let next = match theme.get_untracked().as_str() {
            "auto" => "dark",
            "dark" => "light",
            _ => "auto",
        };
        theme.set(next.to_owned());
        if let Some(root) = document().document_element() {
            let _ = if next == "auto" {
                root.remove_attribute("data-theme")
            } else {
                root.set_attribute("data-theme", next)
            };
        }
        // Only the browser build has the Storage API (and only it runs click handlers).
        #[cfg(feature = "hydrate")]
        if let Ok(Some(storage)) = window().local_storage() {
            let _ = if next == "auto" {
                storage.remove_item(crate::THEME_KEY)
            } else {
                storage.set_item(crate::THEME_KEY, next)
            };
        }
    };
    view! {
        <button
            type="button"
            class="theme-toggle"
            title="Colour theme: the system's, dark or light (remembered in this browser)"
            on:click=switch
        >
            {move || format!("Theme: {}", theme.get())}
        </button>
    }
}
