// SPDX-License-Identifier: GPL-3.0-or-later
//! mmtests' family parsers (the `mmtests-parse` crate) never panic, whatever their logs hold.
//! The first byte picks the family; the rest are its `logs/` members, separated by NUL bytes,
//! each its name on the first line and its text after (`scripts/fuzz` seeds it with every
//! fixture directory).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mmtests_parse::{families::PARSERS, LogDir};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let (name, parser) = PARSERS[usize::from(pick) % PARSERS.len()];
    let mut dir = LogDir::new(name);
    for member in rest.split(|b| *b == 0).take(64) {
        let text = String::from_utf8_lossy(member);
        let (file, body) = text.split_once('\n').unwrap_or((&text, ""));
        if !file.is_empty() {
            dir.insert(file, body.to_owned());
        }
    }
    let _ = parser(&dir);
});
