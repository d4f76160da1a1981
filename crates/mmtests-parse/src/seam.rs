// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of mmtests (https://github.com/gormanm/mmtests) at 638401e07e70, modified (translated to Rust); see crates/mmtests-parse/PROVENANCE.md.
//! The seam between a `work/log` tree and the parsers of mmtests' benchmark families: one
//! `<kernel>/iter-N/<benchmark>/logs/` directory in ([`LogDir`], its members decompressed),
//! mmtests' intermediate rows out ([`Line`]: what the family's `parse-results` prints,
//! `metric factorA factorB interval value extra`, tab-separated).
//!
//! Architecture invariant: this crate knows nothing of runs, labels or the store (its
//! `[dependencies]` are small data-structure crates only); Perfline's tree reader and its
//! `ingest::mmtests::rows` turn lines into runs. A parser is a pure function of the
//! directory, tested against what the real `parse-results` printed for the same logs.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;

/// One `logs/` directory: each member by its name in the tree (`fio.log.gz` stays so named),
/// its bytes decompressed (`.gz` and `.xz` members as `zcat`/`xzcat` would give them). A
/// member added packed is decompressed when a parser first reads it, by the reader's
/// [`Unpack`]: a log no parser reads (dbench's own `dbench-N.log.xz`, half of its bytes) is
/// never inflated, as mmtests never opens it.
#[derive(Debug, Default, Clone)]
pub struct LogDir {
    /// The benchmark directory's name under `iter-N` (the driver: `netperf-udp-rr`,
    /// `futexbench-hash`, `wis-pf`), which some parsers read as mmtests' does.
    pub benchmark: String,
    files: BTreeMap<String, Member>,
    unpack: Option<Unpack>,
    /// Bytes of names (one more each) and of texts given as text.
    known: u64,
    /// Bytes of text of the packed members read so far.
    inflated: Inflated,
}

/// A count shared by readers of one directory (cloned as its value).
#[derive(Debug, Default)]
struct Inflated(std::sync::atomic::AtomicU64);

impl Clone for Inflated {
    fn clone(&self) -> Inflated {
        Inflated(self.get().into())
    }
}

impl Inflated {
    fn get(&self) -> u64 {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// How a packed member becomes text: `(name, bytes)` to its text, or `None` when it cannot
/// be read (the reader that gave it keeps why, and refuses what the parser made of it).
#[derive(Clone)]
pub struct Unpack(pub std::sync::Arc<UnpackFn>);

/// What an [`Unpack`] calls.
pub type UnpackFn = dyn Fn(&str, &[u8]) -> Option<String> + Send + Sync;

impl fmt::Debug for Unpack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Unpack")
    }
}

/// A member: its text, or its bytes as the archive holds them and their text once read.
#[derive(Debug, Clone)]
enum Member {
    Text(String),
    Packed(Vec<u8>, std::sync::OnceLock<Option<String>>),
}

impl LogDir {
    pub fn new(benchmark: &str) -> LogDir {
        LogDir {
            benchmark: benchmark.to_owned(),
            files: BTreeMap::new(),
            unpack: None,
            known: 0,
            inflated: Inflated::default(),
        }
    }

    /// The same, its packed members read by `unpack`.
    pub fn unpacking(benchmark: &str, unpack: Unpack) -> LogDir {
        LogDir {
            unpack: Some(unpack),
            ..LogDir::new(benchmark)
        }
    }

    /// Adds a member (text already decompressed) under its name in the tree.
    pub fn insert(&mut self, name: &str, text: String) {
        self.known += (name.len() + 1 + text.len()) as u64;
        let replaced = self.files.insert(name.to_owned(), Member::Text(text));
        self.forget(replaced, name);
    }

    /// Adds a compressed member, decompressed by the directory's [`Unpack`] when first read
    /// (without one, it reads as absent).
    pub fn insert_packed(&mut self, name: &str, bytes: Vec<u8>) {
        self.known += (name.len() + 1) as u64;
        let packed = Member::Packed(bytes, std::sync::OnceLock::new());
        let replaced = self.files.insert(name.to_owned(), packed);
        self.forget(replaced, name);
    }

    /// Takes a member replaced under `name` out of the sizes.
    fn forget(&mut self, replaced: Option<Member>, name: &str) {
        let gone = match replaced {
            None => return,
            Some(Member::Text(text)) => text.len(),
            Some(Member::Packed(_, text)) => {
                let read = text.get().and_then(Option::as_ref).map_or(0, String::len);
                self.inflated
                    .0
                    .fetch_sub(read as u64, std::sync::atomic::Ordering::Relaxed);
                0
            }
        };
        self.known -= (name.len() + 1 + gone) as u64;
    }

    /// The bytes of the directory as read so far: its names (one more each), its texts, and
    /// the text of each compressed member read (one not read weighs its name only).
    pub fn size(&self) -> u64 {
        self.known + self.inflated.get()
    }

    /// The members' names in byte order, as `ls` lists them under `LC_ALL=C`.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }

    /// Whether a member is named exactly `name` (a compressed one is not inflated to say).
    pub fn contains(&self, name: &str) -> bool {
        self.files.contains_key(name)
    }

    /// The member named exactly `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        match self.files.get(name)? {
            Member::Text(text) => Some(text),
            Member::Packed(bytes, text) => text
                .get_or_init(|| {
                    let text = self.unpack.as_ref().and_then(|u| (u.0)(name, bytes));
                    let n = text.as_ref().map_or(0, String::len) as u64;
                    self.inflated
                        .0
                        .fetch_add(n, std::sync::atomic::Ordering::Relaxed);
                    text
                })
                .as_deref(),
        }
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
    pub metric: Field,
    pub a: Field,
    pub b: Field,
    pub interval: Field,
    pub value: Field,
    pub extra: Field,
}

