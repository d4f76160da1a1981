// SPDX-License-Identifier: GPL-3.0-or-later
//! What a page is told when one of its server functions fails: a typed error, the same on the
//! server (which answers the page with [`PageError::status`]) and in the browser (which shows
//! its sentence). The server's words for its own failures (SQL, the driver's) never get here:
//! an internal failure carries only the request id the log has them under.

use leptos::server_fn::codec::JsonEncoding;
use leptos::server_fn::error::{FromServerFnError, ServerFnErrorErr};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum PageError {
    /// The question is not one Perfline can answer as asked: a bad name, too many kernels.
    #[error("{0}")]
    BadRequest(String),
    /// Not signed in, or signed in without the scope the action needs.
    #[error("{0}")]
    Forbidden(String),
    /// What the page names is not there: a run, a permalink, a kernel.
    #[error("{0}")]
    NotFound(String),
    /// It was there and was deleted.
    #[error("{0}")]
    Gone(String),
    /// The name is taken.
    #[error("{0}")]
    Conflict(String),
    /// Busy or unreachable: try again in a moment.
    #[error("{0}")]
    Unavailable(String),
    /// A failure of the server's own; its log has the details under the request id.
    #[error("internal error; the server's log has the details (request id {request_id})")]
    Internal { request_id: String },
    /// The call itself failed: the network, or an answer the page cannot read.
    #[error("the server could not be asked: {0}")]
    Transport(String),
}

impl PageError {
    /// The HTTP status a page showing this error is answered with.
    pub fn status(&self) -> u16 {
        match self {
            PageError::BadRequest(_) => 400,
            PageError::Forbidden(_) => 403,
            PageError::NotFound(_) => 404,
            PageError::Gone(_) => 410,
            PageError::Conflict(_) => 409,
            PageError::Unavailable(_) => 503,
            PageError::Internal { .. } => 500,
            PageError::Transport(_) => 502,
        }
    }
}

impl FromServerFnError for PageError {
    type Encoder = JsonEncoding;

    fn from_server_fn_error(e: ServerFnErrorErr) -> Self {
        match e {
            // On the server: arguments that do not read (a missing field, a number that is
            // none) are the caller's fault.
            ServerFnErrorErr::Args(m) => PageError::BadRequest(format!(
                "the server cannot read this request's arguments: {m}"
            )),
            other => PageError::Transport(other.to_string()),
        }
    }
}

/// What the pages' server functions answer.
pub type PageResult<T> = Result<T, PageError>;
