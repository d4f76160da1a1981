// SPDX-License-Identifier: GPL-3.0-or-later
//! Validated names shared by the server and the browser.
//!
//! A [`Label`] is what users type as a benchmark, machine, kernel, metric or tag name. It is
//! parsed once at the edge (upload form, query string, JSON) and is valid everywhere after.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The longest label Perfline accepts, in characters.
pub const LABEL_MAX_CHARS: usize = 200;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LabelError {
    #[error("is empty")]
    Empty,
    #[error("is longer than {LABEL_MAX_CHARS} characters")]
    TooLong,
    #[error("is longer than {0} characters")]
    TooLongFor(usize),
    #[error("contains the control character U+{0:04X}")]
    Control(u32),
    #[error(
        "contains the invisible or direction-changing character U+{0:04X}, which can make two names look alike"
    )]
    Invisible(u32),
}

/// Characters that change the direction of the text after them or show nothing at all
/// (Trojan Source, CVE-2021-42574; names that look alike): refused in names.
pub fn is_invisible(c: char) -> bool {
    // Unicode's format characters (Cf) that show nothing, the line and paragraph separators
    // (Zl, Zp), fillers that render as blanks, and variation selectors.
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{17B4}'
            | '\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{2028}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E0FFF}'
    )
}

/// The first character a name may not hold: a control character, or an invisible or
/// direction-changing one.
fn refused_char(text: &str) -> Option<LabelError> {
    // Every invisible character is outside ASCII: ASCII text only needs its control bytes found
    // (an LKP job's 5,000 keys pass here on every upload).
    if text.is_ascii() {
        return text
            .bytes()
            .find(u8::is_ascii_control)
            .map(|b| LabelError::Control(u32::from(b)));
    }
    text.chars().find_map(|c| {
        if c.is_control() {
            Some(LabelError::Control(c as u32))
        } else if is_invisible(c) {
            Some(LabelError::Invisible(c as u32))
        } else {
            None
        }
    })
}

/// A trimmed, non-empty name of at most [`LABEL_MAX_CHARS`] characters without control
/// characters. Any other text (including `<script>`) is allowed: it is always rendered escaped.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Label(String);

