//! The seam between a `work/log` tree and the parsers of mmtests' benchmark families: one
//! `<kernel>/iter-N/<benchmark>/logs/` directory in ([`LogDir`], its members decompressed),
//! mmtests' intermediate rows out ([`Line`]: what the family's `parse-results` prints,
//! `metric factorA factorB interval value extra`, tab-separated).
//!
//! Architecture invariant: this module and the families' parsers use `std` only and know
//! nothing of runs, labels or the store; the tree reader and [`super::rows`] turn lines into
//! runs. A parser is a pure function of the directory, tested against what the real
//! `parse-results` printed for the same logs.

use std::collections::BTreeMap;
use std::fmt;

/// One `logs/` directory: each member by its name in the tree (`fio.log.gz` stays so named),
/// its bytes decompressed (`.gz` and `.xz` members as `zcat`/`xzcat` would give them).
#[derive(Debug, Default, Clone)]
pub struct LogDir {
    /// The benchmark directory's name under `iter-N` (the driver: `netperf-udp-rr`,
    /// `futexbench-hash`, `wis-pf`), which some parsers read as mmtests' does.
    pub benchmark: String,
    files: BTreeMap<String, String>,
}

impl LogDir {
    pub fn new(benchmark: &str) -> LogDir {
        LogDir {
            benchmark: benchmark.to_owned(),
            files: BTreeMap::new(),
        }
    }

    /// Adds a member (text already decompressed) under its name in the tree.
    pub fn insert(&mut self, name: &str, text: String) {
        self.files.insert(name.to_owned(), text);
    }

    /// The members' names in byte order, as `ls` lists them under `LC_ALL=C`.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }

    /// The member named exactly `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.files.get(name).map(String::as_str)
    }

    /// The text of `name` as mmtests' `open_log` finds it: `name.gz`, else `name.xz`, else
    /// `name` (a `.gz`/`.xz` suffix on `name` is ignored first).
    pub fn text(&self, name: &str) -> Option<&str> {
        let stem = name
            .strip_suffix(".gz")
            .or_else(|| name.strip_suffix(".xz"))
            .unwrap_or(name);
        self.get(&format!("{stem}.gz"))
            .or_else(|| self.get(&format!("{stem}.xz")))
            .or_else(|| self.get(stem))
    }

    /// Members whose names start with `prefix` and end with `suffix`, in byte order (a shell
    /// glob `prefix*suffix`).
    pub fn glob<'a>(&'a self, prefix: &'a str, suffix: &'a str) -> impl Iterator<Item = &'a str> {
        self.names().filter(move |n| {
            n.len() >= prefix.len() + suffix.len() && n.starts_with(prefix) && n.ends_with(suffix)
        })
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

/// One row of mmtests' intermediate: `metric factorA factorB interval value extra`. Fields are
/// text as `parse-results` prints them (`_` for an absent factor or extra); `value` may be
/// text that is not a number (mmtests keeps the operation but not the sample).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub metric: String,
    pub a: String,
    pub b: String,
    pub interval: String,
    pub value: String,
    pub extra: String,
}

impl Line {
    /// A line without an extra field (`_`).
    pub fn new(
        metric: impl Into<String>,
        a: impl Into<String>,
        b: impl Into<String>,
        interval: impl Into<String>,
        value: impl Into<String>,
    ) -> Line {
        Line {
            metric: metric.into(),
            a: a.into(),
            b: b.into(),
            interval: interval.into(),
            value: value.into(),
            extra: "_".into(),
        }
    }

    /// The same line with an extra field (`R` marks a ratio operation).
    pub fn extra(mut self, extra: impl Into<String>) -> Line {
        self.extra = extra.into();
        self
    }

    /// The line as `parse-results` prints it, without the newline.
    pub fn tsv(&self) -> String {
        format!(
            "{}\t{}\t{}\t{}\t{}\t{}",
            self.metric, self.a, self.b, self.interval, self.value, self.extra
        )
    }

