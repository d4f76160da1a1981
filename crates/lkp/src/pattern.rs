// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of lkp-tests (https://github.com/intel/lkp-tests) at bbbc29c495d9, modified (translated to Rust); see crates/lkp/PROVENANCE.md.
//! The regular expressions of lkp-tests' pattern lists (`etc/failure`, `etc/stat-denylist`,
//! `etc/perf-metrics-threshold.yaml`, …), matched with the `regex` crate. [`translate`] rewrites
//! the Ruby syntax they use into the crate's, keeping Ruby's meaning:
//!
//! - `^`/`$` are line anchors (multi-line mode), `.` is any character but `\n`;
//! - `\d`, `\w`, `\s` (and `\D`, `\W`, `\S`) are ASCII-only;
//! - a `{` that starts no interval (`{n}`, `{n,}`, `{n,m}`, `{,m}`) is a literal (`{#:#}`), and
//!   `{,m}` is `{0,m}`;
//! - an escaped punctuation character is that character (`\<` is not a word boundary).
//!
//! What the crate would read differently from Ruby is refused: group extensions other than
//! `(?:` (flags, lookaround, named groups), possessive or stacked quantifiers (`a*+`), a repeated
//! anchor (`^*`), nested classes and POSIX brackets (`[[:alpha:]]`), class intersection (`&&`)
//! and escapes other than `\d \w \s \D \W \S \n \t`. The crate refuses the rest (backreferences,
//! unbalanced parentheses). A list that compiles means what Ruby meant.
//!
//! One comparison builds a pattern from a key's own text (`skip_function_stat?` reads a `.pass`
//! key's prefix as a regular expression, as Ruby interpolates it). The crate matches in linear
//! time, and [`SIZE_LIMIT`] bounds what one pattern may compile to, so a crafted key can neither
//! make a match run for ever nor take much memory (a pattern over the limit is an error).

use std::fmt;

use regex::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};

/// The most memory one compiled pattern may take: a list's patterns need under 16 KiB; a key
/// read as a pattern that needs more is refused (compiling one near the limit takes well under
/// a millisecond).
pub const SIZE_LIMIT: usize = 1 << 16;

/// A pattern that could not be compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError {
    pub pattern: String,
    pub reason: String,
}

