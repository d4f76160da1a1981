// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of mmtests (https://github.com/gormanm/mmtests) at 638401e07e70, modified (translated to Rust); see crates/mmtests-parse/PROVENANCE.md.
//! Bash and coreutils as mmtests' shell parsers use them (under `LC_ALL=C.UTF-8`): IFS word
//! splitting, `ls` listings (one name a line, byte order), `cut`, `awk -F`, `grep`, command
//! substitution, bash's `echo` and `read`, `sort -n`/`-u`, and a pipeline's printed rows made
//! [`Line`]s. [`Sh`] adds bash's pathname expansion of unquoted words against the members,
//! charged to a [`Budget`] so hostile names cannot make the work quadratic.
//!
//! GNU `sort -k` over printed rows is [`sort_lines`]/[`sort_cmp`] of the seam.

use std::borrow::Cow;
use std::collections::HashMap;

use super::budget::Budget;
use super::prelude::*;

/// Bash's word splitting of an unquoted expansion under the default IFS (space, tab,
/// newline); the same runs separate awk's default fields.
pub fn words(s: &str) -> impl Iterator<Item = &str> {
    s.split([' ', '\t', '\n']).filter(|w| !w.is_empty())
}

/// The lines `ls` prints for these names (to a pipe: one a line, a newline in a name as is).
pub fn ls_lines<'a>(names: impl IntoIterator<Item = &'a str>) -> impl Iterator<Item = &'a str> {
    names.into_iter().flat_map(|n| n.split('\n'))
}

/// The names (sorted) that start with `prefix`: the glob `prefix*`.
pub fn prefix_range<'n, 'a>(names: &'n [&'a str], prefix: &str) -> &'n [&'a str] {
    let start = names.partition_point(|n| *n < prefix);
    let tail = names.get(start..).unwrap_or(&[]);
    let len = tail.partition_point(|n| n.starts_with(prefix));
    tail.get(..len).unwrap_or(&[])
}

/// `cut -d<delim> -f<n>` of one line: a line without the delimiter is printed whole, a
/// missing field is empty.
pub fn cut(line: &str, delim: char, n: usize) -> &str {
    if !line.contains(delim) {
        return line;
    }
    n.checked_sub(1)
        .and_then(|i| line.split(delim).nth(i))
        .unwrap_or("")
}

/// `awk -F<sep> '{print $<n>}'` of one line: empty where the line has fewer fields.
pub fn awk_split(line: &str, sep: char, n: usize) -> &str {
    n.checked_sub(1)
        .and_then(|i| line.split(sep).nth(i))
        .unwrap_or("")
}

/// What `cat <name>` (or perl's plain `open`) hands a text tool: `None` for a missing member,
/// and for a `.gz`/`.xz` one, whose bytes are compressed data without a report.
pub fn cat<'a>(dir: &'a LogDir, name: &str) -> Option<&'a str> {
    if name.ends_with(".gz") || name.ends_with(".xz") {
        return None;
    }
    dir.get(name)
}

/// Whether GNU grep would call the raw bytes of this member binary and print nothing: a
/// NUL byte, or a `.gz`/`.xz` member read without decompression (their headers hold one).
pub fn raw_binary(name: &str, text: &str) -> bool {
    name.ends_with(".gz") || name.ends_with(".xz") || text.contains('\0')
}

/// GNU grep over a stream: the matching lines with their 1-based numbers; nothing for a
/// binary stream (grep 3.8 reports a binary match on stderr only). Two deviations: grep
/// reads large files in buffers and prints the matches before the buffer holding the
/// first NUL (tens of KiB in), this port none; lines that were invalid UTF-8 reach us
/// repaired (U+FFFD), where grep would suppress them.
pub fn grep(text: &str, binary: bool, pattern: impl Fn(&str) -> bool) -> Vec<(usize, &str)> {
    if binary {
        return Vec::new();
    }
    records(text)
        .enumerate()
        .filter(|(_, l)| pattern(l))
        .map(|(i, l)| (i + 1, l))
        .collect()
}