    /// mmtests' operation name: `metric[-factorA][-factorB]`, a `_` or empty factor dropped.
    pub fn operation(&self) -> String {
        let mut op = self.metric.clone();
        for f in [&self.a, &self.b] {
            if !f.is_empty() && f != "_" {
                op.push('-');
                op.push_str(f);
            }
        }
        op
    }

    /// Whether `extra` marks a ratio operation (starts with `R`).
    pub fn is_ratio(&self) -> bool {
        self.extra.starts_with('R')
    }
}

/// Why a directory could not be read: the member and line where known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub file: Option<String>,
    pub line: Option<usize>,
    pub message: String,
}

impl Problem {
    pub fn new(message: impl Into<String>) -> Problem {
        Problem {
            file: None,
            line: None,
            message: message.into(),
        }
    }

    pub fn in_file(mut self, file: &str) -> Problem {
        self.file = Some(file.to_owned());
        self
    }

    pub fn at_line(mut self, line: usize) -> Problem {
        self.line = Some(line);
        self
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{file}: ")?;
        }
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        f.write_str(&self.message)
    }
}

/// A family's parser: what its `parse-results` prints for one `logs/` directory, in order.
pub type Parser = fn(&LogDir) -> Result<Vec<Line>, Problem>;

/// A number as awk prints it (`print x` with the default `OFMT`/`CONVFMT` of `%.6g`): an
/// integral value within 2^53 as an integer, anything else with six significant digits.
pub fn awk_num(v: f64) -> String {
    if v.is_nan() {
        return if v.is_sign_negative() { "-nan" } else { "nan" }.into();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf" } else { "inf" }.into();
    }
    if v == v.trunc() && v.abs() < 9_007_199_254_740_992.0 {
        return format!("{}", v as i64);
    }
    format_g(v, 6)
}

/// C's `%.<precision>g`.
pub fn format_g(v: f64, precision: usize) -> String {
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.into();
    }
    if !v.is_finite() {
        return awk_num(v);
    }
    let p = precision.max(1);
    // The exponent after rounding to p significant digits.
    let sci = format!("{:.*e}", p - 1, v);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= p as i32 {
        let mantissa = trim_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.abs())
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        trim_zeros(&format!("{v:.decimals$}")).to_owned()
    }
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// Whether Perl's `looks_like_number` accepts `s` (what mmtests keeps as a sample):
/// optional blanks, a sign, digits with an optional fraction and exponent, or `Inf`/`NaN`.
pub fn looks_like_number(s: &str) -> bool {
    let t = s.trim_start().trim_end_matches([' ', '\t', '\n', '\r']);
    let t = t.strip_prefix(['+', '-']).unwrap_or(t);
    if t.is_empty() {
        return false;
    }
    let lower = t.to_ascii_lowercase();
    if matches!(lower.as_str(), "inf" | "infinity" | "nan") {
        return true;
    }
    let (mantissa, exponent) = match lower.split_once('e') {
        Some((m, e)) => (m, Some(e)),
        None => (lower.as_str(), None),
    };
    let (int, frac) = match mantissa.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (mantissa, None),
    };
    let digits = |d: &str| d.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = digits(int)
        && frac.is_none_or(digits)
        && !(int.is_empty() && frac.is_none_or(str::is_empty));
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    mantissa_ok && exponent_ok
}