/// A field of a [`Line`]: up to 24 bytes kept inline, as nearly all are (a directory's
/// lines were six allocations each).
pub type Field = compact_str::CompactString;

/// `format!` into a [`Field`]: kept inline (no allocation) when it fits, as most do.
pub use compact_str::format_compact;

impl Line {
    /// A line without an extra field (`_`). Every line a parser makes is made here, and
    /// counted against the tree's [`Rows`] when the parser runs [`metered`].
    pub fn new(
        metric: impl Into<Field>,
        a: impl Into<Field>,
        b: impl Into<Field>,
        interval: impl Into<Field>,
        value: impl Into<Field>,
    ) -> Line {
        count_row();
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
    pub fn extra(mut self, extra: impl Into<Field>) -> Line {
        self.extra = extra.into();
        self
    }

    /// The line as `parse-results` prints it, without the newline.
    pub fn tsv(&self) -> String {
        let mut out = String::with_capacity(self.fields().iter().map(|f| f.len() + 1).sum());
        self.write_tsv(&mut out);
        out
    }

    /// Appends [`Line::tsv`] to `out`.
    pub fn write_tsv(&self, out: &mut String) {
        for (i, f) in self.fields().into_iter().enumerate() {
            if i > 0 {
                out.push('\t');
            }
            out.push_str(f);
        }
    }

    /// Field `k` (1-based: metric, a, b, interval, value, extra; empty past them).
    fn field(&self, k: usize) -> &str {
        match k {
            1 => &self.metric,
            2 => &self.a,
            3 => &self.b,
            4 => &self.interval,
            5 => &self.value,
            6 => &self.extra,
            _ => "",
        }
    }

    fn fields(&self) -> [&str; 6] {
        [
            &self.metric,
            &self.a,
            &self.b,
            &self.interval,
            &self.value,
            &self.extra,
        ]
    }

    /// mmtests' operation name: `metric[-factorA][-factorB]`, a `_` or empty factor dropped.
    pub fn operation(&self) -> String {
        let mut op = self.metric.to_string();
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

/// The rows the parsers of one tree may print, over all its directories (parsed on several
/// threads at once): each [`Line`] made while a parser runs [`metered`] is charged, a batch
/// of [`ROW_BATCH`] at a time. Once they are spent the parser is stopped where it stands
/// (unwound, without the panic hook: [`std::panic::resume_unwind`]), so the cap fires before
/// the rows exist, not after a parser has made millions from a few megabytes of text; the
/// parsers stay plain functions of the directory, with no bookkeeping of their own.
#[derive(Debug)]
pub struct Rows {
    printed: std::sync::atomic::AtomicU64,
    limit: u64,
}

/// Rows a thread makes between two charges to its [`Rows`].
pub const ROW_BATCH: u64 = 1024;

impl Rows {
    pub fn new(limit: u64) -> Rows {
        Rows {
            printed: 0.into(),
            limit,
        }
    }

    /// The rows charged so far.
    pub fn printed(&self) -> u64 {
        self.printed.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Charges `rows`; whether that spent the rows.
    fn charge(&self, rows: u64) -> bool {
        let before = self
            .printed
            .fetch_add(rows, std::sync::atomic::Ordering::Relaxed);
        before.saturating_add(rows) > self.limit
    }
}

/// Why a [`metered`] parse stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// The tree's rows were spent (their limit).
    Rows(u64),
    /// The parser (or a decoder it called) panicked.
    Panicked,
}

/// The payload a parser stopped by [`Rows`] unwinds with.
struct RowsSpent(u64);

thread_local! {
    /// The rows the parse running on this thread is charged to.
    static METER: std::cell::RefCell<Option<std::sync::Arc<Rows>>> =
        const { std::cell::RefCell::new(None) };
    /// Rows made on this thread since its last charge.
    static BATCH: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Counts one row made on this thread; charges a batch to its parse's [`Rows`], and stops
/// the parse if that spent them.
fn count_row() {
    let made = BATCH.get() + 1;
    if made < ROW_BATCH {
        BATCH.set(made);
        return;
    }
    BATCH.set(0);
    let spent = METER.with(|m| {
        m.borrow()
            .as_ref()
            .filter(|rows| rows.charge(made))
            .map(|rows| rows.limit)
    });
    if let Some(limit) = spent {
        std::panic::resume_unwind(Box::new(RowsSpent(limit)));
    }
}

/// Runs `parse` on this thread with the rows it makes charged to `rows`: its value, or why
/// it stopped (the rows spent, or a panic, caught either way).
pub fn metered<T>(rows: &std::sync::Arc<Rows>, parse: impl FnOnce() -> T) -> Result<T, Stopped> {
    let previous = METER.with(|m| m.replace(Some(rows.clone())));
    let batch = BATCH.replace(0);
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(parse));
    let rest = BATCH.replace(batch);
    METER.with(|m| *m.borrow_mut() = previous);
    match out {
        Ok(_) if rows.charge(rest) => Err(Stopped::Rows(rows.limit)),
        Ok(value) => Ok(value),
        Err(payload) => Err(match payload.downcast_ref::<RowsSpent>() {
            Some(spent) => Stopped::Rows(spent.0),
            None => Stopped::Panicked,
        }),
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

/// A number as gawk prints it (`print x`, or `x ""`, with the default `OFMT`/`CONVFMT` of
/// `%.6g`): an integral value in full (`1e20` as `100000000000000000000`, `-0` as `0`),
/// infinities and NaNs signed (`+inf`, `-nan`), anything else with six significant digits.
pub fn awk_num(v: f64) -> Field {
    if v.is_nan() {
        return if v.is_sign_negative() { "-nan" } else { "+nan" }.into();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf" } else { "+inf" }.into();
    }
    if v == v.trunc() {
        // Exactly an integer below 2^63: printed as one, without the float formatter.
        if v.abs() < 9.2e18 {
            return itoa::Buffer::new().format(v as i64).into();
        }
        return format_compact!("{:.0}", v + 0.0);
    }
    format_g(v, 6)
}

/// C's `%.<precision>g` (`inf`, `-nan` as printf writes them).
pub fn format_g(v: f64, precision: usize) -> Field {
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.into();
    }
    if v.is_nan() {
        return if v.is_sign_negative() { "-nan" } else { "nan" }.into();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf" } else { "inf" }.into();
    }
    let p = precision.max(1);
    format_g_shortest(v, p).unwrap_or_else(|| format_g_exact(v, p))
}

/// `%.<p>g` of a finite, non-zero `v` by exact formatting.
fn format_g_exact(v: f64, p: usize) -> Field {
    // The exponent after rounding to p significant digits.
    let sci = format!("{:.*e}", p - 1, v);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= p as i32 {
        let mantissa = trim_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format_compact!("{mantissa}e{sign}{:02}", exp.abs())
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        trim_zeros(&format!("{v:.decimals$}")).into()
    }
}

/// `%.<p>g` of a finite, non-zero `v` whose shortest round-trip digits are at most `p`
/// (most numbers a log holds: `12.5`, `0.003`): those digits are what rounding `v` to `p`
/// digits gives, since `v` lies within half an ulp of them and an ulp is far below half a
/// unit of the `p`-th digit (`p` ≤ 15). The shortest digits come from the fast
/// shortest-representation formatter; exact formatting (`{:.5e}`) falls back to bignum
/// arithmetic for many values. `None` when the shortcut does not apply.
fn format_g_shortest(v: f64, p: usize) -> Option<Field> {
    // (A subnormal's ulp is not small beside its digits: `1e-320` is `9.99989e-321`.)
    if p > 15 || v.abs() < f64::MIN_POSITIVE {
        return None;
    }
    // The shortest round-trip form (`12.345`, `0.001`, `1.2345e20`, `1e-7`): its digits
    // without leading or trailing zeros, and the decimal exponent of the first.
    let mut buffer = ryu::Buffer::new();
    let printed = buffer.format_finite(v.abs()).as_bytes();
    let (mantissa, e) = match printed.iter().position(|&b| b == b'e') {
        Some(i) => (
            &printed[..i],
            std::str::from_utf8(&printed[i + 1..])
                .ok()?
                .parse::<i32>()
                .ok()?,
        ),
        None => (printed, 0),
    };
    let int_len = mantissa
        .iter()
        .position(|&b| b == b'.')
        .unwrap_or(mantissa.len());
    let all = mantissa.iter().filter(|b| b.is_ascii_digit());
    let leading = all.clone().take_while(|&&b| b == b'0').count();
    let mut digits = [0u8; 32];
    let mut n = 0;
    for &b in all.skip(leading) {
        *digits.get_mut(n)? = b;
        n += 1;
    }
    while n > 1 && digits[n - 1] == b'0' {
        n -= 1;
    }
    if n == 0 || n > p {
        return None;
    }
    let exp = int_len as i32 - 1 - leading as i32 + e;
    let digits = std::str::from_utf8(&digits[..n]).ok()?;
    let mut out = Field::with_capacity(n + 8);
    if v < 0.0 {
        out.push('-');
    }
    if exp < -4 || exp >= p as i32 {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        if exp.abs() < 10 {
            out.push('0');
        }
        out.push_str(itoa::Buffer::new().format(exp.abs()));
    } else if exp < 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-exp - 1) as usize));
        out.push_str(digits);
    } else {
        let int = exp as usize + 1;
        if digits.len() <= int {
            out.push_str(digits);
            out.extend(std::iter::repeat_n('0', int - digits.len()));
        } else {
            out.push_str(&digits[..int]);
            out.push('.');
            out.push_str(&digits[int..]);
        }
    }
    Some(out)
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
///
/// One pass over the bytes for what a value nearly always is (a sign, digits, a fraction, an
/// exponent, nothing around them); anything else, the full reading (blanks, `Inf`, `NaN`).
pub fn looks_like_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize| {
        let from = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - from
    };
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let int = digits(&mut i);
    let frac = if b.get(i) == Some(&b'.') {
        i += 1;
        Some(digits(&mut i))
    } else {
        None
    };
    let mantissa = int > 0 || frac.is_some_and(|f| f > 0);
    match b.get(i) {
        None => mantissa,
        Some(b'e' | b'E') if mantissa => {
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            digits(&mut i) > 0 && i == b.len() || looks_like_number_in_full(s)
        }
        Some(_) => looks_like_number_in_full(s),
    }
}

