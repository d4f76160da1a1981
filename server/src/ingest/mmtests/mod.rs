// SPDX-License-Identifier: GPL-3.0-or-later
//! mmtests: a `.tar.gz` or `.tar` of a `work/log` tree. Every
//! `<run-name>/iter-N/<benchmark>/logs/` directory is read by the parser of the benchmark's
//! family (`families`, ports of mmtests' `parse-results`, found as mmtests finds them:
//! `netperf-udp-rr` is netperf's) into mmtests' intermediate rows, and those become samples
//! of the run `<benchmark>` on the kernel `<run-name>` (`lines`). Members compressed as
//! mmtests leaves them (`.gz`, `.xz`) are read decompressed.
//!
//! Nothing is skipped silently: the upload's answer (`TreeDir`) says, per directory, what was read and what was not
//! and why; a tree is refused only when nothing in it is readable.
//!
//! Archives are read in memory under limits (entry count, entry size, the text held at
//! once) and within the upload's [`Budget`]: every byte the archive and its compressed
//! members inflate to is charged to the upload's inflation allowance as it is inflated, and
//! every row a family's parser prints to its rows (`family::Rows`), before the rows are
//! grouped; entries are never written to disk, and a path with `..` or an absolute path is
//! refused.
//!
//! The walk is one thread inflating the archive; each directory goes to the pool to be parsed
//! as soon as the walk has left it (`Dirs`), so parsing overlaps the walk. A `.gz`/`.xz` member
//! stays packed until its parser reads it (`LogDir::insert_packed`, inflated by the reader's
//! `Unpack`), as mmtests never opens a log its `parse-results` does not read; a broken one that
//! is read leaves its directory out with the file named, one past the upload's bounds refuses
//! the upload (`OpenDir::outcome`). A directory met again later in the tar (members not grouped
//! by directory), or whose iteration's `numactl.txt` came after it was sent, is parsed again at
//! the end with everything; outcomes and errors are taken in tree order, each as soon as its
//! parse is in, so the answer does not depend on the pool's timing. The tar crate skips what is
//! not read through a forward-only `Seek` on the capped reader, so skipped bytes count against
//! the inflation limit like read ones. Every `Line` made while a parser runs `metered` is
//! charged to the tree's `Rows`; once they are spent the parser is unwound where it stands
//! (caught with the parser's panics), so no parser needs bookkeeping of its own.

use std::io::Read;

use app::label::Direction;

use super::{resolve_key, Budget, Inflated, IngestError, ParsedRun, RunBuilder, UploadMeta};

pub use mmtests_parse as family;
pub use mmtests_parse::families;
pub mod lines;
pub mod rows;
mod shellpacks;

use app::types::TreeDir;
use family::LogDir;

/// What mmtests' `shellpack.yaml` says about comparing a family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shellpack {
    /// The directory under `shellpack_src/src/`.
    pub name: &'static str,
    pub summarise: app::mmtests::Summarise,
    /// `preferhigher` as ExtractShellpack.pm accepts it (else lower is better).
    pub higher: bool,
    /// `DecimalPlaces`, else 2.
    pub precision: usize,
}

impl Shellpack {
    /// The shellpack of a benchmark directory under `iter-N` as ExtractFactory finds it:
    /// the name, then with one `-suffix` after another stripped (`netperf-udp-rr`,
    /// `netperf-udp`, `netperf`).
    pub fn of(benchmark: &str) -> Option<&'static Shellpack> {
        let mut name = benchmark;
        loop {
            if let Some(s) = shellpacks::SHELLPACKS.iter().find(|s| s.name == name) {
                return Some(s);
            }
            let (stem, tail) = name.rsplit_once('-')?;
            if !tail
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
            {
                return None;
            }
            name = stem;
        }
    }

    /// Every shellpack with a result parser, by name.
    pub fn all() -> &'static [Shellpack] {
        shellpacks::SHELLPACKS
    }
}

/// The most entries one archive may have.
pub const MAX_ENTRIES: usize = 200_000;
/// The largest single entry, whatever its type (a directory may not declare 2 GiB either).
pub const MAX_ENTRY: u64 = 64 << 20;
/// The largest GNU long-name or PAX extension header (the tar crate reads them whole).
pub const MAX_EXTENSION: u64 = 64 << 10;
/// The most text of logs held at once (members decompressed), over the whole tree, however
/// large the upload's inflation allowance ([`Budget`]).
pub const MAX_TEXT: u64 = 256 << 20;

pub fn detect(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x1f, 0x8b]) || bytes.get(257..262) == Some(b"ustar")
}

/// Where a log sits in the tree.
struct Place<'a> {
    kernel: &'a str,
    iter: i64,
    benchmark: &'a str,
    /// The member's path under `logs/` (specjbb and sstartup write subdirectories).
    file: String,
}

/// A member path's components, empty ones and `.` left out: cut once for every question the
/// walk asks of the path.
type Parts<'a> = smallvec::SmallVec<[&'a str; 12]>;

fn parts(path: &str) -> Parts<'_> {
    // Cut at each `/` byte (a character boundary on both sides), not by `split('/')`'s char
    // searcher: a tree's 5,000 paths were 1 % of its parse.
    let mut out = Parts::new();
    let mut start = 0;
    for end in memchr::memchr_iter(b'/', path.as_bytes()).chain([path.len()]) {
        let part = &path[start..end];
        if !part.is_empty() && part != "." {
            out.push(part);
        }
        start = end + 1;
    }
    out
}

fn place<'a>(parts: &[&'a str]) -> Option<Place<'a>> {
    let i = parts.iter().position(|p| {
        p.strip_prefix("iter-")
            .is_some_and(|n| n.parse::<i64>().is_ok())
    })?;
    if i == 0 || parts.get(i + 2) != Some(&"logs") || parts.len() < i + 4 {
        return None;
    }
    Some(Place {
        kernel: parts[i - 1],
        iter: parts[i].trim_start_matches("iter-").parse().ok()?,
        benchmark: parts[i + 1],
        file: parts[i + 3..].join("/"),
    })
}

/// The runs of a tree uploaded alone.
pub fn parse(bytes: &[u8], meta: &UploadMeta) -> Result<Vec<ParsedRun>, IngestError> {
    let budget = Budget::for_upload(bytes.len() as u64);
    parse_tree(bytes, meta, &budget).map(|(runs, _)| runs)
}

/// The runs of a tree and what was read of each of its directories, within the upload's
/// `budget`.
pub fn parse_tree(
    bytes: &[u8],
    meta: &UploadMeta,
    budget: &Budget,
) -> Result<(Vec<ParsedRun>, Vec<TreeDir>), IngestError> {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        // Inflated 64 KiB at a time: the tar reader's 512-byte header reads would otherwise
        // each be an inflate call of their own, mostly off zlib's fast path.
        // (Read straight from the upload's bytes: `bufread`, not `read`, which copies them
        // through a buffer of its own first.)
        let inflated =
            std::io::BufReader::with_capacity(64 << 10, flate2::bufread::GzDecoder::new(bytes));
        read_tar(Capped::new(inflated, budget), meta)
    } else {
        read_tar(Capped::new(bytes, budget), meta)
    }
}

/// A reader that charges every byte read through it to the upload's inflation allowance and
/// fails once it is spent, so the tar reader can never inflate more than the allowance,
/// whatever the headers claim (nor the compressed members, charged to the same).
struct Capped<R> {
    inner: R,
    budget: Budget,
    /// The bytes read through it.
    read: u64,
    /// Where skipped bytes are read to (see the `Seek` impl), made once.
    scratch: Box<[u8]>,
}

