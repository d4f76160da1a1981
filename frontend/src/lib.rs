// SPDX-License-Identifier: GPL-3.0-or-later
//! The WASM entry point: hydrates the islands (`#[island]` components of `app`) in the
//! server-rendered HTML; the rest of each page stays the server's HTML.

use wasm_bindgen::prelude::wasm_bindgen;

#[wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    app::hydrate_islands();
}
