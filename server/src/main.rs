// SPDX-License-Identifier: GPL-3.0-or-later
//! `perfline`: serves Perfline, manages its database, or talks to a running server; see
//! `perfline_server::cli`.

#[tokio::main]
async fn main() -> std::process::ExitCode {
    perfline_server::cli::main().await
}
