// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of mmtests (https://github.com/gormanm/mmtests) at 638401e07e70, modified (translated to Rust); see crates/mmtests-parse/PROVENANCE.md.
//! Perl as mmtests' `extract-report.pl` scripts and `legacy-support.pl` use it, where it decides
//! what is printed: `<FH>` lines, `split /\s+/` (leading empty field kept, trailing ones
//! dropped), numbers as perl reads, adds and prints them (integers stay integers, anything
//! else `%.15g`, `Inf`/`NaN`), `sort { $a <=> $b }`, and the directory as `glob`, `-e`,
//! 2-argument `open` and `open_log` see it ([`Logs`]).

use std::cmp::Ordering;

use super::budget::Budget;
use super::prelude::*;

/// Perl's `\s`: space, `\t`, `\n`, `\v`, `\f`, `\r`.
pub fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c')
}

/// [`is_space`] on a byte.
pub fn is_space_byte(b: u8) -> bool {
    is_space(char::from(b))
}

/// perl's `chomp`: one trailing newline off.
pub fn chomp(s: &str) -> &str {
    s.strip_suffix('\n').unwrap_or(s)
}

/// The lines `<FH>` reads, chomped, numbered from 1.
pub fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split_inclusive('\n')
        .enumerate()
        .map(|(i, l)| (i + 1, chomp(l)))
}

/// Element `i` of a list, or the empty string perl prints for a missing one.
pub fn field<'s>(fields: &[&'s str], i: usize) -> &'s str {
    fields.get(i).copied().unwrap_or("")
}

/// perl's `split /\s+/, $s`: a leading empty field where `s` starts with blanks, trailing
/// empty fields dropped.
pub fn split_ws(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_space = false;
    for (i, c) in s.char_indices() {
        if is_space(c) {
            if !in_space {
                out.push(&s[start..i]);
                in_space = true;
            }
        } else if in_space {
            start = i;
            in_space = false;
        }
    }
    if !in_space {
        out.push(&s[start..]);
    }
    while out.last() == Some(&"") {
        out.pop();
    }
    out
}

/// perl's `split /[<chars>]/, $s`: every delimiter splits, trailing empty fields dropped.
pub fn split_on(s: &str, delimiter: impl Fn(char) -> bool) -> Vec<&str> {
    let mut out: Vec<&str> = s.split(delimiter).collect();
    while out.last() == Some(&"") {
        out.pop();
    }
    out
}

/// A perl number: an integer (IV/UV range) while integer arithmetic stays exact, else a
/// double.
#[derive(Debug, Clone, Copy)]
pub enum Num {
    Int(i128),
    Float(f64),
}

impl Num {
    /// An integer result: a double once it leaves perl's IV/UV range.
    pub fn int(v: i128) -> Num {
        if (i128::from(i64::MIN)..=i128::from(u64::MAX)).contains(&v) {
            Num::Int(v)
        } else {
            Num::Float(v as f64)
        }
    }

    pub fn f(self) -> f64 {
        match self {
            Num::Int(v) => v as f64,
            Num::Float(v) => v,
        }
    }

    pub fn add(self, o: Num) -> Num {
        match (self, o) {
            (Num::Int(a), Num::Int(b)) => Num::int(a + b),
            _ => Num::Float(self.f() + o.f()),
        }
    }

    pub fn sub(self, o: Num) -> Num {
        match (self, o) {
            (Num::Int(a), Num::Int(b)) => Num::int(a - b),
            _ => Num::Float(self.f() - o.f()),
        }
    }

    pub fn mul(self, o: Num) -> Num {
        match (self, o) {
            (Num::Int(a), Num::Int(b)) => a
                .checked_mul(b)
                .map_or(Num::Float(self.f() * o.f()), Num::int),
            _ => Num::Float(self.f() * o.f()),
        }
    }

    /// `/` for a non-zero divisor: integer only where perl tries it (dividend beyond 2^53,
    /// exact quotient).
    pub fn div(self, o: Num) -> Num {
        if let (Num::Int(a), Num::Int(b)) = (self, o) {
            if b != 0 && a.abs() > 1 << 53 && a % b == 0 {
                return Num::int(a / b);
            }
        }
        Num::Float(self.f() / o.f())
    }

    pub fn is_zero(self) -> bool {
        self.f() == 0.0
    }

    /// The number as perl prints it.
    pub fn text(self) -> String {
        match self {
            Num::Int(v) => v.to_string(),
            Num::Float(v) => nv(v),
        }
    }
}

/// A double as perl prints it: `%.15g`, `0` for either zero, `Inf`, `-Inf`, `NaN`.
pub fn nv(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "Inf" } else { "-Inf" }.into()
    } else {
        format_g(v, 15).into_string()
    }
}