/// [`looks_like_number`] for any text: blanks around it, `Inf`, `NaN`.
fn looks_like_number_in_full(s: &str) -> bool {
    let t = s.trim_start().trim_end_matches([' ', '\t', '\n', '\r']);
    let t = t.strip_prefix(['+', '-']).unwrap_or(t);
    if t.is_empty() {
        return false;
    }
    if ["inf", "infinity", "nan"]
        .iter()
        .any(|w| t.eq_ignore_ascii_case(w))
    {
        return true;
    }
    let (mantissa, exponent) = match t.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e)),
        None => (t, None),
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

/// The lines in the order of the scripts' final `sort -k<k>,<k>[n] ...` under
/// `LC_ALL=C.UTF-8`: the keys (1-based: metric, factorA, factorB, interval, value, extra)
/// are fields of the printed line as `sort` without `-t` cuts them ([`sort_field`]), compared
/// as bytes or, with `numeric`, by [`sort_n_cmp`]; ties broken by the whole line in byte order
/// (sort's last resort). Stable.
///
/// Lines in nearly that order already are sorted by insertion (`sort_nearly`); others are
/// printed once each and their keys encoded once ([`sort_order`]), so a comparison is one
/// comparison of bytes: dbench's thousands of lines sorted by re-cutting both lines at every
/// comparison were most of its parse.
pub fn sort_lines(mut lines: Vec<Line>, keys: &[(usize, bool)]) -> Vec<Line> {
    // Lines made in nearly the final order, as dbench's are, are sorted where they stand.
    let budget = 8 + lines.len() / 16;
    if sort_nearly(&mut lines, keys, budget) {
        return lines;
    }
    // Every line printed into one buffer; `ends[i]` where line i's text ends.
    let mut printed = String::with_capacity(lines.len() * 48);
    let mut ends: Vec<usize> = Vec::with_capacity(lines.len());
    for l in &lines {
        l.write_tsv(&mut printed);
        ends.push(printed.len());
    }
    let buffer = printed.as_bytes();
    let texts: Vec<&[u8]> = (0..ends.len())
        .map(|i| &buffer[if i == 0 { 0 } else { ends[i - 1] }..ends[i]])
        .collect();
    let mut order = sort_order(&texts, keys);
    // Position k takes the line at `order[k]`: each cycle of the permutation followed with
    // swaps, in place.
    for start in 0..order.len() {
        let mut at = start;
        while order[at] != usize::MAX {
            let from = std::mem::replace(&mut order[at], usize::MAX);
            if from == start {
                break;
            }
            lines.swap(at, from);
            at = from;
        }
    }
    lines
}

