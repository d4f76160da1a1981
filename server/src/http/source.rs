// SPDX-License-Identifier: GPL-3.0-or-later
//! What Perfline is under and where its source is: the licence notice (`perfline --version`,
//! the pages' footer, `/api`) and the source archive the binary carries (`build.rs` packs it),
//! served at [`PATH`] and written out by `perfline source`.

use axum::http::header;
use axum::response::IntoResponse;

/// The source of this very binary (and of the WASM it serves), as a `.tar.gz`.
pub static ARCHIVE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/source.tar.gz"));

/// Where a server serves [`ARCHIVE`].
pub const PATH: &str = "/source.tar.gz";

/// The licence notice, one paragraph.
pub const NOTICE: &str = concat!(
    "Perfline ",
    env!("CARGO_PKG_VERSION"),
    " is free software: GPL-3.0-or-later (the file LICENSE), with parts ported from mmtests and \
     lkp-tests under GPL-2.0-or-later (LICENSES/PROVENANCE.md). It comes with no warranty. \
     Its source: `perfline source`, or /source.tar.gz on any Perfline server."
);

/// `GET /source.tar.gz`.
pub async fn serve() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "application/gzip"),
            (
                header::CONTENT_DISPOSITION,
                concat!(
                    "attachment; filename=\"perfline-",
                    env!("CARGO_PKG_VERSION"),
                    "-source.tar.gz\""
                ),
            ),
        ],
        ARCHIVE,
    )
}
