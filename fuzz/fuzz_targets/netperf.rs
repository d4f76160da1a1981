// SPDX-License-Identifier: GPL-3.0-or-later
//! The netperf parsers never panic, whatever the bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use perfline_server::ingest::{parse_file, Format, UploadMeta};

fuzz_target!(|data: &[u8]| {
    let mut meta = UploadMeta::default();
    meta.set("machine", "fuzz").unwrap();
    if !matches!([Some(Format::Netperf)][0], Some(Format::Mmtests)) {
        meta.set("kernel", "6.1.0").unwrap();
    }
    for format in [Some(Format::Netperf)] {
        let _ = parse_file(data, format, &meta);
    }
});
