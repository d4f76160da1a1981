// SPDX-License-Identifier: GPL-3.0-or-later
//! Triage: a person's change to an alert summary (its status, a note, who looks into it, the
//! summary that fixed it), checked as it is parsed and then applied, for the API and the
//! pages alike.

use app::alerts::{AlertPatch, AlertStatus, AlertSummary, MAX_NOTE};
use app::label::Label;

use crate::services::{ServiceError, ServiceResult, Services};

/// A triage note: at most [`MAX_NOTE`] characters, without control characters but newlines,
/// trimmed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note(String);

impl Note {
    pub fn parse(raw: &str) -> Result<Note, String> {
        if raw.chars().count() > MAX_NOTE {
            return Err(format!("note is longer than {MAX_NOTE} characters"));
        }
        let kept: String = raw
            .chars()
            .filter(|c| !c.is_control() || *c == '\n')
            .collect();
        Ok(Note(kept.trim().to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Who looks into a summary: a name as labels are, or nobody (an empty or blank assignee
/// clears it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Assignee {
    Nobody,
    Person(Label),
}

impl Assignee {
    pub fn parse(raw: &str) -> Result<Assignee, String> {
        if raw.trim().is_empty() {
            return Ok(Assignee::Nobody);
        }
        Label::parse(raw)
            .map(Assignee::Person)
            .map_err(|e| format!("assignee {e}"))
    }

    /// As the store keeps it: the name, or empty for nobody.
    pub fn as_str(&self) -> &str {
        match self {
            Assignee::Nobody => "",
            Assignee::Person(name) => name.as_str(),
        }
    }
}

/// A checked triage change: something to change, a note and assignee that parse, no status
/// that is Perfline's to set, and `fixed_by` only with status `fixed`.
#[derive(Debug, Clone, PartialEq)]
pub struct Triage {
    pub status: Option<AlertStatus>,
    pub note: Option<Note>,
    pub assignee: Option<Assignee>,
    pub fixed_by: Option<i64>,
}

impl TryFrom<&AlertPatch> for Triage {
    type Error = ServiceError;

    fn try_from(patch: &AlertPatch) -> Result<Triage, ServiceError> {
        let invalid = ServiceError::Invalid;
        if patch.status.is_none()
            && patch.note.is_none()
            && patch.assignee.is_none()
            && patch.fixed_by.is_none()
        {
            return Err(invalid(
                "nothing to change: give status, note, assignee or fixed_by".into(),
            ));
        }
        let triage = Triage {
            status: patch.status,
            note: patch
                .note
                .as_deref()
                .map(Note::parse)
                .transpose()
                .map_err(invalid)?,
            assignee: patch
                .assignee
                .as_deref()
                .map(Assignee::parse)
                .transpose()
                .map_err(invalid)?,
            fixed_by: patch.fixed_by,
        };
        if triage.status == Some(AlertStatus::AwaitingConfirmation) {
            return Err(invalid(
                "status awaiting-confirmation is Perfline's to set, when it finds a step".into(),
            ));
        }
        if triage.fixed_by.is_some() && triage.status != Some(AlertStatus::Fixed) {
            return Err(invalid("fixed_by goes with status fixed".into()));
        }
        Ok(triage)
    }
}

impl Triage {
    /// The change as the store writes it.
    pub fn to_patch(&self) -> AlertPatch {
        AlertPatch {
            status: self.status,
            note: self.note.as_ref().map(|n| n.as_str().to_owned()),
            assignee: self.assignee.as_ref().map(|a| a.as_str().to_owned()),
            fixed_by: self.fixed_by,
        }
    }
}

impl Services {
    /// Checks `patch` and applies it to summary `id` as `actor` (recorded as an event, which
    /// the notifier then announces); the summary after it.
    pub async fn triage(
        &self,
        id: i64,
        patch: &AlertPatch,
        actor: &str,
    ) -> ServiceResult<AlertSummary> {
        let triage = Triage::try_from(patch)?;
        let summary = self
            .store
            .triage_alert(id, &triage.to_patch(), actor)
            .await?
            .map_err(ServiceError::Invalid)?
            .ok_or_else(|| ServiceError::NotFound(format!("no alert summary {id}")))?;
        self.wakers.events.notify_one();
        Ok(summary)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(patch: AlertPatch) -> String {
        match Triage::try_from(&patch) {
            Err(ServiceError::Invalid(why)) => why,
            other => panic!("{patch:?} gave {other:?}"),
        }
    }

    #[test]
    fn notes_are_bounded_and_cleaned() {
        let note = Note::parse("  looks real\u{7}\nbisecting \n").unwrap();
        assert_eq!(note.as_str(), "looks real\nbisecting");
        assert!(Note::parse(&"x".repeat(MAX_NOTE)).is_ok());
        assert_eq!(
            Note::parse(&"x".repeat(MAX_NOTE + 1)).unwrap_err(),
            format!("note is longer than {MAX_NOTE} characters")
        );
    }

    #[test]
    fn an_assignee_is_a_label_or_nobody() {
        assert_eq!(Assignee::parse(" ").unwrap(), Assignee::Nobody);
        assert_eq!(Assignee::parse("").unwrap().as_str(), "");
        assert_eq!(Assignee::parse("ada").unwrap().as_str(), "ada");
        assert!(Assignee::parse("a\nb")
            .unwrap_err()
            .starts_with("assignee "));
    }

    #[test]
    fn a_patch_is_checked_as_a_whole() {
        assert!(refused(AlertPatch::default()).starts_with("nothing to change"));
        assert_eq!(
            refused(AlertPatch {
                fixed_by: Some(2),
                ..AlertPatch::default()
            }),
            "fixed_by goes with status fixed"
        );
        assert!(refused(AlertPatch {
            status: Some(AlertStatus::AwaitingConfirmation),
            ..AlertPatch::default()
        })
        .contains("Perfline's to set"));
        let patch = AlertPatch {
            status: Some(AlertStatus::Fixed),
            note: Some(" done ".into()),
            assignee: Some(String::new()),
            fixed_by: Some(2),
        };
        let triage = Triage::try_from(&patch).unwrap();
        assert_eq!(triage.assignee, Some(Assignee::Nobody));
        assert_eq!(
            triage.to_patch(),
            AlertPatch {
                note: Some("done".into()),
                ..patch
            }
        );
    }
}