impl<R> Capped<R> {
    fn new(inner: R, budget: &Budget) -> Self {
        Capped {
            inner,
            budget: budget.clone(),
            read: 0,
            scratch: vec![0; 16 << 10].into_boxed_slice(),
        }
    }
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        charged_read(&mut self.inner, buf, &self.budget).inspect(|n| self.read += *n as u64)
    }
}

/// Reads from `inner` into `buf` at most what `budget` still allows (and one byte more, to
/// tell "exactly spent" from "over"), charged to it.
fn charged_read<R: Read>(inner: &mut R, buf: &mut [u8], budget: &Budget) -> std::io::Result<usize> {
    let left = budget.allowance().saturating_sub(budget.inflated());
    let max = buf
        .len()
        .min(left.saturating_add(1).min(usize::MAX as u64) as usize);
    let n = inner.read(&mut buf[..max])?;
    budget.inflate(n as u64).map_err(std::io::Error::other)?;
    Ok(n)
}

/// A decoder of a compressed member whose output is charged to the upload's inflation
/// allowance as it comes.
struct Charged<'b, R> {
    inner: R,
    budget: &'b Budget,
}

impl<R: Read> Read for Charged<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        charged_read(&mut self.inner, buf, self.budget)
    }
}

/// Forward skips only, read on and thrown away (counted like any read): the tar reader skips
/// the rest of each entry and its padding through this (`entries_with_seek`); without it, it
/// zeroes a fresh 32 KiB buffer for every skip, 3 % of a tree's parse.
impl<R: Read> std::io::Seek for Capped<R> {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        let std::io::SeekFrom::Current(n @ 0..) = pos else {
            return Err(std::io::Error::new(
                std::io::ErrorKind::Unsupported,
                "an archive is read forward only",
            ));
        };
        let mut skip = n as u64;
        let mut scratch = std::mem::take(&mut self.scratch);
        let skipped = loop {
            if skip == 0 {
                break Ok(());
            }
            let want = scratch.len().min(skip.min(usize::MAX as u64) as usize);
            match self.read(&mut scratch[..want]) {
                Ok(0) => break Err(std::io::ErrorKind::UnexpectedEof.into()),
                Ok(got) => skip -= got as u64,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        self.scratch = scratch;
        skipped.map(|()| self.read)
    }
}

/// An I/O error of the archive as the upload's error: the inflation limit by name, else
/// a broken archive.
fn archive_error(e: std::io::Error) -> IngestError {
    match e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<Inflated>())
    {
        Some(limit) => IngestError::new(limit.to_string()),
        None => IngestError::new(format!("the archive is broken or truncated: {e}")),
    }
}

/// A logs directory's place: (kernel, benchmark, iteration).
type DirKey = (String, String, i64);
/// A member of a logs directory: its name under `logs/`, its bytes as the archive holds
/// them (a `.gz` or `.xz` log is decompressed when its parser first reads it).
type Member = (String, Vec<u8>);

/// What the readers of a tree share: the bytes of text held so far (bounded by
/// [`MAX_TEXT`]), the upload's budget (inflation, charged as members inflate), and the rows
/// the tree's parsers may print.
#[derive(Clone)]
struct Held {
    text: std::sync::Arc<std::sync::atomic::AtomicU64>,
    budget: Budget,
    rows: std::sync::Arc<family::Rows>,
}

impl Held {
    fn new(budget: &Budget) -> Held {
        Held {
            text: Default::default(),
            budget: budget.clone(),
            rows: std::sync::Arc::new(family::Rows::new(budget.rows_left())),
        }
    }

    /// A member's text (inflated if its name says `.gz` or `.xz`), within the text a tree
    /// may hold and the upload's inflation allowance; held from then on.
    fn text(&self, name: &str, raw: std::borrow::Cow<'_, [u8]>) -> Result<String, Unreadable> {
        use std::sync::atomic::Ordering::Relaxed;
        let left = MAX_TEXT.saturating_sub(self.text.load(Relaxed));
        let text = member_text(name, raw, left, &self.budget)?;
        self.text.fetch_add(text.len() as u64, Relaxed);
        Ok(text)
    }

    /// `parse` with the rows it prints charged to the tree's: the upload refused if they ran
    /// out, the directory if the parser panicked.
    fn metered(&self, parse: impl FnOnce() -> ParsedDir) -> ParsedDir {
        match family::metered(&self.rows, parse) {
            Ok(parsed) => parsed,
            Err(family::Stopped::Rows(limit)) => Err(too_many_rows(limit)),
            // A parser (or a decoder) that panics refuses its directory, not the process.
            Err(family::Stopped::Panicked) => {
                Err(IngestError::new("a log directory could not be read"))
            }
        }
    }
}

/// The refusal of a tree whose parsers printed more rows than the upload may hold.
fn too_many_rows(limit: u64) -> IngestError {
    IngestError::new(format!(
        "the tree's logs give more than {limit} rows (at most {} samples in one upload, over all its files, and a row per {} bytes of its inflation allowance); split it",
        super::MAX_SAMPLES,
        super::budget::INFLATED_PER_ROW,
    ))
}

/// What a logs directory's parse gave: its members as read, and its parser's outcome.
type ParsedDir = Result<(OpenDir, Outcome), IngestError>;

/// One logs directory of the tree.
struct Slot {
    key: DirKey,
    /// Its members until it is sent to be parsed.
    members: Vec<Member>,
    sent: bool,
    /// Members met after it was sent (a tar whose members are not grouped by directory).
    late: Vec<Member>,
    /// Which of its iteration's `numactl.txt` went with it (its number among those read).
    numa_given: Option<usize>,
}

/// The logs directories of a tree as the walk meets them. Each is parsed on the pool as soon
/// as the walk has left it (its compressed logs inflated as its parser reads them), so the
/// parsers run while the walk goes on. A directory met again later, or whose iteration's
/// `numactl.txt` comes after it was sent, is parsed again at the end with everything.
struct Dirs {
    index: std::collections::BTreeMap<DirKey, usize>,
    slots: Vec<Slot>,
    /// The directory the walk is adding to.
    current: Option<usize>,
    /// Left by the walk, to be sent in this order (a directory the walk came back to may
    /// be here more than once; it is sent once).
    waiting: std::collections::VecDeque<usize>,
    parsed: std::sync::mpsc::Receiver<(usize, ParsedDir)>,
    send: std::sync::mpsc::Sender<(usize, ParsedDir)>,
    /// Set when the upload is refused: parses not yet started are not.
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// The text of the tree's members so far, against [`MAX_TEXT`].
    held: Held,
}

impl Dirs {
    fn new(budget: &Budget) -> Dirs {
        let (send, parsed) = std::sync::mpsc::channel();
        Dirs {
            index: Default::default(),
            slots: Vec::new(),
            current: None,
            waiting: Default::default(),
            parsed,
            send,
            stop: Default::default(),
            held: Held::new(budget),
        }
    }

    /// Adds a member to its directory; a directory the walk leaves waits to be sent.
    fn add(&mut self, key: DirKey, member: Member) {
        // Mostly the directory of the member before it.
        let current = self.current.filter(|&slot| self.slots[slot].key == key);
        let slot = match current.or_else(|| self.index.get(&key).copied()) {
            Some(slot) => slot,
            None => {
                self.slots.push(Slot {
                    key: key.clone(),
                    members: Vec::new(),
                    sent: false,
                    late: Vec::new(),
                    numa_given: None,
                });
                self.index.insert(key, self.slots.len() - 1);
                self.slots.len() - 1
            }
        };
        if self.current != Some(slot) {
            if let Some(left) = self.current.replace(slot) {
                self.waiting.push_back(left);
            }
        }
        let s = &mut self.slots[slot];
        if s.sent {
            s.late.push(member);
            return;
        }
        s.members.push(member);
    }

