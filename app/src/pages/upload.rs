use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use super::{error_view, loading, parse_id, RunTable};
use crate::api::{get_origin, get_upload};
use crate::types::{UploadDetail, UploadResponse};

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
    Done(Box<UploadResponse>),
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
        return match serde_json::from_str::<UploadResponse>(body) {
            Ok(r) => Phase::Done(Box::new(r)),
            Err(e) => Phase::Failed(format!("an answer the page cannot read: {e}")),
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

/// Quotes a value for a POSIX shell when it needs quoting.
pub(crate) fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.,:=/@%+".contains(c))
    {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r#"'\''"#))
    }
}

/// The curl command equivalent to the upload form with these fields.
pub fn curl_command(origin: &str, fields: &[(&str, String)]) -> String {
    let mut cmd = String::from("curl -F file=@results.csv");
    for (name, value) in fields {
        let value = value.trim();
        if !value.is_empty() {
            cmd.push_str(" -F ");
            cmd.push_str(&shell_quote(&format!("{name}={value}")));
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
    // A folder dropped on the form (read in the browser), and what the page says of it.
    let dropped = StoredValue::new_local(Folder::new());
    let dropped_note = RwSignal::new(String::new());
    // With the WASM running the form is sent by XHR, for per-file progress and the results on
    // this page; without it the browser posts the form and the server redirects.
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        #[cfg(feature = "hydrate")]
        send_form(ev, (file_input, folder_input), dropped, files, phase);
        #[cfg(not(feature = "hydrate"))]
        let _ = (ev, folder_input, dropped, files, phase);
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
        Phase::Done(r) => {
            let u = r.upload;
            let stored = if r.created {
                format!("Stored {} runs with {} samples.", u.runs, u.samples)
            } else {
                format!(
                    "Already stored: the same files and fields were uploaded before ({} runs).",
                    u.runs
                )
            };
            view! {
                <p class="ok" id="upload-result">{stored} " " <a id="upload-link" href=u.page.clone()>{format!("Upload #{}", u.id)}</a></p>
                <table id="upload-files">
                    <thead><tr><th>"file"</th><th>"format"</th><th class="num">"bytes"</th></tr></thead>
                    <tbody>
                        {u.files.into_iter().map(|f| view! {
                            <tr><td>{f.name.unwrap_or_else(|| "request body".into())}</td>
                                <td class="format">{f.format}</td><td class="num">{f.size}</td></tr>
                        }).collect_view()}
                    </tbody>
                </table>
                <RunTable runs=r.runs />
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

/// Sends the upload form by XHR: the chosen files, and a chosen folder packed as the server
/// expects (`pack_folder`); per-file progress from the upload's progress events, then the
/// answer.
#[cfg(feature = "hydrate")]
fn send_form(
    ev: leptos::ev::SubmitEvent,
    inputs: (NodeRef<leptos::html::Input>, NodeRef<leptos::html::Input>),
    dropped: StoredValue<Folder, LocalStorage>,
    files: RwSignal<Vec<Sending>>,
    phase: RwSignal<Phase>,
) {
    use leptos::wasm_bindgen::JsCast;
    let Some(form) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlFormElement>().ok())
    else {
        return;
    };
    let Ok(data) = web_sys::FormData::new_with_form(&form) else {
        // Let the browser post the form itself.
        return;
    };
    ev.prevent_default();
    let (file_input, folder_input) = inputs;
    let chosen = |input: NodeRef<leptos::html::Input>| -> Vec<web_sys::File> {
        let Some(list) = input.get_untracked().and_then(|i| i.files()) else {
            return Vec::new();
        };
        (0..list.length()).filter_map(|i| list.item(i)).collect()
    };
    let mut list: Vec<Sending> = chosen(file_input)
        .iter()
        .map(|f| Sending {
            name: f.name(),
            size: f.size(),
            sent: 0.0,
        })
        .collect();
    // A dropped folder, else the chosen one (each file with its `webkitRelativePath`).
    let mut folder = dropped.get_value();
    if folder.is_empty() {
        folder = chosen(folder_input)
            .into_iter()
            .map(|f| {
                let path = js_sys::Reflect::get(&f, &"webkitRelativePath".into())
                    .ok()
                    .and_then(|v| v.as_string())
                    .filter(|p| !p.is_empty())
                    .unwrap_or_else(|| f.name());
                (path, f)
            })
            .collect();
    }
    phase.set(Phase::Sending);
    files.set(list.clone());
    leptos::task::spawn_local(async move {
        if !folder.is_empty() {
            match pack_folder(&folder, &data).await {
                Ok(parts) => list.extend(parts),
                Err(e) => {
                    phase.set(Phase::Failed(e));
                    return;
                }
            }
            files.set(list);
        }
        if files.with_untracked(Vec::is_empty) {
            phase.set(Phase::Failed(
                "choose files or a folder to upload".to_owned(),
            ));
            return;
        }
        send(&data, files, phase);
    });
}

/// Reads a chosen folder and adds it to `data` as the server expects: an LKP result directory
/// (`job.yaml` at its top) as its picked files, with the machine, kernel and commit the job
/// states filling empty fields; anything else as a tar of the tree (an mmtests `work/log`).
/// Answers the parts added, for the progress bars.
#[cfg(feature = "hydrate")]
async fn pack_folder(folder: &Folder, data: &web_sys::FormData) -> Result<Vec<Sending>, String> {
    async fn bytes((path, f): &(String, web_sys::File)) -> Result<Vec<u8>, String> {
        let buffer = wasm_bindgen_futures::JsFuture::from(f.array_buffer())
            .await
            .map_err(|_| format!("cannot read {path}"))?;
        Ok(js_sys::Uint8Array::new(&buffer).to_vec())
    }
    let add = |name: &str, bytes: &[u8]| -> Result<Sending, String> {
        let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes).into());
        let blob = web_sys::Blob::new_with_u8_array_sequence(&parts)
            .map_err(|_| "the browser cannot build the upload".to_owned())?;
        data.append_with_blob_and_filename("file", &blob, name)
            .map_err(|_| "the browser cannot build the upload".to_owned())?;
        Ok(Sending {
            name: name.to_owned(),
            size: bytes.len() as f64,
            sent: 0.0,
        })
    };
    let inside = |(path, _): &(String, web_sys::File)| -> String {
        path.split_once('/')
            .map_or(path.clone(), |(_, rest)| rest.to_owned())
    };
    if let Some(job_file) = folder.iter().find(|f| inside(f) == "job.yaml") {
        let job = String::from_utf8_lossy(&bytes(job_file).await?).into_owned();
        let top: Vec<String> = folder
            .iter()
            .map(inside)
            .filter(|p| !p.contains('/'))
            .collect();
        let names: Vec<&str> = top.iter().map(String::as_str).collect();
        let picked = crate::resultdir::lkp_files(&names, &job)?;
        let mut parts = Vec::new();
        for name in picked {
            if let Some(f) = folder.iter().find(|f| inside(f) == name) {
                parts.push(add(&name, &bytes(f).await?)?);
            }
        }
        let meta = crate::resultdir::job_meta(&job);
        for (field, value) in [
            ("machine", meta.machine),
            ("kernel", meta.kernel),
            ("commit", meta.commit),
        ] {
            let empty = data
                .get(field)
                .as_string()
                .is_none_or(|v| v.trim().is_empty());
            if let (true, Some(v)) = (empty, value) {
                let _ = data.set_with_str(field, &v);
            }
        }
        return Ok(parts);
    }
    let mut entries = Vec::with_capacity(folder.len());
    for f in folder {
        entries.push((f.0.clone(), bytes(f).await?));
    }
    let tar = crate::resultdir::ustar(&entries)?;
    Ok(vec![add("work-log.tar", &tar)?])
}

/// Posts `data` by XHR, following the upload's progress into `files` and the answer into
/// `phase`.
#[cfg(feature = "hydrate")]
fn send(data: &web_sys::FormData, files: RwSignal<Vec<Sending>>, phase: RwSignal<Phase>) {
    use leptos::wasm_bindgen::closure::Closure;
    use leptos::wasm_bindgen::JsCast;
    let Ok(xhr) = web_sys::XmlHttpRequest::new() else {
        phase.set(Phase::Failed("the browser cannot send the form".to_owned()));
        return;
    };
    let progress =
        Closure::<dyn FnMut(web_sys::ProgressEvent)>::new(move |e: web_sys::ProgressEvent| {
            if !e.length_computable() {
                return;
            }
            let sizes: Vec<f64> = files.with_untracked(|f| f.iter().map(|f| f.size).collect());
            let sent = spread_progress(&sizes, e.loaded(), e.total());
            files.update(|f| {
                for (f, s) in f.iter_mut().zip(sent) {
                    f.sent = s;
                }
            });
        });
    let sent = Closure::<dyn FnMut()>::new(move || {
        if phase.get_untracked() == Phase::Sending {
            phase.set(Phase::Storing);
        }
    });
    let request = xhr.clone();
    let answered = Closure::<dyn FnMut()>::new(move || {
        let status = request.status().unwrap_or(0);
        let body = request.response_text().ok().flatten().unwrap_or_default();
        phase.set(answer(status, &body));
    });
    let failed = Closure::<dyn FnMut()>::new(move || {
        phase.set(Phase::Failed(
            "the connection failed before the server answered".to_owned(),
        ));
    });
    if let Ok(upload) = xhr.upload() {
        upload.set_onprogress(Some(progress.as_ref().unchecked_ref()));
        upload.set_onload(Some(sent.as_ref().unchecked_ref()));
    }
    xhr.set_onload(Some(answered.as_ref().unchecked_ref()));
    xhr.set_onerror(Some(failed.as_ref().unchecked_ref()));
    // One upload's handlers, kept for the page's life (a few closures per upload).
    progress.forget();
    sent.forget();
    answered.forget();
    failed.forget();
    let ok = xhr.open("POST", "/api/v1/upload").is_ok()
        && xhr.set_request_header("Accept", "application/json").is_ok()
        && xhr.send_with_opt_form_data(Some(data)).is_ok();
    if !ok {
        phase.set(Phase::Failed(
            "the browser could not send the form".to_owned(),
        ));
    }
}

/// A folder's files, each with its path `<folder>/<path inside it>` (as `webkitRelativePath`
/// names a chosen folder's files).
#[cfg(feature = "hydrate")]
type Folder = Vec<(String, web_sys::File)>;
#[cfg(not(feature = "hydrate"))]
type Folder = Vec<(String, ())>;

/// The most files a dropped folder may hold (an mmtests `work/log` has hundreds).
#[cfg(feature = "hydrate")]
const MAX_FOLDER_FILES: usize = 20_000;

/// Files dropped on the form become the chosen files; a dropped folder is read (every file in
/// it, recursively) and sent as a chosen folder would be.
#[cfg(feature = "hydrate")]
fn drop_files(
    ev: &leptos::ev::DragEvent,
    file_input: NodeRef<leptos::html::Input>,
    folder: StoredValue<Folder, LocalStorage>,
    note: RwSignal<String>,
) {
    ev.prevent_default();
    // The entries can only be taken while the drop event runs.
    let entries: Vec<web_sys::FileSystemEntry> = ev
        .data_transfer()
        .map(|d| d.items())
        .map(|items| {
            (0..items.length())
                .filter_map(|i| items.get(i))
                .filter_map(|item| item.webkit_get_as_entry().ok().flatten())
                .collect()
        })
        .unwrap_or_default();
    if let Some(dir) = entries
        .into_iter()
        .find(web_sys::FileSystemEntry::is_directory)
    {
        let name = dir.name();
        note.set(format!("Reading the folder {name}…"));
        leptos::task::spawn_local(async move {
            match read_folder(dir).await {
                Ok(files) => {
                    note.set(format!("The folder {name}: {} files", files.len()));
                    folder.set_value(files);
                }
                Err(e) => {
                    note.set(format!("Could not read the folder {name}: {e}"));
                    folder.set_value(Folder::new());
                }
            }
        });
        return;
    }
    folder.set_value(Folder::new());
    note.set(String::new());
    let dropped = ev.data_transfer().and_then(|d| d.files());
    if let (Some(list), Some(input)) = (dropped, file_input.get_untracked()) {
        if list.length() > 0 {
            input.set_files(Some(&list));
        }
    }
}

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
                    Ok(None) => super::not_there("No such upload".into()),
                    Err(e) => error_view(e),
                }
            })}
        </Suspense>
    }
}

