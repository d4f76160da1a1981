use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use super::{error_view, loading, parse_id, RunTable};
use crate::api::{get_origin, get_upload};
use crate::types::UploadDetail;

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
    let origin = Resource::new(|| (), |_| get_origin());
    let who = Resource::new(|| (), |_| crate::api::get_whoami());
    let benchmark = RwSignal::new(String::new());
    let machine = RwSignal::new(String::new());
    let kernel = RwSignal::new(String::new());
    let commit = RwSignal::new(String::new());
    let tags = RwSignal::new(String::new());
    let format = RwSignal::new("auto".to_owned());
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
        <h1>"Upload results"</h1>
        <p>"CSV with the header " <code>"benchmark,metric,param,iteration,value"</code>
           " (optional " <code>"unit,direction,kernel,machine,commit"</code> ") or the same content as JSON. "
           "Fields below fill what the file does not say."</p>
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                match who.await {
                    Ok(w) if !w.can_upload => view! {
                        <p class="error" id="upload-signin">"Uploading needs a sign-in with a token that has the upload scope: "
                            <a href="/signin?next=/upload">"Sign in"</a></p>
                    }.into_any(),
                    _ => ().into_any(),
                }
            })}
        </Suspense>
        <form id="upload-form" method="post" action="/api/v1/upload" enctype="multipart/form-data" class="form">
            <label for="file">"Files"</label>
            <input id="file" name="file" type="file" multiple required />
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
            <button type="submit" id="upload-submit">"Upload"</button>
        </form>
        <h2>"The same with curl"</h2>
        <Suspense fallback=loading>
            {move || Suspend::new(async move {
                let origin = origin.await.unwrap_or_else(|_| "http://127.0.0.1:3000".to_owned());
                view! { <pre id="curl" class="cmd">{move || curl(origin.clone())}</pre> }
            })}
        </Suspense>
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
                    Ok(None) => view! { <h1>"No such upload"</h1> }.into_any(),
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