impl PatternError {
    fn new(pattern: &str, reason: impl Into<String>) -> PatternError {
        PatternError {
            pattern: pattern.to_owned(),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unsupported pattern {:?}: {}", self.pattern, self.reason)
    }
}

/// The contents of the ASCII classes `\d`, `\w` and `\s`.
const DIGIT: &str = "0-9";
const WORD: &str = "0-9A-Za-z_";
const SPACE: &str = r"\t\n\x0B\x0C\r ";

/// What a Ruby `\x` escape stands for.
enum Escape {
    Literal(char),
    /// A class's contents, negated or not.
    Class(&'static str, bool),
}

fn escape(e: char) -> Option<Escape> {
    Some(match e {
        'd' | 'D' => Escape::Class(DIGIT, e == 'D'),
        'w' | 'W' => Escape::Class(WORD, e == 'W'),
        's' | 'S' => Escape::Class(SPACE, e == 'S'),
        'n' => Escape::Literal('\n'),
        't' => Escape::Literal('\t'),
        c if c.is_ascii_alphanumeric() => return None,
        c => Escape::Literal(c),
    })
}

/// `c` as a literal of the crate's syntax.
fn literal(c: char) -> String {
    regex::escape(c.encode_utf8(&mut [0; 4]))
}

/// The interval at the start of `rest` (just after its `{`), in the crate's syntax, and how many
/// characters it takes (with the `}`); `None` when Ruby would read the `{` as a literal.
fn interval(rest: &[char]) -> Option<(String, usize)> {
    // Only digits and one comma come before the `}` (which keeps the scan short).
    let end = rest.iter().position(|&c| !c.is_ascii_digit() && c != ',')?;
    if rest[end] != '}' {
        return None;
    }
    let body: String = rest[..end].iter().collect();
    let q = match body.split_once(',') {
        None if !body.is_empty() => format!("{{{body}}}"),
        Some((min, max)) if !max.contains(',') && (!min.is_empty() || !max.is_empty()) => {
            format!("{{{},{max}}}", if min.is_empty() { "0" } else { min })
        }
        _ => return None,
    };
    Some((q, end + 1))
}

/// The class at the start of `rest` (just after its `[`) appended to `out`; how many characters
/// it takes (with the `]`).
fn class(rest: &[char], out: &mut String) -> Result<usize, &'static str> {
    out.push('[');
    let mut i = 0;
    if rest.first() == Some(&'^') {
        out.push('^');
        i = 1;
    }
    let first = i;
    // One member: a literal character, or the contents of an escaped class.
    let member = |i: &mut usize| -> Result<Escape, &'static str> {
        let c = *rest.get(*i).ok_or("unterminated class")?;
        *i += 1;
        match c {
            '[' => Err("nested class"),
            '&' if rest.get(*i) == Some(&'&') => Err("class intersection"),
            '\\' => {
                let e = *rest.get(*i).ok_or("trailing backslash")?;
                *i += 1;
                escape(e).ok_or("unsupported escape in class")
            }
            c => Ok(Escape::Literal(c)),
        }
    };
    loop {
        // A first `]` is a literal, as in Ruby.
        if rest.get(i) == Some(&']') && i > first {
            out.push(']');
            return Ok(i + 1);
        }
        match member(&mut i)? {
            Escape::Class(set, false) => out.push_str(set),
            Escape::Class(set, true) => out.push_str(&format!("[^{set}]")),
            Escape::Literal(lo) => {
                out.push_str(&literal(lo));
                if rest.get(i) == Some(&'-') && rest.get(i + 1).is_some_and(|&c| c != ']') {
                    i += 1;
                    let Escape::Literal(hi) = member(&mut i)? else {
                        return Err("class as a range's end");
                    };
                    out.push('-');
                    out.push_str(&literal(hi));
                }
            }
        }
    }
}

/// What the translation ended with, for a quantifier that follows.
#[derive(Clone, Copy, PartialEq)]
enum Last {
    /// The start, `(` or `|`.
    Nothing,
    Anchor,
    Atom,
    Quantifier,
}

/// A Ruby regular expression in the `regex` crate's syntax (with its meaning in Ruby, given
/// multi-line mode); an error for syntax the two would read differently.
pub fn translate(pattern: &str) -> Result<String, PatternError> {
    let err = |reason: &str| PatternError::new(pattern, reason);
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut last = Last::Nothing;
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        i += 1;
        let quantifier = match c {
            '*' | '+' | '?' => Some(c.to_string()),
            '{' => interval(&chars[i..]).map(|(q, len)| {
                i += len;
                q
            }),
            _ => None,
        };
        if let Some(q) = quantifier {
            match last {
                Last::Atom => {}
                Last::Nothing => return Err(err("nothing to repeat")),
                Last::Anchor => return Err(err("repeated anchor")),
                Last::Quantifier => return Err(err("possessive or stacked quantifier")),
            }
            out.push_str(&q);
            // Lazy, as in Ruby.
            if chars.get(i) == Some(&'?') {
                out.push('?');
                i += 1;
            }
            last = Last::Quantifier;
            continue;
        }
        last = Last::Atom;
        match c {
            '\\' => {
                let e = *chars.get(i).ok_or_else(|| err("trailing backslash"))?;
                i += 1;
                match escape(e).ok_or_else(|| err("unsupported escape"))? {
                    Escape::Literal(l) => out.push_str(&literal(l)),
                    Escape::Class(set, negated) => {
                        out.push_str(&format!("[{}{set}]", if negated { "^" } else { "" }));
                    }
                }
            }
            '.' | ')' => out.push(c),
            '^' | '$' => {
                out.push(c);
                last = Last::Anchor;
            }
            '|' => {
                out.push(c);
                last = Last::Nothing;
            }
            '(' => {
                if chars.get(i) == Some(&'?') {
                    if chars.get(i + 1) != Some(&':') {
                        return Err(err("group extension"));
                    }
                    i += 2;
                    out.push_str("(?:");
                } else {
                    out.push('(');
                }
                last = Last::Nothing;
            }
            '[' => i += class(&chars[i..], &mut out).map_err(err)?,
            c => out.push_str(&literal(c)),
        }
    }
    Ok(out)
}