/// A command substitution's value: NUL bytes dropped (bash drops them), the rest read as
/// UTF-8 (invalid bytes replaced), trailing newlines removed.
pub fn backtick(bytes: &[u8]) -> String {
    let kept: Vec<u8> = bytes.iter().copied().filter(|&b| b != 0).collect();
    let mut s = String::from_utf8_lossy(&kept).into_owned();
    let end = s.trim_end_matches('\n').len();
    s.truncate(end);
    s
}

/// Bash's `echo` builtin (no `xpg_echo`) over already expanded words: leading option words
/// (`-` and any mix of `n`, `e`, `E`), the rest joined by spaces, escapes only with `-e`
/// ([`echo_escapes`], where `\c` also drops the newline).
pub fn echo<S: AsRef<str>>(args: &[S]) -> Vec<u8> {
    let (mut newline, mut escapes) = (true, false);
    let mut rest = args;
    while let Some((arg, tail)) = rest.split_first() {
        let Some(opts) = arg.as_ref().strip_prefix('-') else {
            break;
        };
        if opts.is_empty() || !opts.chars().all(|c| matches!(c, 'n' | 'e' | 'E')) {
            break;
        }
        for c in opts.chars() {
            match c {
                'n' => newline = false,
                'e' => escapes = true,
                _ => escapes = false,
            }
        }
        rest = tail;
    }
    let joined = rest
        .iter()
        .map(AsRef::as_ref)
        .collect::<Vec<&str>>()
        .join(" ");
    let (mut out, stopped) = if escapes {
        echo_escapes(&joined)
    } else {
        (joined.into_bytes(), false)
    };
    if newline && !stopped {
        out.push(b'\n');
    }
    out
}

/// `echo -e`'s escapes as bash 5.2 expands them; `true` when `\c` cut the output short.
/// Unknown escapes (`\1`, `\q`) and a lone trailing backslash stay as written.
pub fn echo_escapes(s: &str) -> (Vec<u8>, bool) {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let hex = |i: &mut usize, max: usize| -> Option<u32> {
        let mut v: Option<u32> = None;
        for _ in 0..max {
            let Some(d) = b.get(*i).and_then(|&c| char::from(c).to_digit(16)) else {
                break;
            };
            v = Some(v.unwrap_or(0).wrapping_mul(16).wrapping_add(d));
            *i += 1;
        }
        v
    };
    while let Some(&c) = b.get(i) {
        i += 1;
        if c != b'\\' {
            out.push(c);
            continue;
        }
        let Some(&e) = b.get(i) else {
            out.push(b'\\');
            break;
        };
        i += 1;
        match e {
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'c' => return (out, true),
            b'e' | b'E' => out.push(0x1b),
            b'f' => out.push(0x0c),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'v' => out.push(0x0b),
            b'\\' => out.push(b'\\'),
            b'0' => {
                let mut v = 0u32;
                for _ in 0..3 {
                    match b.get(i) {
                        Some(&d @ b'0'..=b'7') => {
                            v = v * 8 + u32::from(d - b'0');
                            i += 1;
                        }
                        _ => break,
                    }
                }
                out.push((v & 0xff) as u8);
            }
            b'x' => match hex(&mut i, 2) {
                Some(v) => out.push((v & 0xff) as u8),
                None => out.extend_from_slice(b"\\x"),
            },
            b'u' | b'U' => match hex(&mut i, if e == b'u' { 4 } else { 8 }) {
                Some(v) => {
                    let ch = char::from_u32(v).unwrap_or(char::REPLACEMENT_CHARACTER);
                    out.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes());
                }
                None => out.extend_from_slice(&[b'\\', e]),
            },
            _ => out.extend_from_slice(&[b'\\', e]),
        }
    }
    (out, false)
}

