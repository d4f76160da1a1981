// SPDX-License-Identifier: GPL-3.0-or-later
//! The upload page (`/upload`): the form (files, a folder, or dropped ones) with the curl
//! command that does the same, its progress, and the server's answer.

use leptos::prelude::*;

use super::{json_text as text, loading, RunRow, RunTable};
use crate::api::get_origin;

#[cfg(feature = "hydrate")]
mod browser;
mod view;

#[cfg(feature = "hydrate")]
use browser::*;
pub use view::UploadView;

/// Every format the server reads, with the start of an example (`docs/formats.md` has the rest).
const FORMATS: [(&str, &str, &str); 9] = [
    (
        "csv",
        "generic CSV, one row per sample",
        "benchmark,metric,param,iteration,value",
    ),
    (
        "json",
        "generic JSON: metadata and samples",
        r#"{"benchmark": "hackbench", "samples": [{"metric": "time", "value": 0.27}]}"#,
    ),
    (
        "netperf",
        "netperf 2.x output, classic or MIGRATED",
        "MIGRATED TCP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to ...",
    ),
    (
        "hackbench",
        "rt-tests hackbench or perf bench sched messaging",
        "Running in process mode with 4 groups ... Time: 0.120",
    ),
    (
        "sysbench",
        "sysbench 1.0 run output (cpu, memory, threads, mutex, fileio, oltp)",
        "sysbench 1.0.20 ... events per second: 3957.43",
    ),
    (
        "lkp",
        "an LKP program log, with LKP's derived numbers",
        "2023-09-12 08:54:50 netperf -4 -H 127.0.0.1 -t SCTP_STREAM_MANY ...",
    ),
    (
        "lkp-stats",
        "LKP stats.json: one run",
        r#"{"netperf.Throughput_Mbps": 2497.1}"#,
    ),
    (
        "lkp-matrix",
        "LKP matrix.json: one run per column",
        r#"{"stats_source": [...], "netperf.Throughput_Mbps": [2497.1, 2501.3]}"#,
    ),
    (
        "mmtests",
        "a .tar or .tar.gz of mmtests' work/log (or choose the folder)",
        "tar czf work-log.tar.gz -C work log",
    ),
];

/// One file of an upload as the page shows it while sending: its size and the bytes sent.
#[derive(Debug, Clone, PartialEq)]
struct Sending {
    name: String,
    size: f64,
    sent: f64,
}

/// Where an upload from the page is.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(
    not(feature = "hydrate"),
    allow(
        dead_code,
        reason = "only the browser build sends; the server renders the idle form"
    )
)]
enum Phase {
    Idle,
    Sending,
    /// Every byte is sent; the server parses and stores.
    Storing,
    Done(Box<Stored>),
    /// The robot's report mails (issue 56): their sections.
    Mails(Box<MailsAnswer>),
    Failed(String),
}

/// How far each file of a multipart body has been sent when `loaded` of `total` bytes have:
/// the parts go in order, so the bytes map onto the files' cumulative sizes (scaled to the
/// total, which the multipart framing makes a little larger than the files).
#[cfg_attr(
    not(feature = "hydrate"),
    allow(
        dead_code,
        reason = "only the browser build sends; the server renders the idle form"
    )
)]
fn spread_progress(sizes: &[f64], loaded: f64, total: f64) -> Vec<f64> {
    let sum: f64 = sizes.iter().sum();
    let done = if total > 0.0 {
        (loaded / total).clamp(0.0, 1.0) * sum
    } else {
        0.0
    };
    let mut before = 0.0;
    sizes
        .iter()
        .map(|&size| {
            let sent = (done - before).clamp(0.0, size);
            before += size;
            sent
        })
        .collect()
}

/// A JSON list's items, or none.
fn list(v: &serde_json::Value) -> &[serde_json::Value] {
    v.as_array().map_or(&[], Vec::as_slice)
}

/// The strings of a JSON list, or none.
fn strings(v: &serde_json::Value) -> Vec<String> {
    list(v)
        .iter()
        .filter_map(|s| s.as_str().map(str::to_owned))
        .collect()
}

