// SPDX-License-Identifier: GPL-3.0-or-later
//! Folded stacks: what `perf script | stackcollapse-perf.pl` (or any stack collapser) prints,
//! one line per distinct stack, the frames from the outermost caller to the leaf joined by
//! `;`, then a space and the number of samples: `main;do_work;memcpy 123`.
//!
//! A folded file makes no run of its own: it is kept beside the runs of the upload it came in
//! (the raw bytes, as every file), and the profile page reads it back to draw a differential
//! flame graph. So it is checked here as it comes in, and parsed again (by the same function)
//! when it is drawn. Every input is bounded: the file's size, the distinct stacks, a stack's
//! depth and a frame's length; a line over a bound refuses the file, naming the line.

use std::collections::HashMap;

use super::IngestError;

/// The largest folded file taken (a busy machine's minute of `perf record -g` folds to a few
/// MiB).
pub const MAX_BYTES: usize = 16 << 20;
/// The most distinct stacks one file may hold.
pub const MAX_STACKS: usize = 200_000;
/// The most frames one stack may have.
pub const MAX_DEPTH: usize = 512;
/// The longest frame name, in bytes (C++ templates are long; 4 KiB is plenty).
pub const MAX_FRAME: usize = 4096;

/// A folded profile: each distinct stack (outermost frame first) with its samples.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Folded {
    pub stacks: Vec<(Vec<String>, u64)>,
    /// The samples of every stack.
    pub total: u64,
}

impl Folded {
    /// Adds `other`'s stacks to these (two files of one side: their samples add up).
    pub fn merge(&mut self, other: Folded) {
        let mut at: HashMap<Vec<String>, usize> = self
            .stacks
            .iter()
            .enumerate()
            .map(|(i, (s, _))| (s.clone(), i))
            .collect();
        for (stack, n) in other.stacks {
            match at.get(&stack) {
                Some(&i) => self.stacks[i].1 = self.stacks[i].1.saturating_add(n),
                None => {
                    at.insert(stack.clone(), self.stacks.len());
                    self.stacks.push((stack, n));
                }
            }
        }
        self.total = self.total.saturating_add(other.total);
    }
}

/// One line as `(frames, count)`, or `None` when it is not a folded line.
fn split_line(line: &str) -> Option<(&str, u64)> {
    let (frames, count) = line.trim_end().rsplit_once(' ')?;
    if frames.trim().is_empty() || count.is_empty() || !count.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((frames, count.parse().ok()?))
}

/// Whether `head` (a file's first bytes) reads as folded stacks: its first lines are each
/// frames, a space and a whole number, and at least one of them is a stack of two frames.
pub fn detect(head: &str) -> bool {
    let mut lines = head.lines().filter(|l| !l.trim().is_empty()).peekable();
    // The last line of a cut head may be a half line.
    let mut seen = 0;
    let mut stacked = false;
    while let Some(line) = lines.next() {
        if seen == 8 || (lines.peek().is_none() && seen > 0 && head.len() >= 64 * 1024) {
            break;
        }
        let Some((frames, _)) = split_line(line) else {
            return false;
        };
        if line.contains('\t') || frames.starts_with(['{', '[', '"', '#']) {
            return false;
        }
        stacked |= frames.contains(';');
        seen += 1;
    }
    seen > 0 && stacked
}