/// The row `echo -e "<metric>\t...\t_"` prints for `raw` (the script's format with its
/// `\t` separators, values pasted in). A value whose escapes would add or remove a field,
/// start a new line or cut the output (`\c`) gives a [`Problem`] in `file`.
pub fn echo_line(raw: &str, file: &str) -> Result<Line, Problem> {
    let refuse = |why: &str| {
        Problem::new(format!("parse-results' echo -e {why}; not reproduced")).in_file(file)
    };
    let (bytes, stopped) = echo_escapes(raw);
    if stopped {
        return Err(refuse("would stop at a `\\c` in a value"));
    }
    let text =
        String::from_utf8(bytes).map_err(|_| refuse("would print bytes that are not UTF-8"))?;
    if text.contains('\n') {
        return Err(refuse("would print a value spanning several lines"));
    }
    let fields: Vec<&str> = text.split('\t').collect();
    let [metric, a, b, interval, value, extra] = fields.as_slice() else {
        return Err(refuse(
            "would print a row whose values hold tabs or backslashes",
        ));
    };
    Ok(Line::new(*metric, *a, *b, *interval, *value).extra(*extra))
}

/// Bash's `read` (without `-r`) of `n` variables from `input`: one logical line (a
/// backslash escapes the next character, backslash-newline continues the line), split on
/// IFS blanks, the last variable taking the rest less trailing blanks.
pub fn bash_read(input: &str, n: usize) -> Vec<String> {
    let mut chars: Vec<(char, bool)> = Vec::new();
    let mut it = input.chars();
    while let Some(c) = it.next() {
        match c {
            '\\' => match it.next() {
                Some('\n') | None => {}
                Some(escaped) => chars.push((escaped, true)),
            },
            '\n' => break,
            _ => chars.push((c, false)),
        }
    }
    let sep = |&(c, escaped): &(char, bool)| !escaped && matches!(c, ' ' | '\t' | '\n');
    let mut vars = Vec::with_capacity(n);
    let mut pos = 0;
    while pos < chars.len() && sep(&chars[pos]) {
        pos += 1;
    }
    for k in 0..n {
        if k + 1 == n {
            let mut end = chars.len();
            while end > pos && sep(&chars[end - 1]) {
                end -= 1;
            }
            vars.push(chars[pos..end].iter().map(|&(c, _)| c).collect());
            break;
        }
        let start = pos;
        while pos < chars.len() && !sep(&chars[pos]) {
            pos += 1;
        }
        vars.push(chars[start..pos].iter().map(|&(c, _)| c).collect());
        while pos < chars.len() && sep(&chars[pos]) {
            pos += 1;
        }
    }
    vars
}

/// `sort -n` of lines: by leading number ([`sort_n_cmp`]), ties by the whole line in byte
/// order.
pub fn sort_n<S: AsRef<str>>(mut lines: Vec<S>) -> Vec<S> {
    lines.sort_by(|a, b| {
        let (a, b) = (a.as_ref().as_bytes(), b.as_ref().as_bytes());
        sort_n_cmp(a, b).then_with(|| a.cmp(b))
    });
    lines
}

/// `sort -u -n`: by leading number, keeping the first line (in input order) of each run of
/// numerically equal ones (`1`, `01`, and `x` with `0`, are duplicates).
pub fn sort_un<S: AsRef<str>>(mut lines: Vec<S>) -> Vec<S> {
    let cmp = |a: &S, b: &S| sort_n_cmp(a.as_ref().as_bytes(), b.as_ref().as_bytes());
    lines.sort_by(cmp);
    lines.dedup_by(|later, kept| cmp(later, kept).is_eq());
    lines
}

/// `sort -u` (or `sort | uniq`): byte order, identical lines once.
pub fn sort_u<S: Ord>(mut lines: Vec<S>) -> Vec<S> {
    lines.sort();
    lines.dedup();
    lines
}

/// The lines of a pipeline's printed bytes as the next command reads them (a last line
/// without a newline counts).
pub fn printed_lines(printed: &[u8]) -> Vec<&[u8]> {
    if printed.is_empty() {
        return Vec::new();
    }
    let body = printed.strip_suffix(b"\n").unwrap_or(printed);
    body.split(|&b| b == b'\n').collect()
}

/// A printed line as a [`Line`]: its tab-separated fields, the sixth keeping any further
/// tabs, missing ones empty (bytes that are not UTF-8 replaced).
pub fn to_line(printed: &[u8]) -> Line {
    let text = String::from_utf8_lossy(printed);
    let mut fields = text.splitn(6, '\t');
    let mut next = || -> Field { fields.next().unwrap_or("").into() };
    let (metric, a, b, interval, value) = (next(), next(), next(), next(), next());
    // (Through `Line::new`, so the row is charged to the tree's rows.)
    Line::new(metric, a, b, interval, value).extra(next())
}