/// What the page shows of an upload of mails (`MailsStored`): each report's link, what it
/// says and where; how many were new; each refused mail and why. Read from the JSON as
/// values, not as the typed answer: that keeps its decoder out of the browser's WASM.
#[derive(Debug, Clone, PartialEq)]
struct MailsAnswer {
    reports: Vec<(String, String, String)>,
    new: u64,
    refused: Vec<String>,
    /// The uploads holding the plots' samples as runs, as links.
    plot_uploads: Vec<String>,
    /// What was not stored as runs, and why.
    notes: Vec<String>,
}

#[cfg_attr(
    not(feature = "hydrate"),
    allow(
        dead_code,
        reason = "only the browser build sends; the server renders the idle form"
    )
)]
fn mails_answer(body: &str) -> Option<MailsAnswer> {
    let v: serde_json::Value = serde_json::from_str(body).ok()?;
    let reports = v["reports"]
        .as_array()?
        .iter()
        .map(|r| {
            (
                format!("/reports/{}", r["id"].as_i64().unwrap_or_default()),
                format!(
                    "{} {} of {}",
                    text(r, "change"),
                    text(r, "kind"),
                    text(r, "kpi")
                ),
                format!(
                    " — {} on {}, {}",
                    text(r, "testcase"),
                    text(r, "machine"),
                    crate::text::short_commit(&text(r, "commit"))
                ),
            )
        })
        .collect();
    let refused = v["refused"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|r| format!("mail {}: {}", r["mail"], text(r, "reason")))
                .collect()
        })
        .unwrap_or_default();
    let plot_uploads = v["plot_uploads"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(serde_json::Value::as_i64)
                .map(|id| format!("/uploads/{id}"))
                .collect()
        })
        .unwrap_or_default();
    let notes = strings(&v["notes"]);
    Some(MailsAnswer {
        reports,
        new: v["new"].as_u64().unwrap_or_default(),
        refused,
        plot_uploads,
        notes,
    })
}

/// What the page shows of a stored upload (`UploadResponse`), read from the JSON as values:
/// its typed decoder (runs, files, an mmtests tree's directories) was 20 KB of the WASM.
#[derive(Debug, Clone, PartialEq)]
struct Stored {
    created: bool,
    id: i64,
    page: String,
    runs: i64,
    samples: i64,
    /// Each file's name, format and size.
    files: Vec<(String, String, i64)>,
    skipped: Vec<String>,
    rows: Vec<RunRow>,
}

#[cfg_attr(
    not(feature = "hydrate"),
    allow(
        dead_code,
        reason = "only the browser build sends; the server renders the idle form"
    )
)]
fn stored_answer(body: &str) -> Option<Stored> {
    let v: serde_json::Value = serde_json::from_str(body).ok()?;
    let created = v["created"].as_bool()?;
    let u = &v["upload"];
    Some(Stored {
        created,
        id: u["id"].as_i64()?,
        page: text(u, "page"),
        runs: u["runs"].as_i64().unwrap_or_default(),
        samples: u["samples"].as_i64().unwrap_or_default(),
        files: list(&u["files"])
            .iter()
            .map(|f| {
                (
                    f["name"]
                        .as_str()
                        .map_or_else(|| "request body".to_owned(), str::to_owned),
                    text(f, "format"),
                    f["size"].as_i64().unwrap_or_default(),
                )
            })
            .collect(),
        skipped: strings(&v["skipped"]),
        rows: list(&v["runs"]).iter().map(RunRow::of_json).collect(),
    })
}

/// What the server's answer to an upload means for the page.
#[cfg_attr(
    not(feature = "hydrate"),
    allow(
        dead_code,
        reason = "only the browser build sends; the server renders the idle form"
    )
)]
fn answer(status: u16, body: &str) -> Phase {
    if (200..300).contains(&status) {
        if let Some(mails) = mails_answer(body) {
            return Phase::Mails(Box::new(mails));
        }
        return match stored_answer(body) {
            Some(r) => Phase::Done(Box::new(r)),
            None => Phase::Failed("an answer the page cannot read".to_owned()),
        };
    }
    let v: serde_json::Value = serde_json::from_str(body).unwrap_or_default();
    let e = &v["error"];
    let mut message = e["message"]
        .as_str()
        .map_or_else(|| format!("the server answered {status}"), str::to_owned);
    if let Some(file) = e["file"].as_str() {
        if !message.starts_with(file) {
            message = match e["line"].as_u64() {
                Some(line) => format!("{file}: line {line}: {message}"),
                None => format!("{file}: {message}"),
            };
        }
    }
    Phase::Failed(message)
}