    /// Sends the directories the walk has left, in that order (with `all`, every directory
    /// not sent yet: the walk is over). Constant work an entry of the walk, whatever the tree.
    fn send_ready(&mut self, numa: &NumaTexts, all: bool) {
        if all {
            self.waiting.extend(self.current.take());
        }
        while let Some(slot) = self.waiting.pop_front() {
            // Sent already, or the walk came back to it (it waits again once left).
            if !self.slots[slot].sent && self.current != Some(slot) {
                self.send(slot, numa);
            }
        }
    }

    /// Sends directory `slot` to be parsed on the pool.
    fn send(&mut self, slot: usize, numa: &NumaTexts) {
        let s = &mut self.slots[slot];
        let given = numa.get(&(s.key.0.clone(), s.key.2));
        s.numa_given = given.map(|(_, n)| *n);
        let numa_text = given.map(|(text, _)| text.clone());
        s.sent = true;
        let (members, key) = (std::mem::take(&mut s.members), s.key.clone());
        let (send, stop, held) = (self.send.clone(), self.stop.clone(), self.held.clone());
        let cancel = super::cancel::current();
        parse_pool_spawn(move || {
            use std::sync::atomic::Ordering::Relaxed;
            let parsed = if cancel.is_some_and(|c| c.load(Relaxed)) || stop.load(Relaxed) {
                Err(super::cancelled())
            } else {
                held.metered(|| read_dir(&key, members, numa_text, &held))
            };
            // The walk may have failed and gone: nobody to tell.
            let _ = send.send((slot, parsed));
        });
    }

    /// Every directory's key and outcome, in tree order, each as soon as its parse is in
    /// (the walk is over): the runs are built from the first
    /// directories while the pool still parses the last. An error (the first directory that
    /// could not be read, in that order) ends the upload; the rest are not waited for.
    fn finish(
        mut self,
        numa: &NumaTexts,
    ) -> impl Iterator<Item = Result<(DirKey, Outcome), IngestError>> + '_ {
        self.send_ready(numa, true);
        let mut parsed: Vec<Option<ParsedDir>> = (0..self.slots.len()).map(|_| None).collect();
        let order = std::mem::take(&mut self.index);
        order
            .into_iter()
            .map(move |(key, slot)| self.outcome(key, slot, &mut parsed, numa))
    }

    /// Directory `slot`'s outcome, once its parse is in (those in before it are kept in
    /// `parsed` for their turn); parsed again if members or a NUMA map came after it was sent.
    fn outcome(
        &mut self,
        key: DirKey,
        slot: usize,
        parsed: &mut [Option<ParsedDir>],
        numa: &NumaTexts,
    ) -> Result<(DirKey, Outcome), IngestError> {
        let unread = || IngestError::new("a log directory could not be read");
        if !self.slots[slot].sent {
            return Err(unread());
        }
        while parsed[slot].is_none() {
            let Ok((from, result)) = self.parsed.recv() else {
                return Err(unread());
            };
            parsed[from] = Some(result);
        }
        let (mut dir, outcome) = parsed[slot].take().unwrap_or_else(|| Err(unread()))?;
        let s = &mut self.slots[slot];
        let numa_now = numa.get(&(key.0.clone(), key.2));
        // A map read after the directory was sent (or another read after the one it got).
        let numa_late = numa_now.is_some_and(|(_, n)| s.numa_given != Some(*n));
        if s.late.is_empty() && !numa_late {
            return Ok((key, outcome));
        }
        // Met again after it was parsed: parsed again, with everything.
        let late = std::mem::take(&mut s.late);
        dir.add(late)?;
        if let Some((text, _)) = numa_now {
            dir.dir.insert(NUMA_MEMBER, text.clone());
        }
        let held = self.held.clone();
        let (dir, outcome) = held.metered(|| {
            let outcome = parse_dir(&key.1, key.2, &dir.dir);
            Ok((dir, outcome))
        })?;
        Ok((key, dir.outcome(outcome)?))
    }
}

impl Drop for Dirs {
    /// An upload refused half-way: the parses not started yet are not.
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// `numactl --hardware` of each (kernel, iteration), saladfork reads it beside its logs; and
/// its number among the maps read (the last read of an iteration is the one used).
type NumaTexts = std::collections::HashMap<(String, i64), (String, usize)>;

/// A directory as its parser reads it, and what went wrong inflating the compressed logs it
/// read.
struct OpenDir {
    dir: LogDir,
    failed: Failures,
    /// `<kernel>/iter-N/<benchmark>/logs/`, to name a member in an error.
    prefix: String,
    /// The tree's text so far, against [`MAX_TEXT`], and the upload's budget.
    held: Held,
}

/// The first failures of a directory's packed logs, shared with its [`family::Unpack`].
type Failures = std::sync::Arc<std::sync::Mutex<Failed>>;

#[derive(Default)]
struct Failed {
    /// A log past a bound of the upload: the upload is refused.
    refused: Option<IngestError>,
    /// A log whose stream is broken: the directory is not read.
    broken: Option<family::Problem>,
}

impl OpenDir {
    /// Directory `key`, its compressed logs decompressed as they are read, within the tree's
    /// text budget and the upload's inflation allowance.
    fn new((kernel, benchmark, iter): &DirKey, held: &Held) -> OpenDir {
        let prefix = format!("{kernel}/iter-{iter}/{benchmark}/logs/");
        let failed = Failures::default();
        let unpack = {
            let (prefix, held, failed) = (prefix.clone(), held.clone(), failed.clone());
            family::Unpack(std::sync::Arc::new(move |name: &str, raw: &[u8]| {
                let e = match held.text(name, raw.into()) {
                    Ok(text) => return Some(text),
                    Err(e) => e,
                };
                let mut failed = failed
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                match e {
                    Unreadable::TooBig(e) => {
                        failed
                            .refused
                            .get_or_insert(e.in_file(&format!("{prefix}{name}")));
                    }
                    Unreadable::Broken(message) => {
                        failed
                            .broken
                            .get_or_insert(family::Problem::new(message).in_file(name));
                    }
                }
                None
            }))
        };
        OpenDir {
            dir: LogDir::unpacking(benchmark, unpack),
            failed,
            prefix,
            held: held.clone(),
        }
    }

    /// Adds `members`: a `.gz` or `.xz` log as it is packed (inflated when read), any other
    /// as text now.
    fn add(&mut self, members: Vec<Member>) -> Result<(), IngestError> {
        for (name, raw) in members {
            if name.ends_with(".gz") || name.ends_with(".xz") {
                self.dir.insert_packed(&name, raw);
                continue;
            }
            let text = self
                .held
                .text(&name, raw.into())
                .map_err(|e| IngestError::from(e).in_file(&format!("{}{name}", self.prefix)))?;
            self.dir.insert(&name, text);
        }
        Ok(())
    }