/// Sorts `lines` made in nearly [`sort_lines`]' order (dbench's, client by client and second
/// by second: only lines of the same second can be out of order) by insertion, comparing them
/// by [`plain_cmp`]: about one comparison a line. Gives up (`false`, the lines permuted) at a
/// line with a field that is empty or holds a blank, or past `budget` moves.
fn sort_nearly(lines: &mut [Line], keys: &[(usize, bool)], budget: usize) -> bool {
    let plain = |l: &Line| {
        l.fields()
            .iter()
            .all(|f| !f.is_empty() && !f.bytes().any(|b| b == b' ' || b == b'\t'))
    };
    let mut moves = 0;
    for i in 0..lines.len() {
        if !plain(&lines[i]) {
            return false;
        }
        let mut j = i;
        while j > 0 && plain_cmp(&lines[j - 1], &lines[j], keys) == Ordering::Greater {
            lines.swap(j - 1, j);
            j -= 1;
            moves += 1;
            if moves > budget {
                return false;
            }
        }
    }
    true
}

/// [`sort_cmp`] of two lines whose fields are all non-empty and without blanks, off their
/// fields: sort's field k is then the line's k-th (after one tab, which neither a text nor a
/// numeric comparison tells apart), and the whole text compares as the fields joined by tabs.
fn plain_cmp(x: &Line, y: &Line, keys: &[(usize, bool)]) -> Ordering {
    for &(k, numeric) in keys {
        let (a, b) = (x.field(k).as_bytes(), y.field(k).as_bytes());
        if a == b {
            continue;
        }
        let o = if numeric { sort_n_cmp(a, b) } else { a.cmp(b) };
        if o != Ordering::Equal {
            return o;
        }
    }
    let (fx, fy) = (x.fields(), y.fields());
    // A tie: the whole lines (rare enough to print them).
    let text = |fields: [&str; 6]| {
        let mut out = smallvec::SmallVec::<[u8; 64]>::new();
        for (i, f) in fields.into_iter().enumerate() {
            if i > 0 {
                out.push(b'\t');
            }
            out.extend_from_slice(f.as_bytes());
        }
        out
    };
    text(fx).cmp(&text(fy))
}