/// The curl command equivalent to the upload form with these fields.
pub fn curl_command(origin: &str, fields: &[(&str, String)]) -> String {
    let mut cmd = String::from("curl -F file=@results.csv");
    for (name, value) in fields {
        let value = value.trim();
        if !value.is_empty() {
            cmd.push_str(" -F ");
            cmd.push_str(&crate::shell::quote(&format!("{name}={value}")));
        }
    }
    cmd.push(' ');
    cmd.push_str(origin);
    cmd.push_str("/api/v1/upload");
    cmd
}

#[component]
pub fn UploadPage() -> impl IntoView {
    // Who is asking and the origin for the curl command, in one resource: a view awaits
    // one thing (two awaits in one `Suspend` can resume the render on another thread).
    let visit = Resource::new(
        || (),
        |_| async { (crate::api::get_whoami().await, get_origin().await) },
    );
    view! {
        <h1>"Upload results"</h1>
        <p>"CSV with the header " <code>"benchmark,metric,param,iteration,value"</code>
           " (optional " <code>"unit,direction,kernel,machine,commit"</code> ") or the same content as JSON. "
           "Fields below fill what the file does not say."</p>
        // Only what the visitor may do: a visitor who may not upload gets the way to sign in
        // instead of a form that would be refused.
        <Suspense fallback=loading>
            {move || Suspend::new(async move {
                let (who, origin) = visit.await;
                match who {
                    Ok(w) if !w.can_upload => view! {
                        <p class="error" id="upload-signin">"Uploading needs a sign-in with a token that has the upload scope: "
                            <a href="/signin?next=/upload">"Sign in"</a></p>
                        <p>"Robots send the same files with " <code>"curl"</code> " or " <code>"perfline upload"</code>
                            " and " <code>"Authorization: Bearer <token>"</code> "."</p>
                    }.into_any(),
                    _ => {
                        let origin = origin.unwrap_or_else(|_| "http://127.0.0.1:3000".to_owned());
                        view! { <UploadForm origin=origin /> }.into_any()
                    }
                }
            })}
        </Suspense>
        <h2 id="formats">"Formats"</h2>
        <p>"The format is detected from each file's content; every format, with a full example, is in "
            <a href="/docs/formats.md">"docs/formats.md"</a> "."</p>
        // Rows inside an explicit <tbody>: the HTML parser adds one anyway.
        <table id="format-list">
            <thead><tr><th>"format"</th><th>"what"</th><th>"starts like"</th></tr></thead>
            <tbody>
                {FORMATS.iter().map(|(key, what, example)| view! {
                    <tr><td><code>{*key}</code></td><td>{*what}</td><td><code class="small">{*example}</code></td></tr>
                }).collect_view()}
            </tbody>
        </table>
    }
}

