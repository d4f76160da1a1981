// SPDX-License-Identifier: GPL-3.0-or-later
//! The robot's report mails: decoding and parsing never panic, whatever the bytes (seeded with
//! the real mails of `tests/fixtures/lkp-mails`); and a section printed from its cells parses
//! back to the same cells.
#![no_main]

use libfuzzer_sys::fuzz_target;
use perfline_server::ingest::lkp_mail;

fuzz_target!(|data: &[u8]| {
    for raw in lkp_mail::split_mbox(data).into_iter().take(16) {
        let Ok(mail) = lkp_mail::decode(raw) else {
            continue;
        };
        let Ok(report) = lkp_mail::parse_report(&mail.body) else {
            continue;
        };
        for s in &report.sections {
            let text = format!(
                "we noticed a -1.0% regression of m due to commit:\ncommit: 0 (\"x\")\n\
                 testcase: t\ntest machine: m\n\n=====\n{}:\n  {}\n\n{}",
                s.axis_keys,
                s.axis_values,
                s.text()
            );
            let again = lkp_mail::parse_report(&text).expect("a printed section parses");
            assert_eq!(again.sections[0].text(), s.text());
        }
    }
});