    /// What the parser made of the directory, given what became of the logs it read: the
    /// upload refused if one was past a bound, the directory not read (and why) if one was
    /// broken.
    fn outcome(&self, parsed: Outcome) -> Result<Outcome, IngestError> {
        let mut failed = self
            .failed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(e) = failed.refused.take() {
            return Err(e);
        }
        // Kept: a directory parsed again (members met later) does not inflate the log again.
        Ok(match (failed.broken.clone(), parsed) {
            (Some(p), Outcome::Lines(shellpack, ..) | Outcome::Problem(shellpack, _)) => {
                Outcome::Problem(shellpack, p)
            }
            (_, parsed) => parsed,
        })
    }
}

/// A logs directory through its family's parser (on the parse pool).
fn read_dir(key: &DirKey, members: Vec<Member>, numa: Option<String>, held: &Held) -> ParsedDir {
    let mut dir = OpenDir::new(key, held);
    dir.add(members)?;
    if let Some(text) = numa {
        dir.dir.insert(NUMA_MEMBER, text);
    }
    let outcome = dir.outcome(parse_dir(&key.1, key.2, &dir.dir))?;
    Ok((dir, outcome))
}

/// Reads the archive's entries raw (the tar crate would read GNU long names and PAX headers
/// whole, before any check of ours), applying the long names and PAX paths itself.
fn read_tar<R: Read>(
    reader: Capped<R>,
    meta: &UploadMeta,
) -> Result<(Vec<ParsedRun>, Vec<TreeDir>), IngestError> {
    let budget = reader.budget.clone();
    let mut archive = tar::Archive::new(reader);
    // Each logs directory's members, parsed once the walk has left the directory.
    let mut dirs = Dirs::new(&budget);
    let rows = dirs.held.rows.clone();
    let mut numa = NumaTexts::default();
    let mut numa_replaced = 0;
    // Each kernel's benchmarks in the order they ran (its `tests-activity`).
    let mut order: std::collections::HashMap<String, Vec<String>> = Default::default();
    let mut system: std::collections::BTreeMap<String, Vec<(String, String)>> = Default::default();
    let mut count = 0usize;
    let mut content = String::new();
    // A GNU long name or a PAX `path` for the next entry.
    let mut long_path: Option<Vec<u8>> = None;
    for entry in archive
        .entries_with_seek()
        .map_err(archive_error)?
        .raw(true)
    {
        let mut entry = entry.map_err(archive_error)?;
        count += 1;
        if count.is_multiple_of(1024) && super::cancel::requested() {
            return Err(super::cancelled());
        }
        dirs.send_ready(&numa, false);
        if count > MAX_ENTRIES {
            return Err(IngestError::new(format!(
                "the archive has more than {MAX_ENTRIES} entries"
            )));
        }
        let kind = entry.header().entry_type();
        let size = entry.header().entry_size().map_err(archive_error)?;
        let extension = kind.is_gnu_longname()
            || kind.is_gnu_longlink()
            || kind.is_pax_local_extensions()
            || kind.is_pax_global_extensions();
        if extension {
            if size > MAX_EXTENSION {
                return Err(IngestError::new(format!(
                    "an extension header (long name or PAX) of {size} bytes; at most {MAX_EXTENSION} are accepted"
                )));
            }
            let mut data = Vec::with_capacity(size as usize);
            entry
                .by_ref()
                .take(MAX_EXTENSION)
                .read_to_end(&mut data)
                .map_err(archive_error)?;
            if kind.is_gnu_longname() {
                while data.last() == Some(&0) {
                    data.pop();
                }
                long_path = Some(data);
            } else if kind.is_pax_local_extensions() {
                for ext in tar::PaxExtensions::new(&data) {
                    let ext = ext.map_err(archive_error)?;
                    if ext.key_bytes() == b"path" {
                        long_path = Some(ext.value_bytes().to_vec());
                    }
                }
            }
            continue;
        }
        let raw_path = match long_path.take() {
            Some(p) => p,
            None => entry.path_bytes().into_owned(),
        };
        let path = String::from_utf8_lossy(&raw_path).into_owned();
        if size > MAX_ENTRY {
            return Err(IngestError::new(format!(
                "entry declares {size} bytes; at most {MAX_ENTRY} are accepted"
            ))
            .in_file(&path));
        }
        if path.starts_with('/') || path.split('/').any(|p| p == "..") {
            return Err(
                IngestError::new("the archive entry path leaves the archive").in_file(&path),
            );
        }
        if !kind.is_file() {
            continue;
        }
        // A results log, or a system file beside the results (kernel config, uname, lscpu,
        // sysctl...); anything else is skipped unread.
        let parts = parts(&path);
        let results = place(&parts);
        let system_file = if results.is_none() {
            system_place(&parts)
        } else {
            None
        };
        // A member read whole as text, into `content`.
        let read_text = |entry: &mut tar::Entry<'_, Capped<R>>, content: &mut String| {
            content.clear();
            entry
                .by_ref()
                .take(MAX_ENTRY)
                .read_to_string(content)
                .map_err(|e| archive_error(e).in_file(&path))
        };
        if let Some(kernel) = activity_place(&parts) {
            read_text(&mut entry, &mut content)?;
            order.insert(kernel.to_owned(), tests_started(&content));
            continue;
        }
        // A member read whole, as the archive holds it: exactly the size its header gives
        // (at most `MAX_ENTRY`, checked above), without `read_to_end`'s probe past the end.
        let read_raw = |entry: &mut tar::Entry<'_, Capped<R>>| -> Result<Vec<u8>, IngestError> {
            let mut raw = vec![0; size as usize];
            entry
                .read_exact(&mut raw)
                .map_err(|e| archive_error(e).in_file(&path))?;
            Ok(raw)
        };
        if let Some(at) = results {
            let raw = read_raw(&mut entry)?;
            dirs.add(
                (at.kernel.to_owned(), at.benchmark.to_owned(), at.iter),
                (at.file, raw),
            );
            continue;
        }
        if let Some((kernel, iter)) = numa_place(&parts) {
            let raw = read_raw(&mut entry)?;
            let text = dirs
                .held
                .text(&path, raw.into())
                .map_err(|e| IngestError::from(e).in_file(&path))?;
            let n = numa.len() + numa_replaced;
            if numa.insert((kernel.to_owned(), iter), (text, n)).is_some() {
                numa_replaced += 1;
            }
            continue;
        }
        if system_file.is_none() {
            continue;
        }
        read_text(&mut entry, &mut content)?;
        if let Some((kernel, name)) = system_file {
            let found = super::facts::system_facts(name, &content).unwrap_or_default();
            let facts = system.entry(kernel.to_owned()).or_default();
            facts.extend(found);
            if facts.len() > super::facts::MAX_FACTS {
                return Err(IngestError::new(format!(
                    "more than {} facts about the system of {kernel}",
                    super::facts::MAX_FACTS
                ))
                .in_file(&path));
            }
        }
    }
    if count == 0 {
        return Err(IngestError::new("the archive is empty or truncated"));
    }
    let (mut runs, report) = read_dirs(dirs.finish(&numa), meta, &budget)?;
    budget.spend_rows(rows.printed());
    for run in &mut runs {
        if let Some(facts) = system.get(run.key.kernel.as_str()) {
            run.facts.extend(facts.iter().cloned());
        }
        let ran = order.get(run.key.kernel.as_str());
        if let Some(i) = ran.and_then(|o| o.iter().position(|b| b == run.key.benchmark.as_str())) {
            run.facts
                .push((lines::FACT_POSITION.to_owned(), (i + 1).to_string()));
        }
    }
    Ok((runs, report))
}

/// Why a member has no text.
enum Unreadable {
    /// Its compressed stream is broken: the member, and a directory whose parser reads it,
    /// cannot be read (the rest of the tree can).
    Broken(String),
    /// It inflates past a bound of the upload: the upload is refused.
    TooBig(IngestError),
}

impl From<Unreadable> for IngestError {
    fn from(u: Unreadable) -> IngestError {
        match u {
            Unreadable::Broken(message) => IngestError::new(message),
            Unreadable::TooBig(e) => e,
        }
    }
}