/// A pipeline's printed bytes through `sort -k<k>,<k>[n] ...` ([`sort_order`]), each line then
/// made a [`Line`].
pub fn sort_printed(printed: &[u8], keys: &[(usize, bool)]) -> Vec<Line> {
    let lines = printed_lines(printed);
    sort_order(&lines, keys)
        .into_iter()
        .map(|i| to_line(lines[i]))
        .collect()
}

// ---------------------------------------------------------------------------------------
// The shell with pathname expansion.

/// What holding one more string costs beyond its bytes (its header and allocation).
const STRING_COST: u64 = 32;

/// One `logs/` directory as the script's shell sees it.
pub struct Sh<'a> {
    dir: &'a LogDir,
    /// Members in byte order (bash sorts glob results by `strcoll`, code points in C.UTF-8).
    names: Vec<&'a str>,
    pub budget: Budget<'a>,
    /// Pathname expansions already done, by word.
    globs: HashMap<String, Vec<String>>,
}

impl<'a> Sh<'a> {
    /// The directory with a budget of eight times its size plus 64 MiB: every glob
    /// comparison, file read and printed row is charged.
    pub fn new(dir: &'a LogDir) -> Sh<'a> {
        Sh {
            dir,
            names: dir.names().collect(),
            budget: Budget::new(dir, 8, 64 << 20),
            globs: HashMap::new(),
        }
    }

    /// Bash's pathname expansion of an unquoted word: the members it matches, else the word.
    /// Charged for the strings it hands out and the comparisons it makes.
    pub fn expand(&mut self, word: &str) -> Result<Vec<String>, Problem> {
        let found = self.glob(word)?;
        let cost = found.iter().map(|f| f.len() as u64 + STRING_COST).sum();
        self.budget.charge(cost)?;
        Ok(found)
    }

    fn glob(&mut self, word: &str) -> Result<Vec<String>, Problem> {
        if !word.contains(['*', '?', '[']) {
            return Ok(vec![word.to_owned()]);
        }
        if let Some(found) = self.globs.get(word) {
            return Ok(found.clone());
        }
        let chars = word.chars().count() as u64;
        self.budget.charge(chars.saturating_mul(8))?;
        let Some(toks) = glob_pattern(word, chars.saturating_mul(8) + 64) else {
            return Err(Problem::new(format!(
                "the shell would pathname-expand `{}`, a pattern too convoluted to evaluate",
                word.chars().take(40).collect::<String>()
            )));
        };
        if toks.iter().all(|t| matches!(t, Tok::Lit(_))) {
            return Ok(vec![word.to_owned()]);
        }
        let prefix: String = toks
            .iter()
            .map_while(|t| match t {
                Tok::Lit(c) => Some(*c),
                _ => None,
            })
            .collect();
        let explicit_dot = matches!(toks.first(), Some(Tok::Lit('.')));
        let start = self.names.partition_point(|n| *n < prefix.as_str());
        let mut found = Vec::new();
        for name in self.names.iter().skip(start) {
            if !name.starts_with(&prefix) {
                break;
            }
            self.budget.charge(name.len() as u64 + 1)?;
            if name.contains('/') || (name.starts_with('.') && !explicit_dot) {
                continue;
            }
            let cs: Vec<char> = name.chars().collect();
            let mut steps = 0;
            let hit = glob_match(&toks, &cs, &mut steps);
            self.budget.charge(steps)?;
            if hit {
                found.push((*name).to_owned());
            }
        }
        if found.is_empty() {
            found.push(word.to_owned());
        }
        self.globs.insert(word.to_owned(), found.clone());
        Ok(found)
    }

    /// `ls PATTERN` (stdout only): the existing members the pattern expands to, in byte
    /// order, as the lines `ls` prints (a name with a newline is two lines).
    pub fn ls(&mut self, pattern: &str) -> Result<Vec<String>, Problem> {
        let mut listed: Vec<String> = self
            .expand(pattern)?
            .into_iter()
            .filter(|n| self.dir.contains(n))
            .collect();
        listed.sort();
        let mut lines = Vec::new();
        for name in &listed {
            self.budget.charge(name.len() as u64 + 1)?;
            lines.extend(name.split('\n').map(str::to_owned));
        }
        Ok(lines)
    }

    /// The loop words of `for X in `...``: the text's IFS words, each pathname-expanded.
    pub fn words<S: AsRef<str>>(&mut self, lines: &[S]) -> Result<Vec<String>, Problem> {
        let mut out = Vec::new();
        for line in lines {
            for word in words(line.as_ref()) {
                out.extend(self.expand(word)?);
            }
        }
        Ok(out)
    }

    /// The member an unquoted file argument of `cmd` names, read once (`None`: no such
    /// member; the command prints only an error). Several members (a glob in the word)
    /// would make `cmd` label its output; refused.
    pub fn one_file(
        &mut self,
        word: &str,
        cmd: &str,
    ) -> Result<Option<(String, &'a str)>, Problem> {
        let mut files = self.expand(word)?;
        if files.len() > 1 {
            return Err(Problem::new(format!(
                "parse-results' `{cmd}` would read {} members (pathname expansion of `{word}`); not reproduced",
                files.len()
            )));
        }
        let Some(name) = files.pop() else {
            return Ok(None);
        };
        let Some(text) = self.dir.get(&name) else {
            return Ok(None);
        };
        self.budget.charge(text.len() as u64 + 1)?;
        Ok(Some((name, text)))
    }

    /// `cat WORD`: the members it expands to, concatenated, the first one's name, and
    /// whether grep would take the stream for binary.
    pub fn cat(&mut self, word: &str) -> Result<(String, Cow<'a, str>, bool), Problem> {
        let files = self.expand(word)?;
        let mut name = word.to_owned();
        let mut text: Cow<'a, str> = Cow::Borrowed("");
        let mut binary = false;
        let mut first = true;
        for file in files {
            let Some(t) = self.dir.get(&file) else {
                continue;
            };
            self.budget.charge(t.len() as u64 + 1)?;
            binary |= raw_binary(&file, t);
            if first {
                text = Cow::Borrowed(t);
                name = file;
                first = false;
            } else {
                text.to_mut().push_str(t);
            }
        }
        Ok((name, text, binary))
    }

    /// Appends a printed row, charging its size.
    pub fn push(&mut self, out: &mut Vec<Line>, line: Line) -> Result<(), Problem> {
        let size = [
            &line.metric,
            &line.a,
            &line.b,
            &line.interval,
            &line.value,
            &line.extra,
        ]
        .iter()
        .map(|f| f.len() as u64 + STRING_COST)
        .sum();
        self.budget.charge(size)?;
        out.push(line);
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// Bash patterns (`*`, `?`, `[...]`, `\x`) for pathname expansion.

/// One element of a parsed pattern.
enum Tok {
    Lit(char),
    Any,
    Star,
    Class { negated: bool, items: Vec<Item> },
}

/// One member of a bracket expression.
enum Item {
    Char(char),
    Range(char, char),
    Named(fn(char) -> bool),
}

impl Tok {
    fn matches(&self, c: char) -> bool {
        match self {
            Tok::Lit(l) => *l == c,
            Tok::Any => true,
            Tok::Star => false,
            Tok::Class { negated, items } => {
                let hit = items.iter().any(|item| match item {
                    Item::Char(x) => *x == c,
                    Item::Range(lo, hi) => (*lo..=*hi).contains(&c),
                    Item::Named(f) => f(c),
                });
                hit != *negated
            }
        }
    }
}

/// Parses a word as a bash pattern; `None` when parsing would take more than `limit` steps
/// (unterminated brackets rescanned over and over).
fn glob_pattern(word: &str, limit: u64) -> Option<Vec<Tok>> {
    let cs: Vec<char> = word.chars().collect();
    let mut steps = 0u64;
    let mut toks = Vec::new();
    let mut i = 0;
    while let Some(&c) = cs.get(i) {
        i += 1;
        match c {
            '\\' => match cs.get(i) {
                Some(&n) => {
                    toks.push(Tok::Lit(n));
                    i += 1;
                }
                None => toks.push(Tok::Lit('\\')),
            },
            '*' => {
                if !matches!(toks.last(), Some(Tok::Star)) {
                    toks.push(Tok::Star);
                }
            }
            '?' => toks.push(Tok::Any),
            '[' => match bracket(&cs, i, &mut steps) {
                Some((tok, next)) => {
                    toks.push(tok);
                    i = next;
                }
                None => toks.push(Tok::Lit('[')),
            },
            _ => toks.push(Tok::Lit(c)),
        }
        if steps > limit {
            return None;
        }
    }
    Some(toks)
}

/// A bracket expression starting after its `[` at `i`: the token and the index after its
/// `]`, or `None` when it is not closed (the `[` is then literal).
fn bracket(cs: &[char], mut i: usize, steps: &mut u64) -> Option<(Tok, usize)> {
    let negated = matches!(cs.get(i), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let mut items = Vec::new();
    let mut first = true;
    loop {
        *steps += 1;
        let c = *cs.get(i)?;
        if c == ']' && !first {
            return Some((Tok::Class { negated, items }, i + 1));
        }
        first = false;
        if c == '[' {
            if let Some(&kind @ (':' | '=' | '.')) = cs.get(i + 1) {
                let close = (i + 2..(i + 20).min(cs.len()))
                    .find(|&j| cs.get(j) == Some(&kind) && cs.get(j + 1) == Some(&']'));
                if let Some(end) = close {
                    let name: String = cs.get(i + 2..end).unwrap_or(&[]).iter().collect();
                    items.push(match kind {
                        ':' => Item::Named(char_class(&name)),
                        _ => {
                            let mut n = name.chars();
                            match (n.next(), n.next()) {
                                (Some(ch), None) => Item::Char(ch),
                                _ => Item::Named(|_| false),
                            }
                        }
                    });
                    i = end + 2;
                    continue;
                }
            }
        }
        let lo = if c == '\\' {
            i += 1;
            *cs.get(i)?
        } else {
            c
        };
        i += 1;
        if cs.get(i) == Some(&'-') && cs.get(i + 1).is_some_and(|&n| n != ']') {
            let mut j = i + 1;
            if cs.get(j) == Some(&'\\') {
                j += 1;
            }
            let hi = *cs.get(j)?;
            items.push(Item::Range(lo, hi));
            i = j + 1;
        } else {
            items.push(Item::Char(lo));
        }
    }
}

/// A POSIX character class by name (C.UTF-8); an unknown name matches nothing.
fn char_class(name: &str) -> fn(char) -> bool {
    match name {
        "alpha" => |c| c.is_alphabetic(),
        "digit" => |c| c.is_ascii_digit(),
        "alnum" => |c| c.is_alphanumeric(),
        "upper" => |c| c.is_uppercase(),
        "lower" => |c| c.is_lowercase(),
        "space" => |c| c.is_whitespace(),
        "blank" => |c| c == ' ' || c == '\t',
        "punct" => |c| c.is_ascii_punctuation(),
        "xdigit" => |c| c.is_ascii_hexdigit(),
        "cntrl" => |c| c.is_control(),
        "print" => |c| !c.is_control(),
        "graph" => |c| !c.is_control() && !c.is_whitespace(),
        "word" => |c| c.is_alphanumeric() || c == '_',
        _ => |_| false,
    }
}

/// Whether the whole name matches the pattern (`*` backtracking to its last position),
/// counting the steps taken into `steps`.
fn glob_match(toks: &[Tok], name: &[char], steps: &mut u64) -> bool {
    let (mut t, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    loop {
        *steps += 1;
        match toks.get(t) {
            Some(Tok::Star) => {
                star = Some((t + 1, n));
                t += 1;
                continue;
            }
            Some(tok) if name.get(n).is_some_and(|&c| tok.matches(c)) => {
                t += 1;
                n += 1;
                continue;
            }
            None if n == name.len() => return true,
            _ => {}
        }
        match star {
            Some((st, sn)) if sn < name.len() => {
                star = Some((st, sn + 1));
                t = st;
                n = sn + 1;
            }
            _ => return false,
        }
    }
}