/// Parses folded stacks. Blank lines are skipped; a stack seen twice adds up.
pub fn parse(text: &str) -> Result<Folded, IngestError> {
    if text.len() > MAX_BYTES {
        return Err(IngestError::new(format!(
            "folded stacks of {} bytes; at most {MAX_BYTES} are taken",
            text.len()
        )));
    }
    let mut at: HashMap<&str, usize> = HashMap::new();
    let mut out = Folded::default();
    for (i, line) in text.lines().enumerate() {
        let n = i as u64 + 1;
        if i.is_multiple_of(4096) && super::cancel::requested() {
            return Err(super::cancelled());
        }
        if line.trim().is_empty() {
            continue;
        }
        let (frames, count) = split_line(line).ok_or_else(|| {
            IngestError::at_line(
                n,
                "not a folded stack: frames joined by ';', a space, then a whole number of samples",
            )
        })?;
        out.total = out
            .total
            .checked_add(count)
            .ok_or_else(|| IngestError::at_line(n, "the samples add up past 2^64"))?;
        if let Some(&j) = at.get(frames) {
            out.stacks[j].1 += count;
            continue;
        }
        let stack: Vec<String> = frames.split(';').map(str::to_owned).collect();
        if stack.len() > MAX_DEPTH {
            return Err(IngestError::at_line(
                n,
                format!("a stack of {} frames; at most {MAX_DEPTH}", stack.len()),
            ));
        }
        if let Some(long) = stack.iter().find(|f| f.len() > MAX_FRAME) {
            return Err(IngestError::at_line(
                n,
                format!("a frame name of {} bytes; at most {MAX_FRAME}", long.len()),
            ));
        }
        if stack.iter().any(String::is_empty) {
            return Err(IngestError::at_line(n, "an empty frame (';;')"));
        }
        if out.stacks.len() == MAX_STACKS {
            return Err(IngestError::at_line(
                n,
                format!("more than {MAX_STACKS} distinct stacks"),
            ));
        }
        at.insert(frames, out.stacks.len());
        out.stacks.push((stack, count));
    }
    if out.stacks.is_empty() {
        return Err(IngestError::new("no folded stacks"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Each case: the text, then the stacks (`a;b=3`, in first-seen order) or the error's start.
    const CASES: &[(&str, &str)] = &[
        ("main;f;g 3\nmain;h 1\n", "main;f;g=3 main;h=1"),
        ("main;f 3\nmain;f 4\n", "main;f=7"),
        ("\n  \nmain;f 1\n\n", "main;f=1"),
        // Names with spaces (C++), dots and brackets: the count is after the last space.
        (
            "perf;operator new(unsigned long) 2\nswapper;[unknown];memcpy.isra.0 5",
            "perf;operator new(unsigned long)=2 swapper;[unknown];memcpy.isra.0=5",
        ),
        ("main 9\n", "main=9"),
        ("main;f\n", "error: line 1"),
        ("main;f 1.5\n", "error: line 1"),
        ("main;f -1\n", "error: line 1"),
        ("main;;f 1\n", "error: line 1"),
        ("ok;x 1\nbroken\n", "error: line 2"),
        ("", "error: no folded stacks"),
        ("a;b 18446744073709551615\na;c 1\n", "error: line 2"),
    ];

    fn render(f: &Folded) -> String {
        f.stacks
            .iter()
            .map(|(s, n)| format!("{}={n}", s.join(";")))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn parses_the_cases() {
        for (text, want) in CASES {
            let got = match parse(text) {
                Ok(f) => {
                    assert_eq!(f.total, f.stacks.iter().map(|(_, n)| n).sum::<u64>());
                    render(&f)
                }
                Err(e) => format!("error: {e}"),
            };
            assert!(
                got.starts_with(want),
                "{text:?}: got {got:?}, want {want:?}"
            );
        }
    }

    #[test]
    fn bounds_refuse_with_the_line() {
        let deep = format!("{} 1\n", vec!["f"; MAX_DEPTH + 1].join(";"));
        assert!(parse(&deep).unwrap_err().to_string().contains("line 1"));
        let long = format!("a;{} 1\n", "x".repeat(MAX_FRAME + 1));
        assert!(parse(&long).unwrap_err().to_string().contains("frame name"));
        let mut many = String::new();
        for i in 0..=MAX_STACKS {
            many.push_str(&format!("a;f{i} 1\n"));
        }
        let e = parse(&many).unwrap_err().to_string();
        assert!(e.contains(&format!("line {}", MAX_STACKS + 1)), "{e}");
        let big = "a;b 1\n".repeat(MAX_BYTES / 6 + 1);
        assert!(parse(&big).unwrap_err().to_string().contains("at most"));
    }

    #[test]
    fn merge_adds_samples_of_the_same_stack() {
        let mut a = parse("m;f 2\nm;g 1\n").unwrap();
        a.merge(parse("m;g 4\nm;h 1\n").unwrap());
        assert_eq!(render(&a), "m;f=2 m;g=5 m;h=1");
        assert_eq!(a.total, 8);
    }

    #[test]
    fn detection() {
        assert!(detect("main;f;g 3\nmain;h 1\n"));
        assert!(detect("swapper;[unknown] 12"));
        // One frame per line is no evidence of stacks; other formats are not folded.
        assert!(!detect("main 3\n"));
        assert!(!detect("benchmark,metric,value\nb,m,1\n"));
        assert!(!detect("{\"a;b\": 1}"));
        assert!(!detect("Time: 1.23\n"));
        assert!(!detect("a;b\t1\n"));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// No input panics; what parses keeps its totals.
        #[test]
        fn never_panics(text in "[a-z;. 0-9\\n\\[\\]]{0,300}") {
            let _ = detect(&text);
            if let Ok(f) = parse(&text) {
                prop_assert_eq!(f.total, f.stacks.iter().map(|(_, n)| n).sum::<u64>());
                prop_assert!(f.stacks.iter().all(|(s, _)| !s.is_empty() && s.len() <= MAX_DEPTH));
            }
        }

        #[test]
        fn arbitrary_text(bytes in proptest::collection::vec(any::<u8>(), 0..1024)) {
            let text = String::from_utf8_lossy(&bytes);
            let _ = detect(&text);
            let _ = parse(&text);
        }

        /// What is written folded parses back to the same stacks.
        #[test]
        fn round_trip(stacks in proptest::collection::btree_map(
            proptest::collection::vec("[a-z_][a-z_.0-9]{0,8}", 1..6), 0u64..1000, 1..20)) {
            let text: String = stacks.iter().map(|(s, n)| format!("{} {n}\n", s.join(";"))).collect();
            let f = parse(&text).unwrap();
            prop_assert_eq!(f.stacks.len(), stacks.len());
            prop_assert_eq!(f.total, stacks.values().sum::<u64>());
        }
    }
}