/// Lines in the order of `sort -t'\t' <keys>` as the shell scripts sort them, under
/// `LC_ALL=C`: each key a field (1-based: metric, factorA, factorB, interval, value, extra)
/// compared as text or, with `numeric`, as `sort -n` does (leading number, else 0), ties
/// broken by the whole line in byte order (sort's last resort).
pub fn sort_lines(lines: &mut [Line], keys: &[(usize, bool)]) {
    let field = |l: &Line, k: usize| -> String {
        match k {
            1 => l.metric.clone(),
            2 => l.a.clone(),
            3 => l.b.clone(),
            4 => l.interval.clone(),
            5 => l.value.clone(),
            _ => l.extra.clone(),
        }
    };
    lines.sort_by(|x, y| {
        for &(k, numeric) in keys {
            let (a, b) = (field(x, k), field(y, k));
            let o = if numeric {
                sort_n_key(&a).total_cmp(&sort_n_key(&b))
            } else {
                a.as_bytes().cmp(b.as_bytes())
            };
            if o != std::cmp::Ordering::Equal {
                return o;
            }
        }
        x.tsv().as_bytes().cmp(y.tsv().as_bytes())
    });
}

/// The number `sort -n` reads at the start of `s`: leading blanks, a `-`, digits and one
/// decimal point; anything else (or nothing) is 0.
pub fn sort_n_key(s: &str) -> f64 {
    let t = s.trim_start_matches([' ', '\t']);
    let (neg, t) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    let mut end = 0;
    let mut dot = false;
    for (i, c) in t.char_indices() {
        if c.is_ascii_digit() {
            end = i + 1;
        } else if c == '.' && !dot {
            dot = true;
            end = i + 1;
        } else {
            break;
        }
    }
    let v: f64 = t[..end].trim_end_matches('.').parse().unwrap_or(0.0);
    if neg {
        -v
    } else {
        v
    }
}

/// The number awk reads from text (`"01"` is 1, `"23.5s"` is 23.5, `"x"` is 0): the longest
/// leading prefix that is a decimal number, after blanks.
pub fn awk_value(s: &str) -> f64 {
    let t = s.trim_start_matches([' ', '\t', '\n']);
    let bytes = t.as_bytes();
    let mut end = 0;
    let mut i = 0;
    if i < bytes.len() && (bytes[i] == b'+' || bytes[i] == b'-') {
        i += 1;
    }
    let mut seen_digit = false;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        i += 1;
        seen_digit = true;
        end = i;
    }
    if i < bytes.len() && bytes[i] == b'.' {
        i += 1;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
            seen_digit = true;
            end = i;
        }
    }
    if seen_digit && i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
        let mut j = i + 1;
        if j < bytes.len() && (bytes[j] == b'+' || bytes[j] == b'-') {
            j += 1;
        }
        let digits_from = j;
        while j < bytes.len() && bytes[j].is_ascii_digit() {
            j += 1;
        }
        if j > digits_from {
            end = j;
        }
    }
    if !seen_digit {
        return 0.0;
    }
    t[..end].parse().unwrap_or(0.0)
}

/// mmtests' `extract-time`: the user, system and elapsed seconds of GNU time's default
/// output (`1.20user 0.30system 1:02.50elapsed ...`), as the three words it prints (elapsed
/// `h:mm:ss` or `m:ss.cc` turned into seconds by awk). The last report in the text wins;
/// `None` without one.
pub fn extract_time(text: &str) -> Option<[String; 3]> {
    let mut out: Vec<String> = Vec::new();
    for line in text.lines().filter(|l| l.contains("elapsed")) {
        for word in line.split_ascii_whitespace() {
            if let Some(user) = word.strip_suffix("user") {
                out = vec![user.to_owned()];
            } else if let Some(system) = word.strip_suffix("system") {
                out.push(system.to_owned());
            } else if word.contains("elapsed") {
                let mut entry = word.to_owned();
                while entry.matches(':').count() < 2 {
                    entry.insert_str(0, "0:");
                }
                let entry = entry.strip_suffix("elapsed").unwrap_or(&entry);
                let parts: Vec<&str> = entry.split(':').collect();
                let part = |i: usize| parts.get(i).map_or(0.0, |p| awk_value(p));
                out.push(awk_num(part(0) * 3600.0 + part(1) * 60.0 + part(2)));
            }
        }
    }
    // `echo $OUT | cut -d' ' -f1..3`: the words in order.
    let words: Vec<String> = out
        .join(" ")
        .split_ascii_whitespace()
        .map(str::to_owned)
        .collect();
    match words.as_slice() {
        [u, s, e, ..] => Some([u.clone(), s.clone(), e.clone()]),
        _ => None,
    }
}

