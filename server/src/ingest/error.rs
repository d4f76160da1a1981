// SPDX-License-Identifier: GPL-3.0-or-later
//! Why an upload was refused: [`IngestError`], with the file, line and field it is about.

use std::fmt;

/// Why an upload was refused: what is wrong, and where (file, line, field).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IngestError {
    pub message: String,
    pub file: Option<String>,
    pub line: Option<u64>,
    pub field: Option<String>,
}

impl IngestError {
    pub fn new(message: impl Into<String>) -> Self {
        IngestError {
            message: message.into(),
            file: None,
            line: None,
            field: None,
        }
    }

    pub fn at_line(line: u64, message: impl Into<String>) -> Self {
        IngestError {
            line: Some(line),
            ..IngestError::new(message)
        }
    }

    pub fn field(field: &str, message: impl Into<String>) -> Self {
        IngestError {
            field: Some(field.to_owned()),
            ..IngestError::new(message)
        }
    }

    /// Names the file the error is in; an error inside an archive becomes `archive:entry`.
    pub fn in_file(mut self, file: &str) -> Self {
        self.file = Some(match self.file.take() {
            None => file.to_owned(),
            Some(inner) => format!("{file}:{inner}"),
        });
        self
    }
}

impl fmt::Display for IngestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{file}: ")?;
        }
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        if let Some(field) = &self.field {
            if self.line.is_none() {
                write!(f, "field {field}: ")?;
            }
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for IngestError {}
