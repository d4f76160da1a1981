// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of mmtests (https://github.com/gormanm/mmtests) at 638401e07e70, modified (translated to Rust); see crates/mmtests-parse/PROVENANCE.md.
//! mmtests' result parsers, ported: what each benchmark family's `parse-results` (and
//! `extract-report.pl`, `time-parse-results`, `line-parse-results`) prints for the logs of one
//! `<kernel>/iter-N/<benchmark>/logs/` directory, as pure Rust.
//!
//! - [`seam`]: the directory in ([`LogDir`]), mmtests' intermediate rows out ([`Line`]), the
//!   parser type ([`Parser`]), and the emulation of gawk's and Perl's numbers and GNU `sort -k`
//!   that the rows' text depends on.
//! - [`families`]: one parser per shellpack ([`families::parser`]), grouped by how mmtests
//!   parses them, with the shell, Perl and `extract-time` behaviour they share.
//!
//! Each parser is tested against what the real `parse-results` printed for the same logs
//! (`tests/fixtures/mmtests-families/`, `tests/fixtures/mmtests-coverage/`). Provenance: the
//! mmtests file each part follows is named in its module doc; `PROVENANCE.md` maps them.

// Parsers cut text where they found what they cut at, and never panic on any input (the fuzz
// target and the property tests): the workspace's `string_slice` lint is for the rest.
#![expect(
    clippy::string_slice,
    reason = "parsers cut where `find` found; the fuzzer and property tests keep them from panicking"
)]

pub mod families;
pub mod seam;

pub use seam::*;
