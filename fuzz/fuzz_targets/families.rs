//! mmtests' family parsers never panic, whatever their logs hold. The first byte picks the
//! family; the rest are its `logs/` members, separated by NUL bytes, each its name on the
//! first line and its text after (`scripts/fuzz` seeds it with every fixture directory).
#![no_main]

use libfuzzer_sys::fuzz_target;
use perfline_server::ingest::mmtests::{families, family::LogDir, Shellpack};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let all = Shellpack::all();
    let shellpack = &all[usize::from(pick) % all.len()];
    let Some(parser) = families::parser(shellpack.name) else {
        return;
    };
    let mut dir = LogDir::new(shellpack.name);
    for member in rest.split(|b| *b == 0).take(64) {
        let text = String::from_utf8_lossy(member);
        let (name, body) = text.split_once('\n').unwrap_or((&text, ""));
        if !name.is_empty() {
            dir.insert(name, body.to_owned());
        }
    }
    let _ = parser(&dir);
});
