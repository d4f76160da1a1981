// SPDX-License-Identifier: GPL-3.0-or-later
//! The history parsers (`git log`, `git log --name-only` with parents, `git bisect log`) never
//! panic, whatever the bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use perfline_server::ingest::history::{parse_bisect_log, parse_git_log_detailed};

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = parse_git_log_detailed(text);
        let _ = parse_bisect_log(text);
    }
});