/// The order (indices into `lines`) GNU `sort -k<k>,<k>[n] ...` puts printed lines in, as
/// [`sort_cmp`] compares them; stable.
///
/// Each line's keys are encoded once into bytes whose plain order is [`sort_cmp`]'s: a text
/// key as its bytes (a NUL as `00 01`) ended by `00 00`; a numeric key as a sign byte (`01`
/// below zero, `02` otherwise), the integer digits' count (4 bytes, big-endian), the integer
/// and fraction digits (as [`sort_n_cmp`] reads them) and a `00`, every byte of it after the sign inverted
/// below zero (a larger magnitude is smaller); then the whole line, sort's last resort.
pub fn sort_order(lines: &[&[u8]], keys: &[(usize, bool)]) -> Vec<usize> {
    let mut encoded: Vec<u8> = Vec::with_capacity(lines.iter().map(|l| l.len() * 2 + 16).sum());
    let mut ends: Vec<usize> = Vec::with_capacity(lines.len());
    // Where each field of a line ends (`bounds[n]`, n from 1; `bounds[0]` is 0): field n, as
    // [`sort_field`] cuts it, is `bounds[n - 1]..bounds[n]`. One pass over the line.
    let last = keys.iter().map(|&(k, _)| k).max().unwrap_or(0);
    let mut bounds: Vec<usize> = Vec::with_capacity(last + 1);
    let blank = |c: u8| c == b' ' || c == b'\t';
    for line in lines {
        bounds.clear();
        bounds.push(0);
        let mut p = 0;
        for _ in 0..last {
            while p < line.len() && blank(line[p]) {
                p += 1;
            }
            while p < line.len() && !blank(line[p]) {
                p += 1;
            }
            bounds.push(p);
        }
        for &(k, numeric) in keys {
            let field = match k {
                0 => &[][..],
                k => &line[bounds[k - 1]..bounds[k]],
            };
            if numeric {
                let (negative, int, frac) = sort_n_parts(field);
                let from = encoded.len();
                encoded.push(2);
                encoded.extend_from_slice(&(int.len() as u32).to_be_bytes());
                encoded.extend_from_slice(int);
                encoded.extend_from_slice(frac);
                encoded.push(0);
                if negative {
                    encoded[from] = 1;
                    encoded[from + 1..].iter_mut().for_each(|b| *b = !*b);
                }
            } else if !field.contains(&0) {
                encoded.extend_from_slice(field);
                encoded.extend_from_slice(&[0, 0]);
            } else {
                for &b in field {
                    encoded.extend_from_slice(if b == 0 {
                        &[0, 1]
                    } else {
                        std::slice::from_ref(&b)
                    });
                }
                encoded.extend_from_slice(&[0, 0]);
            }
        }
        encoded.extend_from_slice(line);
        ends.push(encoded.len());
    }
    let key = |i: usize| &encoded[if i == 0 { 0 } else { ends[i - 1] }..ends[i]];
    // Each key's first eight bytes as a number: most comparisons end there.
    let head = |i: usize| {
        let mut b = [0u8; 8];
        let k = key(i);
        let n = k.len().min(8);
        b[..n].copy_from_slice(&k[..n]);
        u64::from_be_bytes(b)
    };
    let mut order: Vec<(u64, usize)> = (0..lines.len()).map(|i| (head(i), i)).collect();
    order.sort_by(|&(hx, x), &(hy, y)| hx.cmp(&hy).then_with(|| key(x).cmp(key(y))));
    order.into_iter().map(|(_, i)| i).collect()
}

/// GNU `sort -k<k>,<k>[n] ...` (no `-t`, C collation) on two printed lines: each key in
/// turn ([`sort_field`], [`sort_n_cmp`] where numeric), then the whole lines' bytes. The
/// comparison spelled out: the parsers sort through [`sort_order`], tested against it.
pub fn sort_cmp(a: &[u8], b: &[u8], keys: &[(usize, bool)]) -> Ordering {
    for &(k, numeric) in keys {
        let (x, y) = (sort_field(a, k), sort_field(b, k));
        let o = if numeric { sort_n_cmp(x, y) } else { x.cmp(y) };
        if o != Ordering::Equal {
            return o;
        }
    }
    a.cmp(b)
}

/// Field `n` (1-based) of a line as `sort -k` without `-t` cuts it: the blanks (space, tab)
/// before it and the non-blanks after them.
pub fn sort_field(line: &[u8], n: usize) -> &[u8] {
    let blank = |c: u8| c == b' ' || c == b'\t';
    let skip = |fields: usize| {
        let mut p = 0;
        for _ in 0..fields {
            while line.get(p).is_some_and(|&c| blank(c)) {
                p += 1;
            }
            while line.get(p).is_some_and(|&c| !blank(c)) {
                p += 1;
            }
        }
        p
    };
    let (start, end) = (skip(n.saturating_sub(1)), skip(n));
    line.get(start..end.max(start)).unwrap_or(&[])
}

/// GNU `sort -n`'s comparison of two keys under C.UTF-8: leading blanks skipped, an optional
/// `-` (no `+`), digits and one `.` (no thousands separator), compared exactly as decimals;
/// no number at all is 0, and `-0` equals `0`.
pub fn sort_n_cmp(a: &[u8], b: &[u8]) -> Ordering {
    let magnitude = |(i1, f1): (&[u8], &[u8]), (i2, f2): (&[u8], &[u8])| {
        i1.len().cmp(&i2.len()).then(i1.cmp(i2)).then(f1.cmp(f2))
    };
    let (na, ia, fa) = sort_n_parts(a);
    let (nb, ib, fb) = sort_n_parts(b);
    match (na, nb) {
        (false, true) => Ordering::Greater,
        (true, false) => Ordering::Less,
        (false, false) => magnitude((ia, fa), (ib, fb)),
        (true, true) => magnitude((ib, fb), (ia, fa)),
    }
}

/// A `sort -n` key as [`sort_n_cmp`] compares it: whether it is below zero, its integer
/// digits without leading zeros, its fraction's digits without trailing zeros.
fn sort_n_parts(s: &[u8]) -> (bool, &[u8], &[u8]) {
    let mut i = 0;
    while s.get(i).is_some_and(|&c| c == b' ' || c == b'\t') {
        i += 1;
    }
    let negative = s.get(i) == Some(&b'-');
    if negative {
        i += 1;
    }
    let start = i;
    while s.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    let int = s.get(start..i).unwrap_or(&[]);
    let int = &int[int.iter().take_while(|&&c| c == b'0').count()..];
    let mut frac: &[u8] = &[];
    if s.get(i) == Some(&b'.') {
        let from = i + 1;
        let mut j = from;
        while s.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        frac = s.get(from..j).unwrap_or(&[]);
        let keep = frac.len() - frac.iter().rev().take_while(|&&c| c == b'0').count();
        frac = &frac[..keep];
    }
    let zero = int.is_empty() && frac.is_empty();
    (negative && !zero, int, frac)
}

