// SPDX-License-Identifier: GPL-3.0-or-later
//! What only the browser does for the upload form: sending it with per-file progress
//! (`XMLHttpRequest`), reading a dropped or chosen folder, and packing it as the server expects.

use leptos::prelude::*;

use super::*;

/// Sends the upload form by XHR: the chosen files, and a chosen folder packed as the server
/// expects (`pack_folder`); per-file progress from the upload's progress events, then the
/// answer.
pub(super) fn send_form(
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
pub(super) async fn pack_folder(
    folder: &Folder,
    data: &web_sys::FormData,
) -> Result<Vec<Sending>, String> {
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
pub(super) fn send(
    data: &web_sys::FormData,
    files: RwSignal<Vec<Sending>>,
    phase: RwSignal<Phase>,
) {
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

/// The most files a dropped folder may hold (an mmtests `work/log` has hundreds).
pub(super) const MAX_FOLDER_FILES: usize = 20_000;

/// Files dropped on the form become the chosen files; a dropped folder is read (every file in
/// it, recursively) and sent as a chosen folder would be.
pub(super) fn drop_files(
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

/// Every file under a dropped folder, by path, in path order.
pub(super) async fn read_folder(root: web_sys::FileSystemEntry) -> Result<Folder, String> {
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