/// A member's text: decompressed if its name says `.gz` or `.xz` (as mmtests leaves logs,
/// every byte inflated charged to the upload's `budget`), at most `left` bytes of it (the
/// text the tree may still hold); bytes that are not UTF-8 are replaced, as the tools' text
/// is read by awk and perl byte-wise anyway.
fn member_text(
    name: &str,
    raw: std::borrow::Cow<'_, [u8]>,
    left: u64,
    budget: &Budget,
) -> Result<String, Unreadable> {
    let limit = left.min(MAX_ENTRY);
    let mut out = Vec::new();
    // Concatenated streams are read on, as `zcat` and `xzcat` do; straight from `raw` (the
    // `bufread` decoders), into room for the text it likely holds: a gzip stream ends with
    // its size (of the last stream, modulo 4 GiB), an xz log is some six times its size.
    let read = if name.ends_with(".gz") {
        let stated = raw.len().checked_sub(4).map_or(0, |at| {
            u64::from(u32::from_le_bytes([
                raw[at],
                raw[at + 1],
                raw[at + 2],
                raw[at + 3],
            ]))
        });
        out.reserve(likely_text(stated, limit, raw.len(), 1032));
        let inner = flate2::bufread::MultiGzDecoder::new(&raw[..]);
        Charged { inner, budget }
            .take(limit + 1)
            .read_to_end(&mut out)
            .map_err(|e| ("gzip", e))
    } else if name.ends_with(".xz") {
        out.reserve(likely_text(u64::MAX, limit, raw.len(), 8));
        let inner = liblzma::bufread::XzDecoder::new_multi_decoder(&raw[..]);
        Charged { inner, budget }
            .take(limit + 1)
            .read_to_end(&mut out)
            .map_err(|e| ("xz", e))
    } else {
        let n = raw.len();
        out = raw.into_owned();
        Ok(n)
    };
    if let Err((kind, e)) = read {
        if let Some(spent) = e.get_ref().and_then(|e| e.downcast_ref::<Inflated>()) {
            return Err(Unreadable::TooBig((*spent).into()));
        }
        return Err(Unreadable::Broken(format!(
            "the {kind} member cannot be read: {e}"
        )));
    }
    if out.len() as u64 > limit {
        return Err(Unreadable::TooBig(IngestError::new(format!(
            "the member inflates to more than {limit} bytes (at most {MAX_ENTRY} a member, {MAX_TEXT} of text in a tree)"
        ))));
    }
    Ok(match String::from_utf8(out) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// Room to make for a member's text, `stated` bytes by its stream: never more than `limit`
/// (its text's bound), `ratio` times its `raw` size, or 1 MiB — a guess to save growing the
/// buffer, not a promise.
fn likely_text(stated: u64, limit: u64, raw: usize, ratio: u64) -> usize {
    stated
        .min(limit.saturating_add(1))
        .min((raw as u64).saturating_mul(ratio))
        .min(1 << 20) as usize
}

/// What a directory's family parser made of it.
enum Outcome {
    /// No mmtests family has the directory's name.
    Unknown,
    /// The family has no parser here.
    NoParser(&'static Shellpack),
    /// The parser could not read it.
    Problem(&'static Shellpack, family::Problem),
    /// How many rows the parser printed, how many members it read, and its rows as series
    /// (or why they cannot be).
    Lines(
        &'static Shellpack,
        usize,
        usize,
        Result<(lines::Read, Vec<lines::Group>), IngestError>,
    ),
}

/// A directory (the `iter`-th of its kernel) through its family's parser, its rows grouped
/// into series.
fn parse_dir(benchmark: &str, iter: i64, dir: &LogDir) -> Outcome {
    let Some(shellpack) = Shellpack::of(benchmark) else {
        return Outcome::Unknown;
    };
    let Some(parser) = families::parser(shellpack.name) else {
        return Outcome::NoParser(shellpack);
    };
    match parser(dir) {
        Ok(rows) => {
            let grouped = lines::group(
                &rows,
                iter,
                |metric| super::known::mmtests_direction(shellpack.name, metric, shellpack.higher),
                |i| i as u64 + 1,
            );
            Outcome::Lines(shellpack, rows.len(), dir.names().count(), grouped)
        }
        Err(p) => Outcome::Problem(shellpack, p),
    }
}

/// The parsers' pool: up to four threads, made once.
fn parse_pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        let threads = std::thread::available_parallelism()
            .map_or(1, std::num::NonZeroUsize::get)
            .min(4);
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("mmtests-parse-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

/// `job` on the parsers' pool (here, if there is none), not waited for.
fn parse_pool_spawn(job: impl FnOnce() + Send + 'static) {
    match parse_pool() {
        Some(pool) => pool.spawn(job),
        None => job(),
    }
}

/// Each directory's parsed rows into runs, and what came of each directory.
fn read_dirs(
    dirs: impl Iterator<Item = Result<(DirKey, Outcome), IngestError>>,
    meta: &UploadMeta,
    budget: &Budget,
) -> Result<(Vec<ParsedRun>, Vec<TreeDir>), IngestError> {
    let mut builder = RunBuilder::within(budget);
    let mut report = Vec::new();
    // Per run: how mmtests compares it, and its ratio operations.
    let mut comparing: std::collections::HashMap<super::RunKey, (lines::Comparing, Vec<String>)> =
        Default::default();
    for dir in dirs {
        let (key, outcome) = dir?;
        let (kernel, benchmark, iter) = (&key.0, &key.1, &key.2);
        // The tree names kernels and benchmarks itself; a form field may not say otherwise.
        for (field, given, found) in [
            ("kernel", &meta.kernel, kernel),
            ("benchmark", &meta.benchmark, benchmark),
        ] {
            if let Some(given) = given {
                if given.as_str() != found {
                    return Err(IngestError::field(
                        field,
                        format!("the {field} field says '{given}' but the archive's tree says '{found}'; leave the field out"),
                    ));
                }
            }
        }
        let mut entry = TreeDir {
            kernel: kernel.clone(),
            iteration: *iter,
            benchmark: benchmark.clone(),
            family: None,
            operations: 0,
            samples: 0,
            problem: None,
        };
        let place = format!("{kernel}/iter-{iter}/{benchmark}/logs");
        let (shellpack, printed, members, grouped) = match outcome {
            Outcome::Unknown => {
                entry.problem = Some(format!(
                    "no mmtests family is called {benchmark} (nor any name it starts with)"
                ));
                report.push(entry);
                continue;
            }
            Outcome::NoParser(shellpack) => {
                entry.family = Some(shellpack.name.to_owned());
                entry.problem = Some(format!("Perfline has no parser for {}", shellpack.name));
                report.push(entry);
                continue;
            }
            Outcome::Problem(shellpack, p) => {
                entry.family = Some(shellpack.name.to_owned());
                entry.problem = Some(match &p.file {
                    Some(_) => format!("{place}/{p}"),
                    None => format!("{place}: {p}"),
                });
                report.push(entry);
                continue;
            }
            Outcome::Lines(shellpack, printed, members, grouped) => {
                (shellpack, printed, members, grouped)
            }
        };
        entry.family = Some(shellpack.name.to_owned());
        if printed == 0 {
            entry.problem = Some(format!(
                "{place}: the {} parser found no results in {members} file(s)",
                shellpack.name,
            ));
            report.push(entry);
            continue;
        }
        let key = resolve_key(1, meta, Some(benchmark), None, Some(kernel), None)?;
        let run = builder.run(key.clone(), &meta.tags);
        let (read, groups) = grouped.map_err(|e| e.in_file(&place))?;
        lines::push_groups(&mut builder, run, &groups).map_err(|e| e.in_file(&place))?;
        entry.operations = read.operations;
        entry.samples = read.samples;
        let first = read
            .first_not_number
            .as_ref()
            .map(|(op, v)| format!(" (the first: {op} '{}')", super::shorten(v)))
            .unwrap_or_default();
        if read.samples == 0 {
            entry.problem = Some(format!(
                "{place}: the {} parser printed {} line(s), none with a number{first}",
                shellpack.name, printed
            ));
        } else if read.not_numbers > 0 {
            entry.problem = Some(format!(
                "{place}: {} line(s) without a number left out, as mmtests leaves them{first}",
                read.not_numbers
            ));
        }
        let (_, ratio) = comparing.entry(key).or_insert_with(|| {
            (
                lines::Comparing {
                    summarise: shellpack.summarise,
                    higher: shellpack.higher,
                    precision: shellpack.precision,
                },
                Vec::new(),
            )
        });
        for op in read.ratio {
            if !ratio.contains(&op) {
                ratio.push(op);
            }
        }
        report.push(entry);
    }
    if !report.iter().any(|d| d.samples > 0) {
        let why: Vec<String> = report
            .iter()
            .filter_map(|d| d.problem.clone())
            .take(5)
            .collect();
        return Err(IngestError::new(if why.is_empty() {
            "no mmtests <run>/iter-N/<benchmark>/logs/ files with results in the archive".to_owned()
        } else {
            format!("nothing in the tree could be read: {}", why.join("; "))
        }));
    }
    let mut runs = builder.finish()?;
    for run in &mut runs {
        if let Some((c, ratio)) = comparing.remove(&run.key) {
            run.facts.extend(c.facts());
            run.facts.extend(
                ratio
                    .into_iter()
                    .map(|op| (lines::FACT_RATIO.to_owned(), op)),
            );
        }
    }
    Ok((runs, report))
}

/// The name a logs directory gives the iteration's `numactl.txt.gz` (as saladfork's parser
/// opens it, relative to `logs/`).
pub const NUMA_MEMBER: &str = "../../numactl.txt.gz";

/// `<run>/iter-N/numactl.txt[.gz]`: the run name and N.
fn numa_place<'a>(parts: &[&'a str]) -> Option<(&'a str, i64)> {
    match parts {
        [.., run, iter, "numactl.txt.gz" | "numactl.txt"] => {
            Some((run, iter.strip_prefix("iter-")?.parse().ok()?))
        }
        _ => None,
    }
}

/// `<run>/iter-0/tests-activity` (or `<run>/mmtests-activity`): mmtests' log of what ran,
/// by run name.
fn activity_place<'a>(parts: &[&'a str]) -> Option<&'a str> {
    match parts {
        [.., run, "iter-0", "tests-activity"] | [.., run, "mmtests-activity"] => Some(run),
        _ => None,
    }
}