/// Perl's numification of a string (`undef` is `num("")`, 0): an integer when the text is
/// one (blanks around allowed), else leading blanks, a sign and the `Inf`/`NaN` words
/// (`"info"` is Inf), else the longest decimal prefix, else 0 (`"--5"`, `"+ 5"`, `"0x1A"`).
pub fn num(s: &str) -> Num {
    let t = s.trim_start_matches(is_space);
    let b = t.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let digits_from = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    if i > digits_from && b[i..].iter().all(|&c| is_space_byte(c)) {
        if let Ok(v) = t[..i].parse::<i128>() {
            return Num::int(v);
        }
    }
    let negative = b.first() == Some(&b'-');
    let unsigned = &b[usize::from(matches!(b.first(), Some(b'+' | b'-')))..];
    let word = |w: &[u8]| {
        unsigned
            .get(..w.len())
            .is_some_and(|u| u.eq_ignore_ascii_case(w))
    };
    let v = if word(b"inf") {
        f64::INFINITY
    } else if word(b"nan") {
        f64::NAN
    } else {
        return Num::Float(strtod_prefix(t));
    };
    Num::Float(if negative { -v } else { v })
}

/// perl's `$a <=> $b` as a sort key: the number, a NaN (which `<=>` leaves undefined, equal
/// to anything) as 0 and `-0` as 0 so the order stays total.
pub fn sort_key(s: &str) -> f64 {
    let v = num(s).f();
    if v.is_nan() {
        0.0
    } else {
        v + 0.0
    }
}

/// `sort { $a <=> $b }`, stable as perl's merge sort is ([`sort_key`]).
pub fn sort_numeric<S: AsRef<str>>(items: &mut [S]) {
    items.sort_by(|a, b| sort_key(a.as_ref()).total_cmp(&sort_key(b.as_ref())));
}

/// The order of perl's `glob` (File::Glob's `GLOB_ALPHASORT`): bytes compared ASCII-lowercased
/// as C's signed `char` (so bytes above 0x7f first), ties by `strcmp`.
pub fn glob_cmp(a: &str, b: &str) -> Ordering {
    let fold = |c: Option<&u8>| c.map_or(0i32, |c| i32::from(c.to_ascii_lowercase() as i8));
    let (x, y) = (a.as_bytes(), b.as_bytes());
    for i in 0..=x.len().min(y.len()) {
        let (p, q) = (fold(x.get(i)), fold(y.get(i)));
        if p != q {
            return p.cmp(&q);
        }
    }
    x.cmp(y)
}

/// A logs directory as the perl scripts see it: members by path (`/` for subdirectories),
/// `glob`, `-e`, 2-argument `open`, `open_log`, and a [`Budget`] (16 times the directory's
/// size) against re-reading the same files without end.
pub struct Logs<'a> {
    dir: &'a LogDir,
    /// Member names in byte order (prefix look-ups by binary search).
    names: Vec<&'a str>,
    budget: Budget<'a>,
}

impl<'a> Logs<'a> {
    pub fn new(dir: &'a LogDir) -> Logs<'a> {
        Logs {
            dir,
            names: dir.names().collect(),
            budget: Budget::new(dir, 16, 1 << 20),
        }
    }

    /// Counts `steps` of reading or listing; refuses once they pass the budget.
    fn charge(&self, steps: usize) -> Result<(), Problem> {
        self.budget.charge(steps as u64)
    }

    /// The members whose names start with `prefix`.
    fn starting(&self, prefix: &str) -> &[&'a str] {
        super::shell::prefix_range(&self.names, prefix)
    }

    fn is_dir(&self, path: &str) -> bool {
        !self.starting(&format!("{path}/")).is_empty()
    }

    /// perl's `-e`.
    pub fn exists(&self, path: &str) -> bool {
        self.dir.contains(path) || self.is_dir(path)
    }

    /// perl's 2-argument `open(FH, $path)` for reading: trailing blanks leave the name, a
    /// name ending in `|` would run a command (`None`, as a failed open); the member as stored
    /// (nothing for a compressed member, which perl reads as bytes no pattern matches, or a
    /// directory), `None` where nothing exists.
    pub fn open(&self, path: &str) -> Result<Option<&'a str>, Problem> {
        let path = path.trim_end_matches(is_space);
        let text = match self.dir.get(path) {
            _ if path.ends_with('|') => None,
            Some(_) if path.ends_with(".gz") || path.ends_with(".xz") => Some(""),
            Some(text) => Some(text),
            None if self.is_dir(path) => Some(""),
            None => None,
        };
        self.charge(1 + text.map_or(0, str::len))?;
        Ok(text)
    }

    /// `legacy-support.pl`'s `open_log`: after dropping a `.gz` then an `.xz` suffix,
    /// `<path>.gz` (gunzip), else `<path>.xz` (unxz), else `<path>` if it exists (opened as
    /// [`Logs::open`] does); the name opened and its text, `None` if none exists.
    pub fn open_log(&self, path: &str) -> Result<Option<(String, &'a str)>, Problem> {
        let stem = path.strip_suffix(".gz").unwrap_or(path);
        let stem = stem.strip_suffix(".xz").unwrap_or(stem);
        for candidate in [format!("{stem}.gz"), format!("{stem}.xz")] {
            if let Some(text) = self.dir.get(&candidate) {
                self.charge(1 + text.len())?;
                return Ok(Some((candidate, text)));
            }
            if self.is_dir(&candidate) {
                return Ok(Some((candidate, "")));
            }
        }
        if !self.exists(stem) {
            return Ok(None);
        }
        Ok(self.open(stem)?.map(|text| (stem.to_owned(), text)))
    }