/// The upload form, its progress and the same upload as a `curl` command: an island.
#[island]
fn UploadForm(
    /// This server's origin, for the `curl` command.
    origin: String,
) -> impl IntoView {
    let benchmark = RwSignal::new(String::new());
    let machine = RwSignal::new(String::new());
    let kernel = RwSignal::new(String::new());
    let commit = RwSignal::new(String::new());
    let tags = RwSignal::new(String::new());
    let format = RwSignal::new("auto".to_owned());
    let files = RwSignal::new(Vec::<Sending>::new());
    let phase = RwSignal::new(Phase::Idle);
    let file_input = NodeRef::<leptos::html::Input>::new();
    let folder_input = NodeRef::<leptos::html::Input>::new();
    // A folder dropped on the form (read in the browser), and what the page says of it. Only
    // in the browser: a local value made while rendering on the server is a `SendWrapper`
    // that panics when a worker thread other than its own drops it (leptos#4746).
    #[cfg(feature = "hydrate")]
    let dropped = StoredValue::new_local(Folder::new());
    let dropped_note = RwSignal::new(String::new());
    // With the WASM running the form is sent by XHR, for per-file progress and the results on
    // this page; without it the browser posts the form and the server redirects.
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        #[cfg(feature = "hydrate")]
        send_form(ev, (file_input, folder_input), dropped, files, phase);
        #[cfg(not(feature = "hydrate"))]
        let _ = (ev, folder_input, files, phase);
    };
    // A folder chooser (`webkitdirectory`, which Leptos' typed attributes do not know), set
    // once the page runs: only the WASM reads folders.
    Effect::new(move |_| {
        if let Some(input) = folder_input.get() {
            let _ = input.set_attribute("webkitdirectory", "");
        }
    });
    let on_drop = move |ev: leptos::ev::DragEvent| {
        #[cfg(feature = "hydrate")]
        drop_files(&ev, file_input, dropped, dropped_note);
        #[cfg(not(feature = "hydrate"))]
        let _ = ev;
    };
    let curl = move |origin: String| {
        let fmt = format.get();
        curl_command(
            &origin,
            &[
                ("benchmark", benchmark.get()),
                ("machine", machine.get()),
                ("kernel", kernel.get()),
                ("commit", commit.get()),
                ("tags", tags.get()),
                ("format", if fmt == "auto" { String::new() } else { fmt }),
            ],
        )
    };
    let field =
        |id: &'static str, label: &'static str, hint: &'static str, sig: RwSignal<String>| {
            view! {
                <label for=id>{label}</label>
                <input id=id name=id type="text" placeholder=hint maxlength="200"
                    prop:value=move || sig.get()
                    on:input=move |ev| sig.set(event_target_value(&ev)) />
            }
        };
    view! {
        <form id="upload-form" method="post" action="/api/v1/upload" enctype="multipart/form-data" class="form"
            on:submit=on_submit on:dragover=|ev: leptos::ev::DragEvent| ev.prevent_default() on:drop=on_drop>
            <label for="file">"Files"</label>
            <input id="file" name="file" type="file" multiple node_ref=file_input
                title="Choose files, or drop them on the form" />
            <label for="folder">"Or a folder"</label>
            // No name: the browser's own post (without the WASM) sends the files only.
            <div>
                <input id="folder" type="file" multiple node_ref=folder_input
                    title="An mmtests work/log folder (sent as a tar), or an LKP result directory; or drop it on the form" />
                " " <span id="dropped-folder" class="muted" role="status">{move || dropped_note.get()}</span>
            </div>
            {field("benchmark", "Benchmark", "netperf-tcp", benchmark)}
            {field("machine", "Machine", "lkp-bdw-de1", machine)}
            {field("kernel", "Kernel", "4.16.0-rc1", kernel)}
            {field("commit", "Commit", "a337531b94", commit)}
            {field("tags", "Tags", "governor=performance,ip=ipv4", tags)}
            <label for="format">"Format"</label>
            <select id="format" name="format" on:change=move |ev| format.set(event_target_value(&ev))>
                <option value="auto" selected>"detect"</option>
                <option value="csv">"generic CSV"</option>
                <option value="json">"generic JSON"</option>
                <option value="lkp-mail">"LKP report mail(s)"</option>
            </select>
            <div></div>
            <button type="submit" id="upload-submit"
                disabled=move || matches!(phase.get(), Phase::Sending | Phase::Storing)>"Upload"</button>
        </form>
        <UploadProgress files phase />
        <h2>"The same with curl"</h2>
        <pre id="curl" class="cmd">{move || curl(origin.clone())}</pre>
    }
}