/// The benchmarks an activity log says were started, in order, as compare-kernels.sh lists
/// them (`run-mmtests: test start :: NAME`, up to the end of the first iteration), each once.
fn tests_started(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        if line.contains("run-mmtests: Iteration 1 end")
            || line.contains("run-kvm: Iteration 1 end")
        {
            break;
        }
        let Some((_, rest)) = line.split_once(": test start :: ") else {
            continue;
        };
        if let Some(name) = rest.split_whitespace().next() {
            if !out.iter().any(|b| b == name) && out.len() < 10_000 {
                out.push(name.to_owned());
            }
        }
    }
    out
}

/// `<run>/iter-N/<file>` (or `<run>/<file>`) naming a system file: the run and the file name.
fn system_place<'a>(parts: &[&'a str]) -> Option<(&'a str, &'a str)> {
    let name = *parts.last()?;
    super::facts::system_facts(name, "")?;
    match parts.len() {
        n if n >= 3 && parts[n - 2].starts_with("iter-") => Some((parts[n - 3], name)),
        n if n >= 2 => Some((parts[n - 2], name)),
        _ => None,
    }
}

/// The metric and direction mmtests gives the samples of a benchmark, for a samples CSV of it
/// without a `metric` column (`kernel,param,iteration,value`, as mmtests' own samples files).
pub fn samples_metric(benchmark: &str) -> Option<(&'static str, Direction)> {
    match benchmark {
        "netperf-tcp" => Some(("tcpstream-send", Direction::Higher)),
        "netperf-udp" => Some(("udpstream-send", Direction::Higher)),
        b if b.starts_with("hackbench") => Some(("time", Direction::Lower)),
        _ => None,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::ingest::{parse_file, Format};
    use std::io::Write as _;

    #[test]
    fn paths_are_cut_into_their_parts() {
        for path in [
            "",
            "/",
            "a",
            "./a/./b/",
            "//a//b",
            "k/iter-0/b/logs/x.gz",
            "é/ü/.",
            "a/..",
        ] {
            let want: Vec<&str> = path
                .split('/')
                .filter(|p| !p.is_empty() && *p != ".")
                .collect();
            assert_eq!(parts(path).to_vec(), want, "{path:?}");
        }
    }

    /// The archive names kernels and benchmarks itself: only the machine comes from the form.
    fn machine_only() -> UploadMeta {
        let mut m = UploadMeta::default();
        m.set("machine", "m1").unwrap();
        m
    }

    #[test]
    fn the_tar_reader_skips_forward_through_the_allowance() {
        use std::io::{Seek, SeekFrom};
        let data: Vec<u8> = (0..100_000u32).map(|i| i as u8).collect();
        let mut r = Capped::new(&data[..], &Budget::with_allowance(60_000));
        let mut head = [0u8; 10];
        r.read_exact(&mut head).unwrap();
        // A skip longer than the scratch buffer lands where reading would have.
        assert_eq!(r.seek(SeekFrom::Current(40_000)).unwrap(), 40_010);
        r.read_exact(&mut head).unwrap();
        assert_eq!(head[0], data[40_010]);
        assert_eq!(r.stream_position().unwrap(), 40_020);
        // Backwards, or from either end, is not how an archive is read.
        for pos in [SeekFrom::Current(-1), SeekFrom::Start(0), SeekFrom::End(0)] {
            let e = r.seek(pos).unwrap_err();
            assert_eq!(e.kind(), std::io::ErrorKind::Unsupported);
        }
        // Skipped bytes count against the allowance like read ones.
        let e = r.seek(SeekFrom::Current(30_000)).unwrap_err();
        assert!(e.to_string().contains("inflates to more than 60000"), "{e}");
        // And a skip past the end is a truncated archive.
        let mut short = Capped::new(&data[..100], &Budget::with_allowance(1 << 20));
        let e = short.seek(SeekFrom::Current(101)).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::UnexpectedEof);
    }

    /// A tree cut short inside a member's data is refused as truncated, naming the member
    /// (its bytes are read exactly as its header sizes them).
    #[test]
    fn a_tree_cut_inside_a_member_is_refused_naming_it() {
        let log = "1 2 3\n".repeat(400);
        let mut tar = tar::Builder::new(Vec::new());
        let mut header = tar::Header::new_gnu();
        header.set_size(log.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        let path = "work/log/k1/iter-0/hackbench-process-pipes/logs/hackbench-1-1";
        tar.append_data(&mut header, path, log.as_bytes()).unwrap();
        let whole = tar.into_inner().unwrap();
        // The header, and half the member.
        let cut = &whole[..512 + log.len() / 2];
        let e = parse(cut, &machine_only()).unwrap_err().to_string();
        assert!(e.contains("broken or truncated"), "{e}");
        assert!(e.contains(path), "{e}");
    }

    /// A tar.gz of the fixture tree, built in memory.
    pub(crate) fn fixture_tar_gz() -> Vec<u8> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/mmtests/work-log");
        let mut tar = tar::Builder::new(flate2::write::GzEncoder::new(
            Vec::new(),
            flate2::Compression::fast(),
        ));
        tar.append_dir_all("work/log", &root).unwrap();
        tar.into_inner().unwrap().finish().unwrap()
    }

    /// The samples, as `kernel,param,iteration,value` lines like mmtests' samples CSV.
    fn samples_csv(runs: &[ParsedRun], benchmark: &str) -> Vec<String> {
        let mut out = Vec::new();
        for r in runs
            .iter()
            .filter(|r| r.key.benchmark.as_str() == benchmark)
        {
            for s in &r.series {
                for (i, v) in &s.samples {
                    out.push(format!("{},{},{},{}", r.key.kernel, s.param, i, v));
                }
            }
        }
        out.sort();
        out
    }

    fn expected_csv(name: &str) -> Vec<String> {
        let text = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/mmtests")
                .join(name),
        )
        .unwrap();
        let mut out: Vec<String> = text
            .lines()
            .skip(1)
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                format!(
                    "{},{},{},{}",
                    f[0],
                    f[1],
                    f[2],
                    f[3].parse::<f64>().unwrap()
                )
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn work_log_tree_equals_the_samples_csv() {
        let (format, runs) = parse_file(&fixture_tar_gz(), None, &machine_only()).unwrap();
        assert_eq!(format, Format::Mmtests);
        assert_eq!(
            samples_csv(&runs, "netperf-tcp"),
            expected_csv("netperf-tcp-samples.csv")
        );
        assert_eq!(
            samples_csv(&runs, "hackbench-process-pipes"),
            expected_csv("hackbench-samples.csv")
        );
        let netperf = runs
            .iter()
            .find(|r| r.key.benchmark.as_str() == "netperf-tcp")
            .unwrap();
        assert_eq!(netperf.series[0].metric.as_str(), "tcpstream-send");
        assert_eq!(netperf.series[0].direction, Direction::Higher);
        let hackbench = runs
            .iter()
            .find(|r| r.key.benchmark.as_str() == "hackbench-process-pipes")
            .unwrap();
        assert_eq!(
            (
                hackbench.series[0].metric.as_str(),
                hackbench.series[0].direction
            ),
            ("time", Direction::Lower)
        );
    }

    #[test]
    fn a_truncated_archive_is_refused() {
        let full = fixture_tar_gz();
        let e = parse_file(&full[..full.len() / 2], None, &machine_only()).unwrap_err();
        assert!(
            e.message.contains("broken or truncated")
                || e.message.contains("cannot read the entry"),
            "{e}"
        );
    }

    /// `text` gzipped, as mmtests leaves many logs.
    fn gz(text: &str) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(text.as_bytes()).unwrap();
        e.finish().unwrap()
    }

    /// A compressed log is inflated when its parser reads it: one whose stream is broken
    /// leaves its directory out, named with the file in the answer (the rest of the tree is
    /// read; nothing readable at all is refused); one no parser reads is never inflated,
    /// broken or not (as mmtests never opens it).
    #[test]
    fn a_broken_compressed_log_leaves_out_its_directory_only_when_read() {
        let tree = |salad: &[u8], hackbench: bool| {
            let mut tar = tar::Builder::new(Vec::new());
            add(
                &mut tar,
                "6.1/iter-0/saladfork/logs/saladfork-0.log.gz",
                salad,
            );
            if hackbench {
                add(
                    &mut tar,
                    "6.1/iter-0/hackbench-process-pipes/logs/hackbench-4",
                    b"# 4 groups == 160 processes run\n\n        Total time: 0.053 [sec]\n",
                );
                add(
                    &mut tar,
                    "6.1/iter-0/hackbench-process-pipes/logs/notes.xz",
                    b"not xz at all",
                );
            }
            tar.into_inner().unwrap()
        };
        let benchmarks = |runs: &[ParsedRun]| -> Vec<String> {
            runs.iter()
                .map(|r| r.key.benchmark.as_str().to_owned())
                .collect()
        };
        let log = "PARENT  CHILD   LATENCY\n000     001     5\n000     004     6\n";
        let (_, runs) = parse_file(&tree(&gz(log), true), None, &machine_only()).unwrap();
        // Both directories read; hackbench's notes.xz never inflated.
        assert_eq!(benchmarks(&runs), ["hackbench-process-pipes", "saladfork"]);
        let broken = tree(b"not gzip at all", true);
        let (_, runs, dirs) =
            crate::ingest::parse_file_reporting(&broken, None, &machine_only()).unwrap();
        assert_eq!(benchmarks(&runs), ["hackbench-process-pipes"]);
        let salad = dirs.iter().find(|d| d.benchmark == "saladfork").unwrap();
        let problem = salad.problem.as_deref().unwrap_or_default();
        assert!(
            problem.starts_with(
                "6.1/iter-0/saladfork/logs/saladfork-0.log.gz: the gzip member cannot be read"
            ),
            "{problem}"
        );
        let e = parse_file(&tree(b"not gzip at all", false), None, &machine_only()).unwrap_err();
        assert!(e.message.contains("the gzip member cannot be read"), "{e}");
    }

    /// Appends a file to an in-memory tar.
    fn add(tar: &mut tar::Builder<Vec<u8>>, path: &str, text: &[u8]) {
        let mut header = tar::Header::new_gnu();
        header.set_size(text.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append_data(&mut header, path, text).unwrap();
    }

    #[test]
    fn a_broken_log_names_the_directory_and_the_value() {
        let mut tar = tar::Builder::new(Vec::new());
        let text = b"MIGRATED TCP STREAM TEST from x to y : demo\nRecv Send Send\nbytes  bytes   bytes    secs.    10^6bits/sec\n\n131072  16384     64    10.00    17.1.31\n";
        add(
            &mut tar,
            "log/5.4.0/iter-0/netperf-tcp/logs/protocols",
            b"TCP_STREAM\n",
        );
        add(
            &mut tar,
            "log/5.4.0/iter-0/netperf-tcp/logs/TCP_STREAM-64.1",
            text,
        );
        let bytes = tar.into_inner().unwrap();
        let e = parse_file(&bytes, None, &machine_only()).unwrap_err();
        assert_eq!(e.to_string(), "nothing in the tree could be read: 5.4.0/iter-0/netperf-tcp/logs: the netperf parser printed 1 line(s), none with a number (the first: tcpstream-send-64 '17.1.31')");
    }

    #[test]
    fn saladfork_reads_the_iterations_numa_map_beside_its_logs() {
        let mut tar = tar::Builder::new(Vec::new());
        add(
            &mut tar,
            "6.1/iter-0/numactl.txt.gz",
            &gz("node 0 cpus: 0 1 2 3\nnode 1 cpus: 4 5 6 7\n"),
        );
        add(
            &mut tar,
            "6.1/iter-0/saladfork/logs/saladfork-0.log.gz",
            &gz("PARENT  CHILD   LATENCY\n000     001     5\n000     004     6\n005     007     7\n"),
        );
        let (_, runs) = parse_file(&tar.into_inner().unwrap(), None, &machine_only()).unwrap();
        let metrics: Vec<&str> = runs[0].series.iter().map(|s| s.metric.as_str()).collect();
        assert_eq!(metrics, ["local", "remote", "local_v_total"]);
    }

    /// The iteration's `numactl.txt` after saladfork's logs (and after the walk has left
    /// them for another directory, so they were sent to be parsed without it): the directory
    /// is read again with it.
    #[test]
    fn a_numa_map_after_the_logs_still_reaches_saladfork() {
        let mut tar = tar::Builder::new(Vec::new());
        add(
            &mut tar,
            "6.1/iter-0/saladfork/logs/saladfork-0.log.gz",
            &gz("PARENT  CHILD   LATENCY\n000     001     5\n000     004     6\n005     007     7\n"),
        );
        add(
            &mut tar,
            "6.1/iter-0/hackbench-process-pipes/logs/hackbench-4",
            b"Time: 0.5\n",
        );
        add(
            &mut tar,
            "6.1/iter-0/numactl.txt.gz",
            &gz("node 0 cpus: 0 1 2 3\nnode 1 cpus: 4 5 6 7\n"),
        );
        let (_, runs) = parse_file(&tar.into_inner().unwrap(), None, &machine_only()).unwrap();
        let salad = runs
            .iter()
            .find(|r| r.key.benchmark.as_str() == "saladfork")
            .unwrap();
        let metrics: Vec<&str> = salad.series.iter().map(|s| s.metric.as_str()).collect();
        assert_eq!(metrics, ["local", "remote", "local_v_total"]);
    }

    /// A directory parsed again (its iteration's map came after it was sent) still says the
    /// broken log it read the first time.
    #[test]
    fn a_broken_log_still_leaves_out_a_directory_parsed_again() {
        let mut dirs = Dirs::new(&Budget::default());
        let numa = NumaTexts::new();
        dirs.add(
            ("6.1".into(), "saladfork".into(), 0),
            ("saladfork-0.log.gz".into(), b"not gzip".to_vec()),
        );
        dirs.add(("6.1".into(), "zzz".into(), 0), ("out".into(), Vec::new()));
        dirs.send_ready(&numa, false);
        assert!(dirs.slots[0].sent);
        let mut numa = numa;
        numa.insert(("6.1".into(), 0), ("node 0 cpus: 0 1\n".into(), 0));
        let parsed: Vec<_> = dirs.finish(&numa).collect::<Result<_, _>>().unwrap();
        let (_, outcome) = parsed.iter().find(|(k, _)| k.1 == "saladfork").unwrap();
        let Outcome::Problem(_, p) = outcome else {
            panic!("saladfork was read");
        };
        assert_eq!(p.file.as_deref(), Some("saladfork-0.log.gz"));
        assert!(p.message.contains("the gzip member cannot be read"), "{p}");
    }

    /// The same, step by step: saladfork's directory is sent to be parsed before the map is
    /// met (in a tar, when that happens depends on how soon its log inflates).
    #[test]
    fn a_directory_sent_before_its_numa_map_is_parsed_again_with_it() {
        let log =
            "PARENT  CHILD   LATENCY\n000     001     5\n000     004     6\n005     007     7\n";
        let (mut dirs, mut numa) = (Dirs::new(&Budget::default()), NumaTexts::new());
        dirs.add(
            ("6.1".into(), "saladfork".into(), 0),
            ("saladfork-0.log.gz".into(), gz(log)),
        );
        dirs.add(
            ("6.1".into(), "hackbench-process-pipes".into(), 0),
            ("hackbench-4".into(), b"Time: 0.5\n".to_vec()),
        );
        dirs.send_ready(&numa, false);
        assert!(dirs.slots[0].sent && dirs.slots[0].numa_given.is_none());
        numa.insert(("6.1".into(), 0), (String::new(), 0));
        // A third directory, sent with that (empty) map; then another map of the iteration is read
        // (the last read is the one used, as when the tree was read whole).
        dirs.add(
            ("6.1".into(), "saladfork-again".into(), 0),
            ("saladfork-0.log.gz".into(), gz(log)),
        );
        dirs.add(("6.1".into(), "zzz".into(), 0), ("out".into(), Vec::new()));
        dirs.send_ready(&numa, false);
        assert_eq!(dirs.slots[2].numa_given, Some(0));
        numa.insert(
            ("6.1".into(), 0),
            ("node 0 cpus: 0 1 2 3\nnode 1 cpus: 4 5 6 7\n".into(), 1),
        );
        let parsed: Vec<_> = dirs.finish(&numa).collect::<Result<_, _>>().unwrap();
        let salads: Vec<_> = parsed
            .into_iter()
            .filter(|(k, _)| k.1.starts_with("saladfork"))
            .collect();
        assert_eq!(salads.len(), 2);
        for (key, outcome) in salads {
            let Outcome::Lines(_, _, members, Ok((_, groups))) = outcome else {
                panic!("saladfork of {key:?} was not read");
            };
            assert_eq!(members, 2, "its log and the map");
            let metrics: Vec<&str> = groups.iter().map(|g| g.metric.as_str()).collect();
            assert_eq!(metrics, ["local", "remote", "local_v_total"], "{key:?}");
        }
    }

    /// A tar whose members are not grouped by directory (each directory is parsed once the
    /// walk leaves it; one met again is parsed again with all its members) reads as the
    /// same tree grouped.
    #[test]
    fn members_scattered_through_the_tar_read_as_the_tree_does() {
        let grouped = fixture_tar_gz();
        let mut entries: Vec<(String, Vec<u8>)> = Vec::new();
        let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(&grouped[..]));
        for entry in archive.entries().unwrap() {
            let mut entry = entry.unwrap();
            if !entry.header().entry_type().is_file() {
                continue;
            }
            let path = entry.path().unwrap().to_string_lossy().into_owned();
            let mut data = Vec::new();
            entry.read_to_end(&mut data).unwrap();
            entries.push((path, data));
        }
        // By file name first: each directory's members end up far apart.
        entries.sort_by(|(a, _), (b, _)| {
            let name = |p: &str| p.rsplit('/').next().unwrap_or("").to_owned();
            name(a).cmp(&name(b)).then(a.cmp(b))
        });
        let dirs = |entries: &[(String, Vec<u8>)]| {
            let mut seen: Vec<&str> = Vec::new();
            let mut changes = 0;
            for (path, _) in entries {
                let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
                if seen.last() != Some(&dir) {
                    changes += 1;
                    seen.push(dir);
                }
            }
            seen.sort_unstable();
            seen.dedup();
            (seen.len(), changes)
        };
        let (distinct, changes) = dirs(&entries);
        assert!(
            changes > distinct,
            "the members are scattered: {changes} runs of {distinct} directories"
        );
        let mut tar = tar::Builder::new(Vec::new());
        for (path, data) in &entries {
            add(&mut tar, path, data);
        }
        let scattered = tar.into_inner().unwrap();
        let (_, expected) = parse_file(&grouped, None, &machine_only()).unwrap();
        let (_, got) = parse_file(&scattered, None, &machine_only()).unwrap();
        assert!(!expected.is_empty());
        assert_eq!(got, expected);
    }

    #[test]
    fn what_cannot_be_read_is_left_out_and_said() {
        let mut tar = tar::Builder::new(Vec::new());
        add(&mut tar, "log/5.4.0/iter-0/hackbench-process-pipes/logs/hackbench-4", b"Running in process mode with 4 groups using 40 file descriptors each (== 160 tasks)\nEach sender will pass 100 messages of 100 bytes\nTime: 0.5\nTotal time: 0.512\n");
        add(
            &mut tar,
            "log/5.4.0/iter-0/frobnicate/logs/out.1",
            b"1 2 3\n",
        );
        add(
            &mut tar,
            "log/5.4.0/iter-0/cyclictest/logs/cyclictest.log",
            b"T: 0\n",
        );
        let bytes = tar.into_inner().unwrap();
        let (_, runs, dirs) =
            crate::ingest::parse_file_reporting(&bytes, None, &machine_only()).unwrap();
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].key.benchmark.as_str(), "hackbench-process-pipes");
        let said: Vec<(&str, usize, Option<&str>)> = dirs
            .iter()
            .map(|d| (d.benchmark.as_str(), d.samples, d.problem.as_deref()))
            .collect();
        assert_eq!(said.len(), 3);
        assert_eq!(said[1].0, "frobnicate");
        assert_eq!(
            said[1].2,
            Some("no mmtests family is called frobnicate (nor any name it starts with)")
        );
        assert_eq!(said[2], ("hackbench-process-pipes", 1, None));
        assert!(said[0].2.unwrap().contains("cyclictest"), "{said:?}");
    }

    #[test]
    fn paths_that_leave_the_archive_are_refused() {
        let mut tar = tar::Builder::new(Vec::new());
        let mut header = tar::Header::new_gnu();
        header.set_size(1);
        header.set_mode(0o644);
        // `append_data` refuses `..`, so write the name into the header directly.
        header.as_old_mut().name[..17].copy_from_slice(b"../../etc/passwd\0");
        header.set_cksum();
        tar.append(&header, &b"x"[..]).unwrap();
        let bytes = tar.into_inner().unwrap();
        let e = parse_file(&bytes, Some(Format::Mmtests), &machine_only()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "../../etc/passwd: the archive entry path leaves the archive"
        );
    }
}
