// SPDX-License-Identifier: GPL-3.0-or-later
//! lkp-tests' comparison (the `lkp` crate) never panics, whatever the two matrices hold: the
//! input is a base and a head `matrix.json`, separated by a NUL byte, compared and printed as
//! `ncompare` would.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (base, head) = text.split_once('\0').unwrap_or((&text, "{}"));
    let (Ok(base), Ok(head)) = (lkp::Matrix::from_json(base), lkp::Matrix::from_json(head)) else {
        return;
    };
    let header = lkp::Header {
        axes: vec![("testcase".to_owned(), "fuzz".to_owned())],
        base_commit: "base".to_owned(),
        head_commit: "head".to_owned(),
    };
    let _ = lkp::compare_text(&header, &base, &head);
});
