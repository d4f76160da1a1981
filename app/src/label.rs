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
    #[error("contains the control character U+{0:04X}")]
    Control(u32),
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
        if let Some(c) = trimmed.chars().find(|c| c.is_control()) {
            return Err(LabelError::Control(c as u32));
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

/// Whether a bigger value of a metric is better (throughput) or worse (latency, time).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    #[default]
    Higher,
    Lower,
}

impl Direction {
    pub fn parse(raw: &str) -> Option<Self> {
        match raw.trim().to_ascii_lowercase().as_str() {
            "higher" | "higher_is_better" | "up" => Some(Direction::Higher),
            "lower" | "lower_is_better" | "down" => Some(Direction::Lower),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Higher => "higher",
            Direction::Lower => "lower",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn rejects_what_it_should() {
        assert_eq!(Label::parse("   "), Err(LabelError::Empty));
        assert_eq!(Label::parse("a\u{1}b"), Err(LabelError::Control(1)));
        assert_eq!(Label::parse(&"x".repeat(201)), Err(LabelError::TooLong));
        assert_eq!(Label::parse(" 4.16.0-rc1 ").unwrap().as_str(), "4.16.0-rc1");
        assert_eq!(Label::parse("<script>").unwrap().as_str(), "<script>");
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