/// The number gawk reads from text (`$1 * 1000`, `-F :` parts): white space around it
/// ignored; a leading letter or a hexadecimal `0x` gives 0; exactly `+inf`, `-inf`, `+nan`,
/// `-nan` (any case) are those values; otherwise the longest decimal prefix
/// ([`strtod_prefix`]: `"01"` is 1, `"23.5s"` 23.5, `"x"` 0).
pub fn awk_value(s: &str) -> f64 {
    let t = s.trim_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let b = t.as_bytes();
    let Some(&first) = b.first() else {
        return 0.0;
    };
    if first.is_ascii_alphabetic() {
        return 0.0;
    }
    let unsigned = t.strip_prefix(['+', '-']);
    if let (Some(word), 4) = (unsigned, b.len()) {
        let magic = match word.to_ascii_lowercase().as_str() {
            "inf" => Some(f64::INFINITY),
            "nan" => Some(f64::NAN),
            _ => None,
        };
        if let Some(v) = magic {
            return if first == b'-' { -v } else { v };
        }
    }
    let body = unsigned.unwrap_or(t);
    if body.starts_with("0x") || body.starts_with("0X") {
        return 0.0;
    }
    strtod_prefix(t)
}

/// The number C's `strtod` reads at the very start of `s`, decimal only (no blanks skipped,
/// no `inf`, no hex): a sign, digits with an optional fraction, an exponent where digits
/// follow it; 0 without a digit. The core of awk's and perl's conversions.
pub fn strtod_prefix(s: &str) -> f64 {
    let b = s.as_bytes();
    let digits_from = |mut i: usize| {
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    let sign = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let int_end = digits_from(sign);
    let frac_end = if b.get(int_end) == Some(&b'.') {
        digits_from(int_end + 1)
    } else {
        int_end
    };
    if int_end == sign && frac_end <= int_end + 1 {
        return 0.0;
    }
    let mut end = frac_end;
    if matches!(b.get(end), Some(b'e' | b'E')) {
        let from = end + 1 + usize::from(matches!(b.get(end + 1), Some(b'+' | b'-')));
        let exp_end = digits_from(from);
        if exp_end > from {
            end = exp_end;
        }
    }
    s.get(..end).and_then(|t| t.parse().ok()).unwrap_or(0.0)
}

/// The records awk reads from a text (and the lines grep and sed see): split at `\n`, a
/// final newline ending the last record rather than starting an empty one; `\r` stays.
pub fn records(text: &str) -> impl Iterator<Item = &str> {
    // `text.split_terminator('\n')`, each newline found by `memchr`.
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let (record, tail) = match memchr::memchr(b'\n', rest.as_bytes()) {
            // (A newline is a character boundary on both sides.)
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, ""),
        };
        rest = tail;
        Some(record)
    })
}

/// The fields of a record as gawk's default splitting makes them: runs of space, tab and
/// newline separate (not `\r` or `\f`), leading and trailing ones dropped (`$1` is
/// `fields[0]`). Kept inline up to 16 fields: the parsers split every line of a log.
pub fn fields(record: &str) -> Fields<'_> {
    let blank = |b: u8| matches!(b, b' ' | b'\t' | b'\n');
    let bytes = record.as_bytes();
    let mut out = Fields::new();
    let mut i = 0;
    while i < bytes.len() {
        while i < bytes.len() && blank(bytes[i]) {
            i += 1;
        }
        let start = i;
        while i < bytes.len() && !blank(bytes[i]) {
            i += 1;
        }
        // (The separators are ASCII, so both ends are character boundaries.)
        if i > start {
            out.push(&record[start..i]);
        }
    }
    out
}

/// A record's [`fields`].
pub type Fields<'t> = smallvec::SmallVec<[&'t str; 16]>;

/// awk's `$n` (1-based) of split [`fields`]: empty past the last one (and for `$0`).
pub fn awk_field<'t>(fields: &[&'t str], n: usize) -> &'t str {
    n.checked_sub(1)
        .and_then(|i| fields.get(i))
        .copied()
        .unwrap_or("")
}