/// One compiled regular expression, matched anywhere in a key (Ruby's `=~`).
#[derive(Debug, Clone)]
pub struct Pattern(Regex);

impl Pattern {
    /// Compiles a Ruby regular expression (see [`translate`]).
    pub fn new(pattern: &str) -> Result<Pattern, PatternError> {
        RegexBuilder::new(&translate(pattern)?)
            .multi_line(true)
            .size_limit(SIZE_LIMIT)
            .build()
            .map(Pattern)
            .map_err(|e| PatternError::new(pattern, e.to_string()))
    }

    /// Ruby's `key =~ pattern`: a match anywhere.
    pub fn is_match(&self, key: &str) -> bool {
        self.0.is_match(key)
    }
}

/// A list of patterns, one per line of an lkp-tests `etc` file, that matches when any does
/// (lkp-tests joins the lines with `|`).
#[derive(Debug, Clone)]
pub struct PatternList(RegexSet);

impl PatternList {
    /// Compiles each line (`prefix` prepended, e.g. `^`).
    pub fn new<'a>(
        lines: impl IntoIterator<Item = &'a str>,
        prefix: &str,
    ) -> Result<PatternList, PatternError> {
        let patterns: Vec<String> = lines.into_iter().map(|l| format!("{prefix}{l}")).collect();
        let translated = patterns
            .iter()
            .map(|p| translate(p))
            .collect::<Result<Vec<_>, _>>()?;
        RegexSetBuilder::new(&translated)
            .multi_line(true)
            .size_limit(SIZE_LIMIT.saturating_mul(patterns.len().max(1)))
            .build()
            .map(PatternList)
            .map_err(|e| {
                // Name the line at fault: the first that does not compile alone.
                patterns
                    .iter()
                    .find_map(|p| Pattern::new(p).err())
                    .unwrap_or_else(|| PatternError::new(&patterns.join("|"), e.to_string()))
            })
    }

    pub fn is_match(&self, key: &str) -> bool {
        self.0.is_match(key)
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    fn m(p: &str, s: &str) -> bool {
        Pattern::new(p).unwrap().is_match(s)
    }

    #[test]
    fn ruby_semantics() {
        assert!(m("^dmesg.*", "dmesg.BUG"));
        assert!(m("^dmesg.*", "dmesgX"));
        assert!(!m("^dmesg.*", "kmsg.dmesg"));
        assert!(m(
            r"^.+\.(error|warn|fail)[^_]*$",
            "netperf.test_splice.fail"
        ));
        assert!(m(
            r"^.+\.(error|warn|fail)[^_]*$",
            "xfstests.generic.failures"
        ));
        assert!(!m(r"^.+\.(error|warn|fail)[^_]*$", "dmesg.boot_failures"));
        assert!(!m(r"^.+\.(error|warn|fail)[^_]*$", "foo.fail_x"));
        assert!(m(r"^(.*\.)?time..*", "netperf.time.elapsed_time"));
        assert!(m(r"^(.*\.)?time..*", "time.user_time"));
        assert!(!m(r"^(.*\.)?time..*", "perf-stat.cpu-time"));
        assert!(m(r"^kmsg\.(C|T)[0-9]{1,5}\]", "kmsg.T123]x"));
        assert!(!m(r"^kmsg\.(C|T)[0-9]{1,5}\]", "kmsg.T123456]"));
        assert!(m("{#:#}", "dmesg.a{#:#}b"));
        assert!(m("},at", "x},at"));
        assert!(m("^a{,2}$", "aa"));
        assert!(!m("^a{,2}$", "aaa"));
        assert!(m("^a{ 1}$", "a{ 1}"));
        assert!(m("^a{1,2,3}$", "a{1,2,3}"));
        assert!(m("^a{,}{}$", "a{,}{}"));
        assert!(m("^a{2,}$", "aaa"));
        assert!(m("^.*vmstat.*nr_.*$", "proc-vmstat.nr_dirty"));
        assert!(m("^iostat.*.[rw]/s$", "iostat.sda.r/s"));
        assert!(m(
            "^dmesg\\.Bad_pagetable:#.\\[##\\]",
            "dmesg.Bad_pagetable:#é[##]"
        ));
        assert!(m("Modules_linked_in", "dmesg.Modules_linked_in:x"));
        // Line anchors; `.` is not a newline.
        assert!(m("^b$", "a\nb\nc"));
        assert!(!m("^a.b$", "a\nb"));
        // ASCII-only `\d`, `\w`, `\s`, in and out of classes.
        assert!(m(r"^\d+$", "123"));
        assert!(!m(r"^\d+$", "١٢٣"));
        assert!(!m(r"^\w$", "é"));
        assert!(m(r"^\W$", "é"));
        assert!(!m(r"^\s$", "\u{a0}"));
        assert!(m(r"^\s$", "\u{b}"));
        assert!(m(r"^[\d_]+$", "1_2"));
        assert!(m(r"^[^\d]$", "٣"));
        assert!(m(r"^[\D]$", "x"));
        // Punctuation and class members are literals.
        assert!(m(r"\<a\>", "<a>"));
        assert!(m("^[]a]+$", "]a"));
        assert!(m("^[a-]+$", "-a"));
        assert!(m("^[a~~b&]+$", "~&"));
        assert!(m(r"^[\]\\]+$", r"]\"));
    }

    #[test]
    fn unsupported_syntax_is_refused() {
        assert!(Pattern::new("a(?=b)").is_err());
        assert!(Pattern::new("(?i)a").is_err());
        assert!(Pattern::new("(a").is_err());
        assert!(Pattern::new("a)").is_err());
        assert!(Pattern::new(r"\1").is_err());
        assert!(Pattern::new(r"\h").is_err());
        assert!(Pattern::new("*a").is_err());
        assert!(Pattern::new("^*").is_err());
        assert!(Pattern::new("[[:alpha:]]").is_err());
        assert!(Pattern::new("[a-z&&b]").is_err());
        assert!(Pattern::new("[a-\\d]").is_err());
        // Possessive in Ruby, `(a*)+` to the crate.
        assert!(Pattern::new("a*+").is_err());
        // Lazy quantifiers mean the same in both (and nothing to a yes-or-no match).
        assert!(m("^a*?b", "aab"));
        assert!(m("^a{1,2}?$", "aa"));
    }

    #[test]
    fn pathological_patterns_answer_quickly() {
        let start = Instant::now();
        let key = format!("{}b", "a".repeat(10_000));
        assert!(!m("^(a|a)*(a|a)*(a|a)*c", &key));
        assert!(m("^(a|a)*b", &key));
        assert!(m("^(a*)*(a*)*$", key.trim_end_matches('b')));
        assert!(!m("^(a*)*(a*)*$", &key));
        // A key read as a pattern (`changed.rs`): whatever it says, it compiles to at most
        // SIZE_LIMIT or not at all.
        assert!(Pattern::new("(a{1000}){1000}").is_err());
        assert!(Pattern::new(&"(".repeat(100_000)).is_err());
        // A long run of `{` that start no interval translates in linear time.
        assert!(translate(&"{1".repeat(100_000)).is_ok());
        assert!(m(&"{1".repeat(1000), &"{1".repeat(1000)));
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
    }

    #[test]
    fn lists_match_any_line() {
        let list = PatternList::new(["dmesg.*", r"kmsg\.x", "{#:#}"], "^").unwrap();
        assert!(list.is_match("dmesg.BUG"));
        assert!(list.is_match("kmsg.x"));
        assert!(list.is_match("{#:#}"));
        assert!(!list.is_match("a.kmsg.x"));
        let e = PatternList::new(["a", "b(?=c)"], "").unwrap_err();
        assert_eq!(e.pattern, "b(?=c)");
    }
}