/// The whitespace-separated fields of a line as awk splits them (`$1` is `fields[0]`).
pub fn fields(line: &str) -> Vec<&str> {
    line.split_ascii_whitespace().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_awk_prints_them() {
        for (v, s) in [
            (1.0, "1"),
            (28036.3, "28036.3"),
            (4686.0, "4686"),
            (1234567.8, "1.23457e+06"),
            (0.000012345, "1.2345e-05"),
            (0.5, "0.5"),
            (-2.25, "-2.25"),
            (100000.4, "100000"),
            (1.23456789, "1.23457"),
        ] {
            assert_eq!(awk_num(v), s, "{v}");
        }
    }

    #[test]
    fn gnu_times_report_as_extract_time_reads_it() {
        let t = "12.34user 1.50system 1:02.50elapsed 99%CPU (0avgtext+0avgdata 1234maxresident)k\n";
        assert_eq!(
            extract_time(t),
            Some(["12.34".into(), "1.50".into(), "62.5".into()])
        );
        let hours = "4000.00user 300.00system 1:18:06elapsed 99%CPU\n";
        assert_eq!(extract_time(hours).unwrap()[2], "4686");
        assert_eq!(extract_time("nothing here\n"), None);
        assert_eq!(awk_value("01"), 1.0);
        assert_eq!(awk_value(" 23.5s"), 23.5);
        assert_eq!(awk_value("x"), 0.0);
        assert_eq!(awk_value("1e3x"), 1000.0);
    }

    #[test]
    fn perls_idea_of_a_number() {
        for s in [
            "1", " 1.5", "-2", "1e3", ".5", "5.", "+3", "Inf", "nan", "1.5\n",
        ] {
            assert!(looks_like_number(s), "{s}");
        }
        for s in ["", "_", "abc", "1x", "1e", ".", "--1", "0x10"] {
            assert!(!looks_like_number(s), "{s}");
        }
    }

    #[test]
    fn sort_keys_follow_the_shell() {
        let mut lines: Vec<Line> = ["16", "4", "1", "x"]
            .iter()
            .map(|a| Line::new("files_sec", *a, "_", "1", "1"))
            .collect();
        sort_lines(&mut lines, &[(1, false), (2, true)]);
        let order: Vec<&str> = lines.iter().map(|l| l.a.as_str()).collect();
        assert_eq!(order, ["x", "1", "4", "16"]);
        sort_lines(&mut lines, &[(1, false), (4, true)]);
        let order: Vec<&str> = lines.iter().map(|l| l.a.as_str()).collect();
        assert_eq!(order, ["1", "16", "4", "x"]);
    }

    #[test]
    fn operations_drop_absent_factors() {
        assert_eq!(
            Line::new("udprr", "send", "1", "1", "5").operation(),
            "udprr-send-1"
        );
        assert_eq!(Line::new("Copy", "4", "_", "1", "5").operation(), "Copy-4");
        assert_eq!(Line::new("time", "", "_", "1", "5").operation(), "time");
    }

    #[test]
    fn compressed_members_are_found_by_their_plain_name() {
        let mut d = LogDir::new("fio");
        d.insert("fio.log.gz", "a".into());
        d.insert("bonnie", "b".into());
        assert_eq!(d.text("fio.log"), Some("a"));
        assert_eq!(d.text("fio.log.gz"), Some("a"));
        assert_eq!(d.text("bonnie"), Some("b"));
        assert_eq!(d.glob("fio", ".gz").collect::<Vec<_>>(), ["fio.log.gz"]);
    }
}