/// awk's `$NF`: the last field, or the (blank) record itself when it has none.
pub fn last_field(record: &str) -> &str {
    fields(record).last().copied().unwrap_or(record)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A metered parse is stopped once its tree's rows are spent (by it or by another
    /// parse of the tree), within a batch; one within them gives its value; a panic is told
    /// apart; lines made unmetered count against nothing.
    #[test]
    fn rows_are_charged_as_they_are_made() {
        let make = |n: u64| -> Vec<Line> {
            (0..n)
                .map(|i| Line::new("m", "a", "_", "1", format_compact!("{i}")))
                .collect()
        };
        let rows = std::sync::Arc::new(Rows::new(10_000));
        assert_eq!(metered(&rows, || make(9_000).len()), Ok(9_000));
        assert_eq!(rows.printed(), 9_000);
        let stopped = metered(&rows, || make(1_000_000).len());
        assert_eq!(stopped, Err(Stopped::Rows(10_000)));
        assert!(rows.printed() <= 10_000 + ROW_BATCH, "{}", rows.printed());
        let spent = std::sync::Arc::new(Rows::new(10));
        assert_eq!(
            metered(&spent, || make(11).len()),
            Err(Stopped::Rows(10)),
            "charged at the end"
        );
        let fresh = std::sync::Arc::new(Rows::new(10));
        assert_eq!(
            metered(&fresh, || -> usize { panic!("a parser's bug") }),
            Err(Stopped::Panicked)
        );
        assert_eq!(make(100_000).len(), 100_000, "unmetered");
        assert_eq!(fresh.printed(), 0);
    }

    #[test]
    fn records_are_split_terminator_s() {
        for text in [
            "",
            "\n",
            "a",
            "a\n",
            "a\nb",
            "a\n\nb\n\n",
            "é\nü",
            "\r\n\r\n",
        ] {
            let want: Vec<&str> = text.split_terminator('\n').collect();
            assert_eq!(records(text).collect::<Vec<_>>(), want, "{text:?}");
        }
    }

    #[test]
    fn records_split_into_fields_as_gawk_splits_them() {
        let cases: [(&str, &[&str]); 5] = [
            ("", &[]),
            ("  \t\n ", &[]),
            ("  a\tb \n c\r d ", &["a", "b", "c\r", "d"]),
            ("é×2  ünï", &["é×2", "ünï"]),
            ("x", &["x"]),
        ];
        for (record, want) in cases {
            assert_eq!(&fields(record)[..], want, "{record:?}");
        }
    }

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
            (1e30, "1000000000000000019884624838656"),
            (123456.5, "123456"),
            (1234567.89 / 1000.0, "1234.57"),
            (1e-7, "1e-07"),
            (1e-320, "9.99989e-321"),
            (-0.0, "0"),
            (f64::INFINITY, "+inf"),
            (-f64::NAN, "-nan"),
            (1195889.65 / 1000.0, "1195.89"),
            (0.519 * 1000.0, "519"),
        ] {
            assert_eq!(awk_num(v), s, "{v}");
        }
        assert_eq!(awk_num(awk_value("1e999") / 1000.0), "+inf");
        assert_eq!(format_g(f64::NEG_INFINITY, 15), "-inf");
        assert_eq!(format_g(-0.0, 6), "-0");
    }

    /// The shortcut through the shortest digits prints what exact formatting prints, for
    /// every precision it takes, on numbers of every size and digit count.
    #[test]
    fn format_g_shortcut_agrees_with_exact_formatting() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut taken = 0;
        for i in 0..200_000 {
            let v = match i % 4 {
                // Any bit pattern.
                0 => f64::from_bits(next()),
                // Decimals as logs write them: up to 8 digits, a point anywhere.
                1 => (next() % 100_000_000) as f64 / 10f64.powi((next() % 12) as i32),
                // Their quotients, as the parsers compute them.
                2 => (next() % 10_000_000) as f64 / 1000.0 / ((next() % 97) + 1) as f64,
                _ => -((next() % 1_000_000) as f64) * 10f64.powi((next() % 40) as i32 - 20),
            };
            if !v.is_finite() || v == 0.0 {
                continue;
            }
            for p in [1, 2, 6, 10, 15] {
                if let Some(fast) = format_g_shortest(v, p) {
                    taken += 1;
                    assert_eq!(fast, format_g_exact(v, p), "{v:e} at %.{p}g");
                }
            }
        }
        assert!(taken > 100_000, "the shortcut was taken {taken} times");
    }

    /// What gawk 5.2 made of these fields (`print $1 + 0`).
    #[test]
    fn numbers_read_as_gawk_reads_them() {
        for (text, value) in [
            ("01", 1.0),
            (" 23.5s", 23.5),
            ("x", 0.0),
            ("1e3x", 1000.0),
            ("+inf ", f64::INFINITY),
            ("-INF", f64::NEG_INFINITY),
            ("+infx", 0.0),
            ("+infinity", 0.0),
            ("inf", 0.0),
            ("+in", 0.0),
            ("\x0b12", 12.0),
            ("12 ", 12.0),
            ("1.e3", 1000.0),
            ("-.e3", 0.0),
            ("0x10", 0.0),
            ("-0x1a", 0.0),
            ("1e", 1.0),
            ("1e+", 1.0),
            (".5", 0.5),
            ("+5", 5.0),
            ("2^4", 2.0),
            ("1,5", 1.0),
            ("1.5.5", 1.5),
            ("-", 0.0),
            ("", 0.0),
        ] {
            assert_eq!(awk_value(text), value, "{text:?}");
        }
        assert!(awk_value(" +nan").is_nan());
        assert!(awk_value("-nan").is_sign_negative());
        assert_eq!(strtod_prefix(" 5"), 0.0);
        assert_eq!(strtod_prefix("-5.5e1x"), -55.0);
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

    proptest::proptest! {
        /// The one-pass reading of a number agrees with the full one.
        #[test]
        fn looks_like_number_in_one_pass_as_in_full(
            s in proptest::collection::vec(
                proptest::sample::select(vec![
                    "0", "1", "9", ".", "+", "-", "e", "E", " ", "\t", "\n", "x", "inf", "nan",
                    "Infinity", "\u{a0}",
                ]),
                0..8,
            )
        ) {
            let s = s.concat();
            proptest::prop_assert_eq!(looks_like_number(&s), looks_like_number_in_full(&s), "{:?}", s);
        }
    }

    #[test]
    fn sort_keys_follow_the_shell() {
        let lines: Vec<Line> = ["16", "4", "1", "x"]
            .iter()
            .map(|a| Line::new("files_sec", *a, "_", "1", "1"))
            .collect();
        let lines = sort_lines(lines, &[(1, false), (2, true)]);
        let order: Vec<&str> = lines.iter().map(|l| l.a.as_str()).collect();
        assert_eq!(order, ["x", "1", "4", "16"]);
        let lines = sort_lines(lines, &[(1, false), (4, true)]);
        let order: Vec<&str> = lines.iter().map(|l| l.a.as_str()).collect();
        assert_eq!(order, ["1", "16", "4", "x"]);
    }

    #[test]
    fn the_final_sort_reads_blank_separated_fields() {
        let line = |metric: &str, a: &str, interval: &str| Line::new(metric, a, "_", interval, "1");
        let sorted = sort_lines(
            vec![
                line("op-b", "16", "0"),
                line("op-b", "4", "-0"),
                line("op-b", "4", "0"),
                line("op-a", "100000000000000000001", "0"),
                line("op-a", "100000000000000000000", "0"),
                line("op a", "9", "0"),
                line("op-b", "x", "2.5"),
            ],
            &[(1, false), (2, true), (4, true)],
        );
        let got: Vec<String> = sorted
            .iter()
            .map(|l| format!("{} {} {}", l.metric, l.a, l.interval))
            .collect();
        assert_eq!(
            got,
            [
                // `op a`: key 1 is `op`, key 2 is ` a-...` (0), key 4 the `_` (0).
                "op a 9 0",
                "op-a 100000000000000000000 0",
                "op-a 100000000000000000001 0",
                "op-b x 2.5",
                "op-b 4 -0",
                "op-b 4 0",
                "op-b 16 0",
            ]
        );
        assert_eq!(sort_n_cmp(b"-0", b"0"), Ordering::Equal);
        assert_eq!(sort_n_cmp(b"-1.5", b"-1.25"), Ordering::Less);
        assert_eq!(sort_n_cmp(b" 0.50", b"0.5"), Ordering::Equal);
        assert_eq!(sort_field(b"a\t b c", 2), b"\t b");
        assert_eq!(sort_field(b"a", 3), b"");
    }

    /// Up to 40 lines of `fields` fields (a count in that range), each one of `values`.
    fn lines_of(
        values: Vec<&'static str>,
        fields: std::ops::Range<usize>,
    ) -> impl proptest::strategy::Strategy<Value = Vec<Vec<&'static str>>> {
        proptest::collection::vec(
            proptest::collection::vec(proptest::sample::select(values), fields),
            0..40,
        )
    }

    proptest::proptest! {
        /// The encoded keys order lines as comparing them field by field does, stably.
        #[test]
        fn encoded_keys_sort_as_sort_cmp(
            lines in lines_of(
                vec![
                    "", "0", "-0", "00", "0.0", "-0.00", "1", "01", "1.", "1.5", "1.50", "-1.5",
                    "-1.25", "-10", "10", "9", "99999999999999999999", ".5", "-.5", "a", "a\0",
                    "a\0b", "ab", "-", "_", " 2", "op-a", "op a", "x9", "\u{1}",
                ],
                0..7,
            ),
            keys in proptest::collection::vec((1usize..7, proptest::bool::ANY), 0..4),
        ) {
            let printed: Vec<Vec<u8>> = lines.iter().map(|f| f.join("\t").into_bytes()).collect();
            let texts: Vec<&[u8]> = printed.iter().map(Vec::as_slice).collect();
            let mut expected: Vec<usize> = (0..texts.len()).collect();
            expected.sort_by(|&x, &y| sort_cmp(texts[x], texts[y], &keys));
            proptest::prop_assert_eq!(sort_order(&texts, &keys), expected);
        }
    }

    proptest::proptest! {
        /// Lines sort as `sort_cmp` orders their printed text, stably: in any order, or
        /// nearly sorted with fields that let [`plain_cmp`] read the keys off them.
        #[test]
        fn lines_sort_as_their_printed_text(
            lines in lines_of(
                vec![
                    "0", "-0", "00", "1", "1.5", "1.50", "-1.5", "10", "9", "a", "a\u{1}", "ab",
                    "_", "op-a", "\u{1}", "R", "", " 2", "op a", "x\t9",
                ],
                6..7,
            ),
            plain_only in proptest::bool::ANY,
            keys in proptest::collection::vec((0usize..8, proptest::bool::ANY), 0..4),
            presorted in proptest::bool::ANY,
            swap in 0usize..40,
        ) {
            let pick = |f: &'static str| {
                let plain = !f.is_empty() && !f.contains([' ', '\t']);
                if plain_only && !plain { "x" } else { f }
            };
            let mut lines: Vec<Line> = lines
                .iter()
                .map(|f| Line::new(pick(f[0]), pick(f[1]), pick(f[2]), pick(f[3]), pick(f[4])).extra(pick(f[5])))
                .collect();
            let by_text = |x: &Line, y: &Line| sort_cmp(x.tsv().as_bytes(), y.tsv().as_bytes(), &keys);
            if presorted {
                lines.sort_by(by_text);
                if swap + 1 < lines.len() {
                    lines.swap(swap, swap + 1);
                }
            }
            let mut expected = lines.clone();
            expected.sort_by(by_text);
            let expected: Vec<String> = expected.iter().map(Line::tsv).collect();
            let got: Vec<String> = sort_lines(lines, &keys).iter().map(Line::tsv).collect();
            proptest::prop_assert_eq!(got, expected);
        }
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
