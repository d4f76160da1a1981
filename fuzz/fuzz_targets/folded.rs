// SPDX-License-Identifier: GPL-3.0-or-later
//! The folded-stacks parser never panics, whatever the bytes, and what it takes keeps its
//! bounds.
#![no_main]

use libfuzzer_sys::fuzz_target;
use perfline_server::ingest::folded::{detect, parse, MAX_DEPTH, MAX_STACKS};
use perfline_server::ingest::{parse_file, Format, UploadMeta};

fuzz_target!(|data: &[u8]| {
    let mut meta = UploadMeta::default();
    meta.set("machine", "fuzz").unwrap();
    meta.set("kernel", "6.1.0").unwrap();
    let _ = parse_file(data, Some(Format::Folded), &meta);
    let text = String::from_utf8_lossy(data);
    let _ = detect(&text);
    if let Ok(f) = parse(&text) {
        assert!(f.stacks.len() <= MAX_STACKS);
        assert!(f.stacks.iter().all(|(s, _)| !s.is_empty() && s.len() <= MAX_DEPTH));
    }
});