/// Each file's progress while sending, then the server's verdict: the stored files with their
/// detected formats and the runs, or the error with its file and line.
#[component]
fn UploadProgress(files: RwSignal<Vec<Sending>>, phase: RwSignal<Phase>) -> impl IntoView {
    let rows =
        move || {
            files
            .get()
            .into_iter()
            .map(|f| {
                let pct = if f.size > 0.0 { 100.0 * f.sent / f.size } else { 100.0 };
                view! {
                    <li class="file-progress" data-name=f.name.clone() data-sent=f.sent.to_string()>
                        <span class="name">{f.name.clone()}</span> " "
                        <progress max=f.size.max(1.0).to_string() value=f.sent.to_string()
                            aria-label=format!("{} sent", f.name)></progress>
                        " " <span class="pct">{format!("{pct:.0}%")}</span>
                    </li>
                }
            })
            .collect_view()
        };
    let verdict = move || match phase.get() {
        Phase::Idle => ().into_any(),
        Phase::Sending => view! { <p id="upload-phase">"Sending…"</p> }.into_any(),
        Phase::Storing => view! { <p id="upload-phase">"Parsing and storing…"</p> }.into_any(),
        Phase::Failed(message) => {
            view! { <p class="error" id="upload-error">{message}</p> }.into_any()
        }
        Phase::Mails(m) => {
            let MailsAnswer {
                reports,
                new,
                refused,
                plot_uploads,
                notes,
            } = *m;
            let stored = format!(
                "Stored {} report section(s) of the robot's mails, {new} new.",
                reports.len()
            );
            view! {
                <p class="ok" id="upload-result">{stored} " " <a id="upload-link" href="/reports">"The reports"</a></p>
                <ul id="upload-reports">
                    {reports.into_iter().map(|(href, what, place)| view! {
                        <li><a href=href>{what}</a>{place}</li>
                    }).collect_view()}
                </ul>
                {(!plot_uploads.is_empty()).then(|| view! {
                    <p id="upload-plot-runs">"The plots' samples, as runs marked bisect-good and bad: "
                        {plot_uploads.into_iter().map(|href| {
                            let name = format!("upload #{} ", href.trim_start_matches("/uploads/"));
                            view! { <a href=href>{name}</a> }
                        }).collect_view()}
                    </p>
                })}
                {(!notes.is_empty()).then(|| view! {
                    <ul id="upload-notes" class="notes">
                        {notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}
                    </ul>
                })}
                {(!refused.is_empty()).then(|| view! {
                    <ul id="upload-refused" class="error">
                        {refused.into_iter().map(|r| view! { <li>{r}</li> }).collect_view()}
                    </ul>
                })}
            }
            .into_any()
        }
        Phase::Done(r) => {
            let Stored {
                created,
                id,
                page,
                runs,
                samples,
                files,
                skipped,
                rows,
            } = *r;
            let stored = if created {
                format!("Stored {runs} runs with {samples} samples.")
            } else {
                format!(
                    "Already stored: the same files and fields were uploaded before ({runs} runs)."
                )
            };
            let skipped = crate::types::skipped_line(&skipped);
            view! {
                <p class="ok" id="upload-result">{stored} " " <a id="upload-link" href=page>{format!("Upload #{id}")}</a></p>
                {(!skipped.is_empty()).then(|| view! { <p class="muted" id="upload-skipped">{skipped.trim_end().to_owned()}</p> })}
                <table id="upload-files">
                    <thead><tr><th>"file"</th><th>"format"</th><th class="num">"bytes"</th></tr></thead>
                    <tbody>
                        {files.into_iter().map(|(name, format, size)| view! {
                            <tr><td>{name}</td>
                                <td class="format">{format}</td><td class="num">{size}</td></tr>
                        }).collect_view()}
                    </tbody>
                </table>
                <RunTable runs=rows />
            }
            .into_any()
        }
    };
    view! {
        <section id="upload-progress" aria-live="polite">
            <ul class="file-progress">{rows}</ul>
            {verdict}
        </section>
    }
}

