// SPDX-License-Identifier: GPL-3.0-or-later
//! The page of one stored upload (`/uploads/{id}`): its files and runs.

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use super::super::{error_view, loading, parse_id, RunRow, RunTable};
use crate::api::get_upload;
use crate::types::UploadDetail;

#[component]
pub fn UploadView() -> impl IntoView {
    let params = use_params_map();
    let id = move || parse_id(params.read().get("id"));
    let data = Resource::new(id, |id| async move {
        match id {
            Some(id) => get_upload(id).await,
            None => Ok(None),
        }
    });
    view! {
        <Suspense fallback=loading>
            {move || Suspend::new(async move {
                match data.await {
                    Ok(Some(d)) => upload_view(d),
                    Ok(None) => super::super::not_there("No such upload".into()),
                    Err(e) => error_view(e),
                }
            })}
        </Suspense>
    }
}

fn upload_view(d: UploadDetail) -> AnyView {
    let u = d.upload;
    // An mmtests tree: the page of all its benchmarks, per machine.
    let trees = u
        .files
        .iter()
        .any(|f| f.format == "mmtests")
        .then(|| crate::tree::summaries(u.id, &d.runs))
        .filter(|t| !t.is_empty())
        .map(|trees| {
            let items = trees
                .into_iter()
                .map(|t| view! {
                    <li>
                        <a href=t.report>{format!("Every benchmark on {}: {} benchmarks", t.machine, t.benchmarks.len())}</a>
                        <span class="muted">{format!(" ({})", t.kernels.join(" vs "))}</span>
                    </li>
                })
                .collect_view();
            view! {
                <section id="upload-trees">
                    <h2>"mmtests tree"</h2>
                    <ul>{items}</ul>
                </section>
            }
        });
    view! {
        <h1>{format!("Upload #{}", u.id)}</h1>
        <p class="ok" id="upload-result">{format!("Stored {} runs with {} samples on {}.", u.runs, u.samples, u.created_at)}</p>
        {u.uploaded_by.map(|by| view! { <p id="uploaded-by">"Uploaded by " <strong>{by}</strong></p> })}
        {trees}
        <h2>"Files"</h2>
        <ul>
            {u.files.into_iter().map(|f| view! {
                <li>
                    {f.name.unwrap_or_else(|| "request body".into())} " — " {f.format} ", " {f.size} " bytes, sha256 "
                    <span class="mono small">{f.sha256}</span> " "
                    <a href=f.raw_url>"raw"</a>
                </li>
            }).collect_view()}
        </ul>
        <h2>"Runs"</h2>
        <RunTable runs=RunRow::of_runs(d.runs) />
        <super::super::admin::DeleteUpload id=u.id />
    }
    .into_any()
}