    /// perl's `<dir/prefix*suffix>`: the paths of the entries of the directory `prefix` names
    /// (up to its last `/`, `logs/` itself without one) that start with the rest of `prefix`
    /// and end with `suffix`, files or subdirectories, in File::Glob's order (a leading `*`
    /// skips dot files).
    pub fn glob(&self, prefix: &str, suffix: &str) -> Result<Vec<&'a str>, Problem> {
        let parent = prefix.rfind('/').map_or(0, |i| i + 1);
        let leaf = prefix.len() - parent;
        let candidates = self.starting(prefix);
        self.charge(candidates.len())?;
        let mut found: Vec<&'a str> = Vec::new();
        for &name in candidates {
            let end = name
                .get(parent..)
                .and_then(|rest| rest.find('/'))
                .map_or(name.len(), |i| parent + i);
            let Some(path) = name.get(..end) else {
                continue;
            };
            let entry = path.get(parent..).unwrap_or("");
            if entry.len() >= leaf + suffix.len()
                && entry.ends_with(suffix)
                && !(leaf == 0 && entry.starts_with('.'))
            {
                found.push(path);
            }
        }
        found.sort_by(|a, b| glob_cmp(a, b));
        found.dedup();
        Ok(found)
    }

    /// `legacy-support.pl`'s `discover_scaling_parameters`: what `<prefix*suffix>` matches
    /// between `prefix` and `suffix`, sorted with `<=>` (stable, so equal values keep glob
    /// order; text that is no number counts 0).
    pub fn discover(&self, prefix: &str, suffix: &str) -> Result<Vec<String>, Problem> {
        let mut found: Vec<String> = self
            .glob(prefix, suffix)?
            .iter()
            .filter_map(|p| p.get(prefix.len()..p.len() - suffix.len()))
            .map(str::to_owned)
            .collect();
        sort_numeric(&mut found);
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What perl 5.36 printed for these (`$s + 0`, `$s * 1000`).
    #[test]
    fn perl_helpers() {
        assert_eq!(split_ws("  a b\t\n"), ["", "a", "b"]);
        assert!(split_ws(" \n").is_empty());
        assert_eq!(split_on("a--b--", |c| c == '-'), ["a", "", "b"]);
        let times_1000 = |s: &str| num(s).mul(Num::Int(1000)).text();
        assert_eq!(times_1000("0.0305"), "30.5");
        assert_eq!(times_1000("18446744073709551615"), "1.84467440737096e+22");
        assert_eq!(times_1000("1.2.3"), "1200");
        assert_eq!(times_1000("-0.0"), "0");
        for (s, v) in [
            (" 12abc", 12.0),
            ("- 5", 0.0),
            ("--5", 0.0),
            ("-+5", 0.0),
            ("info", f64::INFINITY),
            ("-inf", f64::NEG_INFINITY),
            ("x", 0.0),
            ("\x0b5", 5.0),
            ("1e5x", 100000.0),
        ] {
            assert_eq!(num(s).f(), v, "{s}");
        }
        assert!(num("nanx").f().is_nan());
        assert_eq!(num("-0").text(), "0");
        assert_eq!(num("18446744073709551616").text(), "1.84467440737096e+19");
        let mut names = ["_x", "B", "a", "10", "Ab", "aB", "9"];
        names.sort_by(|a, b| glob_cmp(a, b));
        assert_eq!(names, ["10", "9", "_x", "a", "Ab", "aB", "B"]);
        let mut clients = ["b", "16", "a", "4", "x", "-0", "nan"];
        sort_numeric(&mut clients);
        assert_eq!(clients, ["b", "a", "x", "-0", "nan", "4", "16"]);
    }

    #[test]
    fn opens_as_perl_does() {
        let mut dir = LogDir::new("x");
        for (name, text) in [("a.log", "A"), ("b.log.gz", "B"), ("c|", "C"), ("d/e", "E")] {
            dir.insert(name, text.into());
        }
        let logs = Logs::new(&dir);
        assert_eq!(logs.open("a.log \n"), Ok(Some("A")));
        assert_eq!(logs.open("b.log.gz"), Ok(Some("")));
        assert_eq!(logs.open("c|"), Ok(None));
        assert_eq!(logs.open("d"), Ok(Some("")));
        assert_eq!(logs.open_log("b.log"), Ok(Some(("b.log.gz".into(), "B"))));
        assert_eq!(logs.open_log("a.log.gz"), Ok(Some(("a.log".into(), "A"))));
        assert_eq!(logs.open_log("a.log "), Ok(None));
        assert_eq!(logs.glob("", "").unwrap(), ["a.log", "b.log.gz", "c|", "d"]);
    }
}
