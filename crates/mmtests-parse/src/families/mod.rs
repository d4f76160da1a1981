// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of mmtests (https://github.com/gormanm/mmtests) at 638401e07e70, modified (translated to Rust); see crates/mmtests-parse/PROVENANCE.md.
//! The parsers of mmtests' benchmark families, one function per shellpack, each a port of
//! its `parse-results` (see [`crate::seam`] for the seam). Grouped by how mmtests parses
//! them: `simple_*` (bash and awk over one log per thread count and iteration), `timed`
//! (GNU time reports, `time-parse-results`, and the older netperf and hackbench),
//! `legacy_*` (perl `extract-report.pl`), `awk` (awk programs over tool output).
//!
//! What the groups share lives beside them: `shell` (bash and coreutils, with pathname
//! expansion), `perl` (perl's numbers, `split`, `glob` and `open`), `time` (`extract-time`
//! and `time-parse-results`), `line_parse` (`parsers/line-parse-results`) and `budget` (work
//! caps); gawk's numbers and GNU `sort -k` are in the seam ([`crate::seam`]).

pub mod prelude {
    pub use crate::seam::*;
}

mod awk;
mod budget;
mod legacy_a;
mod legacy_b;
mod line_parse;
mod perl;
mod shell;
mod simple_a;
mod simple_b;
#[cfg(test)]
pub(crate) mod testkit;
mod time;
mod timed;

use prelude::Parser;

/// Every shellpack with a parser here, by name (a directory of `shellpack_src/src/`), with it.
pub const PARSERS: &[(&str, Parser)] = &[
    ("aim9", simple_a::aim9),
    ("apachebench", simple_a::apachebench),
    ("blogbench", simple_a::blogbench),
    ("coremark", simple_a::coremark),
    ("easywave", simple_a::easywave),
    ("ebizzy", simple_a::ebizzy),
    ("fsmark", simple_a::fsmark),
    ("libmicro", simple_a::libmicro),
    ("pedsort", simple_a::pedsort),
    ("perfpipe", simple_a::perfpipe),
    ("perfsyscall", simple_a::perfsyscall),
    ("sembench", simple_a::sembench),
    ("sqlite", simple_b::sqlite),
    ("sysbenchcpu", simple_b::sysbenchcpu),
    ("sysbenchmutex", simple_b::sysbenchmutex),
    ("xsbench", simple_b::xsbench),
    ("wis", simple_b::wis),
    ("stockfish", simple_b::stockfish),
    ("unixbenchd", simple_b::unixbenchd),
    ("stutterp", simple_b::stutterp),
    ("perffutexwake", simple_b::perffutexwake),
    ("stream", simple_b::stream),
    ("io_uring", simple_b::io_uring),
    ("autonumabench", timed::autonumabench),
    ("gitcheckout", timed::gitcheckout),
    ("gitsource", timed::gitsource),
    ("kernbench", timed::kernbench),
    ("kvmstart", timed::kvmstart),
    ("nas", timed::nas),
    ("poundsyscall", timed::poundsyscall),
    ("time_unmap", timed::time_unmap),
    ("trunc", timed::trunc),
    ("usemem", timed::usemem),
    ("xfsrepair", timed::xfsrepair),
    ("hackbench", timed::hackbench),
    ("netperf", timed::netperf),
    ("bonniepp", legacy_a::bonniepp),
    ("fio", legacy_a::fio),
    ("iperf3", legacy_a::iperf3),
    ("ltp", legacy_a::ltp),
    ("perfnuma", legacy_a::perfnuma),
    ("pgbench", legacy_a::pgbench),
    ("pistress", legacy_a::pistress),
    ("pmqtest", legacy_a::pmqtest),
    ("rtmigration", legacy_a::rtmigration),
    ("saladfork", legacy_a::saladfork),
    ("siege", legacy_b::siege),
    ("simoop", legacy_b::simoop),
    ("specjbb", legacy_b::specjbb),
    ("sstartup", legacy_b::sstartup),
    ("stressng", legacy_b::stressng),
    ("sysbench", legacy_b::sysbench),
    ("thpchallenge", legacy_b::thpchallenge),
    ("xfstests", legacy_b::xfstests),
    ("cyclictest", legacy_b::cyclictest),
    ("futexbench", legacy_b::futexbench),
    ("dbench", awk::dbench),
    ("tbench", awk::tbench),
    ("redis", awk::redis),
    ("redis-memtier", awk::redis_memtier),
    ("schbench", awk::schbench),
    ("specjbb2015", awk::specjbb2015),
    ("sysjitter", awk::sysjitter),
];

/// The parser of the shellpack `name` (a directory of `shellpack_src/src/`).
pub fn parser(name: &str) -> Option<Parser> {
    PARSERS.iter().find(|(n, _)| *n == name).map(|(_, p)| *p)
}