impl Label {
    pub fn parse(raw: &str) -> Result<Self, LabelError> {
        let trimmed = raw.trim();
        if trimmed.is_empty() {
            return Err(LabelError::Empty);
        }
        if let Some(e) = refused_char(trimmed) {
            return Err(e);
        }
        if trimmed.chars().count() > LABEL_MAX_CHARS {
            return Err(LabelError::TooLong);
        }
        Ok(Label(trimmed.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for Label {
    type Error = LabelError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        Label::parse(&value)
    }
}

impl From<Label> for String {
    fn from(value: Label) -> Self {
        value.0
    }
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for Label {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for Label {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl PartialEq<str> for Label {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<Label> for String {
    fn eq(&self, other: &Label) -> bool {
        *self == other.0
    }
}

/// The most tags one upload (or one JSON document) may carry.
pub const MAX_TAGS: usize = 64;

/// The longest unit, in characters (`Mbps`, `trans/sec`, `10^6bits/s`).
pub const UNIT_MAX_CHARS: usize = 32;

/// The largest magnitude of a sample value Perfline stores. With it every sum, sum of squares
/// and chart axis stays finite (a million samples of 1e15 square-sum to 1e36; f64 ends at
/// 1.8e308), and whole-run counters such as `perf-stat` totals still fit.
pub const MAX_ABS_VALUE: f64 = 1e15;

/// The longest commit subject kept, in characters; longer ones are cut.
pub const SUBJECT_MAX_CHARS: usize = 300;

/// Checks one sample value: finite and within [`MAX_ABS_VALUE`].
pub fn check_value(v: f64) -> Result<f64, String> {
    if !v.is_finite() {
        Err(format!("value {v} is not a finite number"))
    } else if v.abs() > MAX_ABS_VALUE {
        Err(format!(
            "value {v:e} is outside the accepted range of ±{MAX_ABS_VALUE:e}"
        ))
    } else {
        Ok(v)
    }
}

fn check_text(raw: &str, max: usize) -> Result<&str, LabelError> {
    let trimmed = raw.trim();
    if let Some(e) = refused_char(trimmed) {
        return Err(e);
    }
    if trimmed.len() > max && trimmed.chars().count() > max {
        return Err(LabelError::TooLong);
    }
    Ok(trimmed)
}

/// A tag's value: like a [`Label`] but it may be empty (`k=` says "the key is set").
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default)]
#[serde(try_from = "String", into = "String")]
pub struct TagValue(String);

impl TagValue {
    pub fn parse(raw: &str) -> Result<Self, LabelError> {
        Ok(TagValue(check_text(raw, LABEL_MAX_CHARS)?.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A metric's unit: trimmed, non-empty, at most [`UNIT_MAX_CHARS`] characters, no control
/// characters (a unit is drawn into SVG text and printed to terminals).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Unit(String);

impl Unit {
    pub fn parse(raw: &str) -> Result<Self, LabelError> {
        let text = check_text(raw, UNIT_MAX_CHARS).map_err(|e| match e {
            LabelError::TooLong => LabelError::TooLongFor(UNIT_MAX_CHARS),
            e => e,
        })?;
        if text.is_empty() {
            return Err(LabelError::Empty);
        }
        Ok(Unit(text.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

macro_rules! text_newtype_impls {
    ($($t:ident),*) => {$(
        impl TryFrom<String> for $t {
            type Error = LabelError;
            fn try_from(value: String) -> Result<Self, Self::Error> {
                $t::parse(&value)
            }
        }
        impl From<$t> for String {
            fn from(value: $t) -> Self {
                value.0
            }
        }
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
        impl AsRef<str> for $t {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }
        impl std::ops::Deref for $t {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }
    )*};
}
text_newtype_impls!(TagValue, Unit, Param, Metric);

/// The longest metric name Perfline accepts, in characters: LKP's keys name call traces
/// (`perf-profile.calltrace.cycles-pp.…`) and run to hundreds.
pub const METRIC_MAX_CHARS: usize = 1024;

/// A metric's name: like a [`Label`] (trimmed, not empty, no control, invisible or
/// direction-changing characters) but up to [`METRIC_MAX_CHARS`] characters, with any of the
/// characters LKP's keys use (`: / % @ # + = ,`). Uploads and queries take the same ones.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Metric(String);

impl Metric {
    pub fn parse(raw: &str) -> Result<Self, LabelError> {
        let text = check_text(raw, METRIC_MAX_CHARS).map_err(|e| match e {
            LabelError::TooLong => LabelError::TooLongFor(METRIC_MAX_CHARS),
            e => e,
        })?;
        if text.is_empty() {
            return Err(LabelError::Empty);
        }
        Ok(Metric(text.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl PartialEq<str> for Metric {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<Metric> for String {
    fn eq(&self, other: &Metric) -> bool {
        *self == other.0
    }
}

/// A metric's param (`threads=4`, `send-64`), or empty when the metric has none: at most
/// [`LABEL_MAX_CHARS`] characters, no control, invisible or direction-changing characters.
/// Uploads and queries take the same ones, trimmed (as series are stored).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default)]
#[serde(try_from = "String", into = "String")]
pub struct Param(String);

impl Param {
    pub fn parse(raw: &str) -> Result<Self, LabelError> {
        Ok(Param(check_text(raw, LABEL_MAX_CHARS)?.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A commit id: 7 to 64 hex digits (an abbreviated or full SHA-1 or SHA-256), kept in lower
/// case.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct CommitSha(String);

impl CommitSha {
    pub fn parse(raw: &str) -> Result<Self, String> {
        let sha = raw.trim();
        if (7..=64).contains(&sha.len()) && sha.bytes().all(|b| b.is_ascii_hexdigit()) {
            Ok(CommitSha(sha.to_ascii_lowercase()))
        } else {
            Err(format!(
                "must be a commit id (7 to 64 hex digits), not {:?}",
                sha.chars().take(80).collect::<String>()
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A permalink's id as Perfline hands them out: 1 to 64 ASCII letters and digits. Anything
/// else cannot name one.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct PermalinkId(String);

impl PermalinkId {
    pub fn parse(raw: &str) -> Result<Self, String> {
        if (1..=64).contains(&raw.len()) && raw.bytes().all(|b| b.is_ascii_alphanumeric()) {
            Ok(PermalinkId(raw.to_owned()))
        } else {
            Err(format!(
                "no permalink {}",
                raw.chars().take(80).collect::<String>()
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A history's name, `repo/branch`: the repo a [`Label`] without `/`, the branch a `Label`
/// (which may hold `/`). Uploads of histories and trend queries take the same ones.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct HistoryName {
    repo: Label,
    branch: Label,
}

impl HistoryName {
    /// `repo/branch` as one string.
    pub fn parse(raw: &str) -> Result<Self, String> {
        let (repo, branch) = raw
            .trim()
            .split_once('/')
            .ok_or_else(|| format!("history must be repo/branch, not {raw:?}"))?;
        HistoryName::new(repo, branch)
    }

    /// A repo and a branch given apart (an upload's `repo=` and `branch=`).
    pub fn new(repo: &str, branch: &str) -> Result<Self, String> {
        let repo = Label::parse(repo).map_err(|e| format!("repo {e}"))?;
        if repo.as_str().contains('/') {
            return Err(format!(
                "repo {repo:?} contains '/': a history is named repo/branch, so a repo has none"
            ));
        }
        let branch = Label::parse(branch).map_err(|e| format!("branch {e}"))?;
        Ok(HistoryName { repo, branch })
    }

    pub fn repo(&self) -> &str {
        self.repo.as_str()
    }

    pub fn branch(&self) -> &str {
        self.branch.as_str()
    }
}

impl fmt::Display for HistoryName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.repo, self.branch)
    }
}

impl TryFrom<String> for HistoryName {
    type Error = String;
    fn try_from(value: String) -> Result<Self, String> {
        HistoryName::parse(&value)
    }
}

impl From<HistoryName> for String {
    fn from(value: HistoryName) -> Self {
        value.to_string()
    }
}

macro_rules! string_newtype_impls {
    ($($t:ident),*) => {$(
        impl TryFrom<String> for $t {
            type Error = String;
            fn try_from(value: String) -> Result<Self, String> {
                $t::parse(&value)
            }
        }
        impl From<$t> for String {
            fn from(value: $t) -> Self {
                value.0
            }
        }
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
        impl AsRef<str> for $t {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }
        impl std::ops::Deref for $t {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }
    )*};
}
string_newtype_impls!(CommitSha, PermalinkId);

/// A commit subject as stored and shown: control characters (ESC, BEL, CR...) dropped, so
/// that nothing a `git log` line carries can drive a terminal, and cut to
/// [`SUBJECT_MAX_CHARS`] characters.
pub fn clean_subject(raw: &str) -> String {
    raw.chars()
        .filter(|c| !c.is_control())
        .take(SUBJECT_MAX_CHARS)
        .collect::<String>()
        .trim()
        .to_owned()
}

/// An integer option within `LO..=HI` (a chart's width, a page's limit), checked when the
/// query is parsed: `#[serde(try_from = "i64")]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "i64", into = "i64")]
pub struct Bounded<const LO: i64, const HI: i64>(i64);

impl<const LO: i64, const HI: i64> Bounded<LO, HI> {
    pub fn get(self) -> i64 {
        self.0
    }
}

impl<const LO: i64, const HI: i64> TryFrom<i64> for Bounded<LO, HI> {
    type Error = String;
    fn try_from(v: i64) -> Result<Self, String> {
        if (LO..=HI).contains(&v) {
            Ok(Bounded(v))
        } else {
            Err(format!("must be between {LO} and {HI}, not {v}"))
        }
    }
}

impl<const LO: i64, const HI: i64> From<Bounded<LO, HI>> for i64 {
    fn from(b: Bounded<LO, HI>) -> i64 {
        b.0
    }
}

/// The most kernels one comparison may name.
pub const MAX_KERNELS: usize = 16;

/// The most machines one trend chart may show.
pub const MAX_MACHINES: usize = 12;

macro_rules! label_list {
    ($(#[$doc:meta])* $name:ident, $max:expr, $noun:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(try_from = "String", into = "String")]
        pub struct $name(Vec<Label>);

        impl $name {
            pub fn into_strings(self) -> Vec<String> {
                self.0.into_iter().map(String::from).collect()
            }

            pub fn labels(&self) -> &[Label] {
                &self.0
            }

            pub fn into_labels(self) -> Vec<Label> {
                self.0
            }
        }

        impl TryFrom<String> for $name {
            type Error = String;
            fn try_from(raw: String) -> Result<Self, String> {
                let mut out: Vec<Label> = Vec::new();
                let mut seen = std::collections::HashSet::new();
                for part in raw.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                    if out.len() == $max {
                        return Err(format!(
                            "names more than {} {}s; at most {} are accepted",
                            $max, $noun, $max
                        ));
                    }
                    let label = Label::parse(part).map_err(|e| format!("{} '{part}' {e}", $noun))?;
                    if !seen.insert(label.clone()) {
                        return Err(format!("names {label} twice"));
                    }
                    out.push(label);
                }
                if out.is_empty() {
                    return Err(format!("must name at least one {}", $noun));
                }
                Ok($name(out))
            }
        }

        impl From<$name> for String {
            fn from(list: $name) -> String {
                list.0.iter().map(Label::as_str).collect::<Vec<_>>().join(",")
            }
        }
    };
}

label_list!(
    /// `kernels=K0,K1,...`: 1 to [`MAX_KERNELS`] distinct kernel labels, the baseline first.
    Kernels,
    MAX_KERNELS,
    "kernel"
);
label_list!(
    /// `machines=A,B,...`: 1 to [`MAX_MACHINES`] distinct machine labels.
    Machines,
    MAX_MACHINES,
    "machine"
);

/// For optional query fields: an absent or empty value is `None`, anything else must parse
/// as `T` (`#[serde(default, deserialize_with = "empty_as_none")]`).
pub fn empty_as_none<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: TryFrom<String>,
    T::Error: fmt::Display,
{
    let raw: Option<String> = Option::deserialize(d)?;
    match raw {
        Some(s) if !s.trim().is_empty() => {
            T::try_from(s).map(Some).map_err(serde::de::Error::custom)
        }
        _ => Ok(None),
    }
}

/// Whether a bigger value of a metric is better, worse, or not known: defined beside mmtests'
/// arithmetic, which every comparison runs through.
pub use mmtests_compare::Direction;

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn rejects_what_it_should() {
        assert_eq!(Label::parse("   "), Err(LabelError::Empty));
        assert_eq!(Label::parse("a\u{1}b"), Err(LabelError::Control(1)));
        // Trojan Source and look-alike names.
        for c in [
            '\u{202E}', '\u{2066}', '\u{200B}', '\u{200D}', '\u{FEFF}', '\u{061C}',
        ] {
            let name = format!("netperf{c}-tcp");
            assert_eq!(
                Label::parse(&name),
                Err(LabelError::Invisible(c as u32)),
                "{name:?}"
            );
            assert!(TagValue::parse(&name).is_err(), "{name:?}");
        }
        assert!(Label::parse("Ωmega-ünïcode-名前").is_ok());
        assert_eq!(Label::parse(&"x".repeat(201)), Err(LabelError::TooLong));
        assert_eq!(Label::parse(" 4.16.0-rc1 ").unwrap().as_str(), "4.16.0-rc1");
        assert_eq!(Label::parse("<script>").unwrap().as_str(), "<script>");
    }

    #[test]
    fn lists_and_bounds_parse_once() {
        let k = Kernels::try_from(" 6.1, 6.2 ,".to_owned()).unwrap();
        assert_eq!(String::from(k), "6.1,6.2");
        assert_eq!(
            Kernels::try_from("6.1,6.1".to_owned()).unwrap_err(),
            "names 6.1 twice"
        );
        assert_eq!(
            Kernels::try_from(" , ".to_owned()).unwrap_err(),
            "must name at least one kernel"
        );
        let many: Vec<String> = (0..=MAX_KERNELS).map(|i| format!("k{i}")).collect();
        assert_eq!(
            Kernels::try_from(many.join(",")).unwrap_err(),
            "names more than 16 kernels; at most 16 are accepted"
        );
        assert!(Machines::try_from("a\u{7}".to_owned()).is_err());
        type Width = Bounded<30, 400>;
        assert_eq!(Width::try_from(80).unwrap().get(), 80);
        assert_eq!(
            Width::try_from(5).unwrap_err(),
            "must be between 30 and 400, not 5"
        );
        let w: Result<Width, _> = serde_json::from_str("401");
        assert!(w.is_err());
    }

    #[test]
    fn serde_validates() {
        let bad: Result<Label, _> = serde_json::from_str("\"a\\u0007\"");
        assert!(bad.is_err());
        let good: Label = serde_json::from_str("\"lkp-bdw-de1\"").unwrap();
        assert_eq!(good.as_str(), "lkp-bdw-de1");
    }

    proptest! {
        #[test]
        fn parsed_labels_are_valid_and_stable(s in "\\PC{0,250}") {
            if let Ok(l) = Label::parse(&s) {
                prop_assert!(!l.as_str().is_empty());
                prop_assert!(l.as_str().chars().count() <= LABEL_MAX_CHARS);
                prop_assert!(!l.as_str().chars().any(char::is_control));
                // Parsing is idempotent.
                prop_assert_eq!(Label::parse(l.as_str()).unwrap(), l.clone());
                // Serde round-trips.
                let json = serde_json::to_string(&l).unwrap();
                prop_assert_eq!(serde_json::from_str::<Label>(&json).unwrap(), l);
            }
        }

        #[test]
        fn control_chars_are_always_rejected(a in "[a-z]{1,10}", c in 0u32..32, b in "[a-z]{1,10}") {
            let s = format!("{a}{}{b}", char::from_u32(c).unwrap());
            prop_assert!(Label::parse(&s).is_err());
        }
    }
}

/// The OpenAPI schemas of the validated types: strings and integers with the bounds their
/// parsers check, so the API description says what is refused.
#[cfg(feature = "ssr")]
mod openapi {
    use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
    use utoipa::openapi::RefOr;
    use utoipa::{PartialSchema, ToSchema};

    use super::*;

    /// Text with at least one non-blank character, no control characters (U+0000–U+001F,
    /// U+007F–U+009F) and none of the invisible or direction-changing ones ([`is_invisible`]),
    /// as `check_text` and `Label::parse` decide.
    const LABEL_PATTERN: &str = concat!(
        r"^[^\x00-\x1F\x7F-\x9F\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u2028-\u202E\u2060-\u2064\u2066-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF9-\uFFFB]*",
        r"[^\s\x00-\x1F\x7F-\x9F\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u2028-\u202E\u2060-\u2064\u2066-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF9-\uFFFB]",
        r"[^\x00-\x1F\x7F-\x9F\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u2028-\u202E\u2060-\u2064\u2066-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF9-\uFFFB]*$"
    );

    fn text(description: &str, max: usize, pattern: Option<&str>) -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .max_length(Some(max))
            .pattern(pattern)
            .description(Some(description))
            .into()
    }

    impl PartialSchema for Label {
        fn schema() -> RefOr<Schema> {
            text(
                "A name: trimmed, not empty, no control characters.",
                LABEL_MAX_CHARS,
                Some(LABEL_PATTERN),
            )
        }
    }
    impl ToSchema for Label {}

    impl PartialSchema for TagValue {
        fn schema() -> RefOr<Schema> {
            text(
                "A tag's value: may be empty, no control characters.",
                LABEL_MAX_CHARS,
                Some(r"^[^\x00-\x1F\x7F-\x9F]*$"),
            )
        }
    }
    impl ToSchema for TagValue {}

    impl PartialSchema for Unit {
        fn schema() -> RefOr<Schema> {
            text(
                "A unit: trimmed, not empty, no control characters.",
                UNIT_MAX_CHARS,
                Some(LABEL_PATTERN),
            )
        }
    }
    impl ToSchema for Unit {}

    impl<const LO: i64, const HI: i64> PartialSchema for Bounded<LO, HI> {
        fn schema() -> RefOr<Schema> {
            ObjectBuilder::new()
                .schema_type(Type::Integer)
                .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
                    utoipa::openapi::KnownFormat::Int64,
                )))
                .minimum(Some(LO as f64))
                .maximum(Some(HI as f64))
                .into()
        }
    }
    impl<const LO: i64, const HI: i64> ToSchema for Bounded<LO, HI> {
        fn name() -> std::borrow::Cow<'static, str> {
            format!("Bounded_{LO}_{HI}").into()
        }
    }

    impl PartialSchema for Kernels {
        fn schema() -> RefOr<Schema> {
            text(
                "Kernels, comma-separated, distinct, the baseline first (at most 16).",
                MAX_KERNELS * (LABEL_MAX_CHARS + 1),
                None,
            )
        }
    }
    impl ToSchema for Kernels {}

    impl PartialSchema for Machines {
        fn schema() -> RefOr<Schema> {
            text(
                "Machines, comma-separated, distinct (at most 12).",
                MAX_MACHINES * (LABEL_MAX_CHARS + 1),
                None,
            )
        }
    }
    impl ToSchema for Machines {}

    /// No control, invisible or direction-changing characters; may be empty.
    const PARAM_PATTERN: &str = r"^[^\x00-\x1F\x7F-\x9F\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u2028-\u202E\u2060-\u2064\u2066-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF9-\uFFFB]*$";

    impl PartialSchema for Param {
        fn schema() -> RefOr<Schema> {
            text(
                "A metric's param (`threads=4`), or empty: no control or invisible characters.",
                LABEL_MAX_CHARS,
                Some(PARAM_PATTERN),
            )
        }
    }
    impl ToSchema for Param {}

    impl PartialSchema for Metric {
        fn schema() -> RefOr<Schema> {
            text(
                "A metric's name: trimmed, not empty, no control or invisible characters.",
                METRIC_MAX_CHARS,
                Some(LABEL_PATTERN),
            )
        }
    }
    impl ToSchema for Metric {}

    impl PartialSchema for CommitSha {
        fn schema() -> RefOr<Schema> {
            text(
                "A commit id: 7 to 64 hex digits.",
                64,
                Some("^[0-9A-Fa-f]{7,64}$"),
            )
        }
    }
    impl ToSchema for CommitSha {}

    impl PartialSchema for PermalinkId {
        fn schema() -> RefOr<Schema> {
            text(
                "A permalink's id: letters and digits.",
                64,
                Some("^[0-9A-Za-z]{1,64}$"),
            )
        }
    }
    impl ToSchema for PermalinkId {}

    impl PartialSchema for HistoryName {
        fn schema() -> RefOr<Schema> {
            text(
                "A history: `repo/branch` (the repo holds no `/`).",
                2 * LABEL_MAX_CHARS + 1,
                Some("^[^/]+/.+$"),
            )
        }
    }
    impl ToSchema for HistoryName {}
}
