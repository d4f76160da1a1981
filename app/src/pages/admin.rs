// SPDX-License-Identifier: GPL-3.0-or-later
//! What an admin may do on the upload and run pages: delete an upload, correct a run. Shown
//! once the browser knows the reader is an admin (so server and browser render alike first),
//! and each asks for a confirmation. Both are islands.

use leptos::prelude::*;

use crate::api::{correct_run, delete_upload, get_whoami};
use crate::types::RunFix;

/// Whether the reader may delete and correct, asked once the page runs in the browser.
fn admin_signal() -> RwSignal<bool> {
    let admin = RwSignal::new(false);
    Effect::new(move |_| {
        leptos::task::spawn_local(async move {
            admin.set(get_whoami().await.is_ok_and(|w| w.is_admin));
        });
    });
    admin
}

/// Asks the reader to confirm; false outside a browser.
pub(crate) fn confirmed(question: &str) -> bool {
    #[cfg(feature = "hydrate")]
    {
        window().confirm_with_message(question).unwrap_or(false)
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = question;
        false
    }
}

pub(crate) fn go_to(href: &str) {
    #[cfg(feature = "hydrate")]
    {
        let _ = window().location().set_href(href);
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = href;
}

#[island]
pub fn DeleteUpload(id: i64) -> impl IntoView {
    let admin = admin_signal();
    let status = RwSignal::new(String::new());
    let delete = move |_| {
        if !confirmed(&format!(
            "Delete upload #{id}: its files, runs and samples, from every trend and comparison? Permalinks over its runs will say they were deleted."
        )) {
            return;
        }
        leptos::task::spawn_local(async move {
            match delete_upload(id).await {
                Ok(()) => go_to("/"),
                Err(e) => status.set(format!("Could not delete: {e}")),
            }
        });
    };
    view! {
        <Show when=move || admin.get()>
            <p class="admin">
                <button id="delete-upload" class="danger" on:click=delete>"Delete this upload"</button>
                " " <span id="delete-status" role="status">{move || status.get()}</span>
            </p>
        </Show>
    }
}

#[island]
pub fn CorrectRun(id: i64) -> impl IntoView {
    let admin = admin_signal();
    let status = RwSignal::new(String::new());
    let fix = RwSignal::new(RunFix::default());
    let field = move |id: &'static str, label: &'static str, set: fn(&mut RunFix, String)| {
        view! {
            <label for=id>{label}</label>
            <input id=id type="text" maxlength="200"
                on:input=move |ev| { let v = event_target_value(&ev); fix.update(|f| set(f, v)); } />
        }
    };
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let fix = fix.get_untracked();
        if !confirmed(&format!("Correct run #{id}? Its trends are rebuilt, and permalinks over it will say it was corrected.")) {
            return;
        }
        leptos::task::spawn_local(async move {
            match correct_run(id, fix).await {
                Ok(_) => go_to(&format!("/runs/{id}")),
                Err(e) => status.set(format!("Could not correct: {e}")),
            }
        });
    };
    view! {
        <Show when=move || admin.get()>
            <h2>"Correct this run"</h2>
            <form id="correct-run" class="form" on:submit=submit>
                {field("correct-machine", "Machine", |f, v| f.machine = v)}
                {field("correct-kernel", "Kernel", |f, v| f.kernel = v)}
                {field("correct-commit", "Commit", |f, v| f.commit = v)}
                {field("correct-tags", "Tags", |f, v| f.tags = v)}
                <div></div>
                <button type="submit" id="correct-submit">"Correct"</button>
            </form>
            <p id="correct-status" role="status">{move || status.get()}</p>
        </Show>
    }
}