/// A folder's files, each with its path `<folder>/<path inside it>` (as `webkitRelativePath`
/// names a chosen folder's files).
#[cfg(feature = "hydrate")]
type Folder = Vec<(String, web_sys::File)>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mails_answer_is_its_reports_and_refusals() {
        let body = r#"{"reports": [{"id": 7, "change": "-6.1%", "kind": "regression", "kpi": "netperf.Throughput_Mbps", "testcase": "netperf", "machine": "lkp-icl-2sp2", "commit": "01d37228d331047a0bbbd1026cec2ccabef6d88d"}], "new": 1, "refused": [{"mail": 1, "message_id": null, "reason": "no headline"}]}"#;
        let Phase::Mails(m) = answer(201, body) else {
            panic!("not read as mails");
        };
        assert_eq!(m.new, 1);
        assert_eq!(m.reports[0].0, "/reports/7");
        assert_eq!(
            m.reports[0].1,
            "-6.1% regression of netperf.Throughput_Mbps"
        );
        assert!(m.reports[0].2.contains("netperf on lkp-icl-2sp2"));
        assert_eq!(m.refused, ["mail 1: no headline"]);
        assert!(m.plot_uploads.is_empty() && m.notes.is_empty());
        let body = r#"{"reports": [], "new": 0, "refused": [], "plot_uploads": [12], "notes": ["no mark scope: the plots' samples were not stored as runs"]}"#;
        let Phase::Mails(m) = answer(201, body) else {
            panic!("not read as mails");
        };
        assert_eq!(m.plot_uploads, ["/uploads/12"]);
        assert_eq!(
            m.notes,
            ["no mark scope: the plots' samples were not stored as runs"]
        );
        // A runs upload is not a mails answer.
        assert!(mails_answer(r#"{"created": true, "runs": []}"#).is_none());
    }

    /// The page reads what it shows of a stored upload from the server's own type's JSON.
    #[test]
    fn a_stored_upload_is_read_from_the_answer_s_json() {
        use crate::types::{RunSummary, UploadFile, UploadResponse, UploadSummary};
        let run = RunSummary {
            id: 3,
            benchmark: "netperf".into(),
            machine: "lkp-skl-d01".into(),
            kernel: "6.8".into(),
            commit: Some("01d37228d3".into()),
            tags: vec![("a".into(), "b".into())],
            facts: Vec::new(),
            samples: 12,
            upload_id: 2,
            uploaded_by: Some("robot".into()),
            created_at: "2026-12-07 18:00:00".into(),
            url: "/api/v1/runs/3".into(),
            page: "/runs/3".into(),
        };
        let stored = UploadResponse {
            created: true,
            upload: UploadSummary {
                id: 2,
                created_at: run.created_at.clone(),
                uploaded_by: None,
                files: vec![UploadFile {
                    index: 0,
                    name: None,
                    format: "csv".into(),
                    size: 99,
                    sha256: "00".into(),
                    raw_url: "/raw".into(),
                }],
                runs: 1,
                samples: 12,
                url: "/api/v1/uploads/2".into(),
                page: "/uploads/2".into(),
            },
            runs: vec![run.clone()],
            skipped: vec!["a.json: x: too long".into()],
            directories: Vec::new(),
        };
        let Phase::Done(s) = answer_of(&stored) else {
            panic!("not read as a stored upload");
        };
        assert_eq!(
            *s,
            Stored {
                created: true,
                id: 2,
                page: "/uploads/2".into(),
                runs: 1,
                samples: 12,
                files: vec![("request body".into(), "csv".into(), 99)],
                skipped: vec!["a.json: x: too long".into()],
                rows: vec![RunRow::from(run)],
            }
        );
        assert!(matches!(answer(201, "{}"), Phase::Failed(_)));
    }

    fn answer_of(r: &crate::types::UploadResponse) -> Phase {
        answer(201, &serde_json::to_string(r).unwrap())
    }

    #[test]
    fn progress_is_spread_over_the_files_in_order() {
        let sizes = [100.0, 50.0, 50.0];
        assert_eq!(spread_progress(&sizes, 0.0, 220.0), [0.0, 0.0, 0.0]);
        assert_eq!(spread_progress(&sizes, 110.0, 220.0), [100.0, 0.0, 0.0]);
        assert_eq!(spread_progress(&sizes, 165.0, 220.0), [100.0, 50.0, 0.0]);
        assert_eq!(spread_progress(&sizes, 220.0, 220.0), [100.0, 50.0, 50.0]);
        assert_eq!(spread_progress(&sizes, 999.0, 220.0), [100.0, 50.0, 50.0]);
        assert_eq!(spread_progress(&[], 1.0, 0.0), Vec::<f64>::new());
    }

    #[test]
    fn an_error_answer_names_its_file_and_line() {
        let body = r#"{"error": {"status": 422, "code": "unprocessable", "message": "value 'fast' is not a number", "file": "a.csv", "line": 3}}"#;
        assert_eq!(
            answer(422, body),
            Phase::Failed("a.csv: line 3: value 'fast' is not a number".into())
        );
        let said = r#"{"error": {"status": 422, "code": "unprocessable", "message": "a.csv: line 3: bad", "file": "a.csv", "line": 3}}"#;
        assert_eq!(
            answer(422, said),
            Phase::Failed("a.csv: line 3: bad".into())
        );
        assert_eq!(
            answer(502, "<html>"),
            Phase::Failed("the server answered 502".into())
        );
        assert!(matches!(answer(201, "{}"), Phase::Failed(m) if m.starts_with("an answer")));
    }

    #[test]
    fn curl_quotes_what_the_shell_would_split() {
        let cmd = curl_command(
            "http://h:1",
            &[
                ("machine", "my box".into()),
                ("kernel", "6.1".into()),
                ("commit", String::new()),
            ],
        );
        assert_eq!(
            cmd,
            "curl -F file=@results.csv -F 'machine=my box' -F kernel=6.1 http://h:1/api/v1/upload"
        );
        assert_eq!(crate::shell::quote("it's"), r#"'it'\''s'"#);
    }
}
