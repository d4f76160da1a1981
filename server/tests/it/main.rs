// SPDX-License-Identifier: GPL-3.0-or-later
//! All integration tests, in one binary: each starts the real server on port 0 against a fresh
//! SQLite file, or on the PostgreSQL pass a fresh PostgreSQL database (see `helpers::spawn_app`).

#![allow(
    clippy::string_slice,
    reason = "tests cut their own ASCII texts, and a panic here only fails the test"
)]

mod access;
mod alerts;
mod bad_input;
mod bisect;
mod browser;
mod cli;
mod client;
mod compare;
mod confirm;
mod console;
mod helpers;
mod hostile;
mod lab;
mod licence;
mod lkp_compare;
mod lkp_mail;
mod lkp_oracle;
mod mmtests_coverage;
mod mmtests_oracle;
mod noise;
mod openapi;
mod pages;
mod postgres;
mod process;
mod profile;
mod read_api;
mod realise;
mod realise_score;
mod reliability;
mod security;
mod tcpd;
mod tcpd_score;
mod trend;
mod upload;
// The whole tree's page (issue 54) and the tree of every family it is tested with.
mod big_tree;
mod tree_page;