fn upload_view(d: UploadDetail) -> AnyView {
    let u = d.upload;
    view! {
        <h1>{format!("Upload #{}", u.id)}</h1>
        <p class="ok" id="upload-result">{format!("Stored {} runs with {} samples on {}.", u.runs, u.samples, u.created_at)}</p>
        {u.uploaded_by.map(|by| view! { <p id="uploaded-by">"Uploaded by " <strong>{by}</strong></p> })}
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
        <RunTable runs=d.runs />
        <super::admin::DeleteUpload id=u.id />
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(shell_quote("it's"), r#"'it'\''s'"#);
    }
}

/// Every file under a dropped folder, by path, in path order.
#[cfg(feature = "hydrate")]
async fn read_folder(root: web_sys::FileSystemEntry) -> Result<Folder, String> {
    use leptos::wasm_bindgen::JsCast;
    /// The browser's callback API as a future: `call(success, error)`.
    async fn called(
        call: impl FnOnce(&js_sys::Function, &js_sys::Function),
    ) -> Result<leptos::wasm_bindgen::JsValue, String> {
        let mut call = Some(call);
        let promise = js_sys::Promise::new(&mut |ok, err| {
            if let Some(call) = call.take() {
                call(&ok, &err);
            }
        });
        wasm_bindgen_futures::JsFuture::from(promise)
            .await
            .map_err(|e| format!("{e:?}"))
    }
    let mut out = Folder::new();
    let mut pending = vec![root];
    while let Some(entry) = pending.pop() {
        if entry.is_directory() {
            let reader = entry
                .unchecked_ref::<web_sys::FileSystemDirectoryEntry>()
                .create_reader();
            // readEntries answers a batch at a time, then an empty one.
            loop {
                let batch = called(|ok, err| {
                    let _ = reader.read_entries_with_callback_and_callback(ok, err);
                })
                .await?;
                let batch: js_sys::Array = batch.unchecked_into();
                if batch.length() == 0 {
                    break;
                }
                pending.extend(batch.iter().map(JsCast::unchecked_into));
            }
        } else if entry.is_file() {
            let file = called(|ok, err| {
                entry
                    .unchecked_ref::<web_sys::FileSystemFileEntry>()
                    .file_with_callback_and_callback(ok, err);
            })
            .await?;
            let path = entry.full_path().trim_start_matches('/').to_owned();
            out.push((path, file.unchecked_into()));
            if out.len() > MAX_FOLDER_FILES {
                return Err(format!("more than {MAX_FOLDER_FILES} files"));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}
