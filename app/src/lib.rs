// SPDX-License-Identifier: GPL-3.0-or-later
//! Perfline's user interface and the types it shares with the server.
//!
//! Compiled twice: with `ssr` into the server (rendering HTML), with `hydrate` into the WASM
//! frontend. The pages are islands: the server renders every page whole, and only the
//! `#[island]` components (forms, keys, buttons) hydrate in the browser, with their props
//! serialised into the HTML. So the WASM carries only the interactive parts, and a page ships no
//! data for what merely displays. Server-only code stays behind `#[cfg(feature = "ssr")]`; the
//! domain types and their arithmetic build without Leptos (no feature: what the parsers and
//! their fuzz targets need), the pages and server functions need `ui` (on with either side).

// The trend page's view types nest deeper than the default limit in the WASM build.
#![recursion_limit = "256"]

pub mod alerts;
#[cfg(feature = "ui")]
pub mod api;
pub mod axis;
pub mod bisection;
pub mod chart;
pub mod compare;
pub mod compare_text;
pub mod console;
#[cfg(feature = "ui")]
pub mod error;
pub mod facts;
pub mod kernel;
pub mod label;
pub mod lkp_view;
pub mod mmtests;
pub mod noise;
#[cfg(feature = "ui")]
mod pages;
pub mod profile;
// The robot's report mails (issue 56).
pub mod reports;
#[cfg(feature = "ui")]
pub use pages::PageStatus;
#[cfg(feature = "ssr")]
pub use pages::{tree_html, tree_title};
pub mod resultdir;
#[cfg(feature = "ui")]
mod root;
#[cfg(feature = "ui")]
pub mod scope;
pub mod shell;
pub mod text;
pub mod tree;
pub mod trend;
#[cfg(feature = "ssr")]
pub mod trend_page;
pub mod types;
pub mod url;
#[cfg(feature = "ui")]
pub use root::{shell, App};

/// Hydrates the islands on the page; the frontend's entry point calls it (which also links
/// this crate's islands into the WASM).
#[cfg(feature = "hydrate")]
pub fn hydrate_islands() {
    leptos::mount::hydrate_islands();
}

/// Where the header's theme switch remembers the choice (`dark` or `light`; none: the system's).
pub const THEME_KEY: &str = "perfline-theme";
