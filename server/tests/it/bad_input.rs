// SPDX-License-Identifier: GPL-3.0-or-later
//! Bad input gets a clear 4xx naming the problem and where, and leaves the store as it was.

use reqwest::multipart::{Form, Part};

use crate::helpers::*;

/// Runs `send` against an app that already holds one upload, checks the error answer, and
/// checks that no table changed.
async fn check_refused<F, Fut>(send: F, status: u16, needle: &str) -> serde_json::Value
where
    F: FnOnce(TestApp) -> Fut,
    Fut: std::future::Future<Output = (TestApp, reqwest::Response)>,
{
    let app = spawn_app_with(|c| c.max_upload = 4096).await;
    let ok = app
        .upload_raw(
            "machine=m1&kernel=6.1.0",
            read_fixture("generic/netperf-sweep.csv"),
        )
        .await;
    assert_eq!(ok.status().as_u16(), 201);
    let before = app.counts().await;
    let (app, response) = send(app).await;
    let body = assert_error(response, status, needle).await;
    assert_eq!(
        app.counts().await,
        before,
        "the store must be exactly as it was"
    );
    body
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_column() {
    let body = check_refused(
        |app| async move {
            let r = app
                .upload_raw(
                    "machine=m1&kernel=6.1.0",
                    "benchmark,metric,param,value,colour\nb,m,1,2,red\n",
                )
                .await;
            (app, r)
        },
        422,
        "unknown column 'colour'",
    )
    .await;
    assert_eq!(body["error"]["line"], 1);
    assert_eq!(body["error"]["file"], "request body");
    assert_eq!(body["error"]["field"], "colour");
}

#[tokio::test(flavor = "multi_thread")]
async fn non_numeric_value() {
    let body = check_refused(
        |app| async move {
            let r = app
                .upload_raw(
                    "machine=m1&kernel=6.1.0",
                    "benchmark,metric,param,value\nb,m,1,2.5\nb,m,2,fast\n",
                )
                .await;
            (app, r)
        },
        422,
        "value 'fast' is not a number",
    )
    .await;
    assert_eq!(body["error"]["line"], 3);
}

#[tokio::test(flavor = "multi_thread")]
async fn empty_file() {
    check_refused(
        |app| async move {
            let r = app
                .upload_multipart(
                    &[("empty.csv", Vec::new())],
                    &[("machine", "m1"), ("kernel", "6.1.0")],
                )
                .await;
            (app, r)
        },
        422,
        "empty.csv: the file is empty",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn missing_kernel() {
    let body = check_refused(
        |app| async move {
            let r = app
                .upload_raw("machine=m1", "benchmark,metric,param,value\nb,m,1,2.5\n")
                .await;
            (app, r)
        },
        422,
        "no kernel: give a kernel column in the file or the kernel field",
    )
    .await;
    assert_eq!(body["error"]["line"], 2);
    assert_eq!(body["error"]["field"], "kernel");
}

#[tokio::test(flavor = "multi_thread")]
async fn body_over_the_limit_by_content_length() {
    check_refused(
        |app| async move {
            let r = app
                .upload_raw("machine=m1&kernel=6.1.0", vec![b'1'; 5000])
                .await;
            (app, r)
        },
        413,
        "larger than the limit of 4096 bytes",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn chunked_body_over_the_limit() {
    check_refused(
        |app| async move {
            // No Content-Length: the limit is found while reading.
            let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
                (0..10).map(|_| Ok(vec![b'1'; 1000])).collect();
            let body = reqwest::Body::wrap_stream(futures_util::stream::iter(chunks));
            let r = app.upload_raw("machine=m1&kernel=6.1.0", body).await;
            (app, r)
        },
        413,
        "larger than the limit",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn multipart_file_over_the_limit() {
    check_refused(
        |app| async move {
            let r = app
                .upload_multipart(
                    &[("big.csv", vec![b'1'; 8000])],
                    &[("machine", "m1"), ("kernel", "6.1.0")],
                )
                .await;
            (app, r)
        },
        413,
        "larger than the limit",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn wrong_form_field() {
    let body = check_refused(
        |app| async move {
            let r = app
                .upload_multipart(
                    &[("a.csv", read_fixture("generic/netperf-sweep.csv"))],
                    &[("machine", "m1"), ("kernal", "6.1.0")],
                )
                .await;
            (app, r)
        },
        422,
        "unknown field 'kernal'",
    )
    .await;
    assert_eq!(body["error"]["field"], "kernal");
}

#[tokio::test(flavor = "multi_thread")]
async fn control_characters_in_a_label() {
    let body = check_refused(
        |app| async move {
            let r = app
                .upload_raw(
                    "machine=m%01x&kernel=6.1.0",
                    read_fixture("generic/netperf-sweep.csv"),
                )
                .await;
            (app, r)
        },
        422,
        "machine contains the control character U+0001",
    )
    .await;
    assert_eq!(body["error"]["field"], "machine");
}

#[tokio::test(flavor = "multi_thread")]
async fn unsupported_media_type() {
    check_refused(
        |app| async move {
            let r = app
                .client
                .post(app.url("/api/v1/upload?machine=m1&kernel=6.1.0"))
                .header("content-type", "image/png")
                .body(vec![0x89, b'P', b'N', b'G'])
                .send()
                .await
                .unwrap();
            (app, r)
        },
        415,
        "Content-Type 'image/png' is not a results file",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn malformed_multipart() {
    check_refused(
        |app| async move {
            let r = app
                .client
                .post(app.url("/api/v1/upload"))
                .header("content-type", "multipart/form-data; boundary=XYZ")
                .body("--XYZ\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nno closing boundary")
                .send()
                .await
                .unwrap();
            (app, r)
        },
        400,
        "malformed multipart body",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_broken_second_file_stores_nothing_of_the_upload() {
    let body = check_refused(
        |app| async move {
            let good = read_fixture("generic/netperf-sweep.csv");
            let form = Form::new()
                .part("file", Part::bytes(good).file_name("good.csv"))
                .part(
                    "file",
                    Part::bytes(b"benchmark,metric,value\nb,m,1\nb,m,NaN-ish\n".to_vec())
                        .file_name("bad.csv"),
                )
                .text("machine", "m2")
                .text("kernel", "6.2.0");
            let r = app
                .client
                .post(app.url("/api/v1/upload"))
                .multipart(form)
                .send()
                .await
                .unwrap();
            (app, r)
        },
        422,
        "bad.csv: line 3: value 'NaN-ish' is not a number",
    )
    .await;
    assert_eq!(body["error"]["file"], "bad.csv");
}

#[tokio::test(flavor = "multi_thread")]
async fn unrecognised_format_lists_the_known_ones() {
    check_refused(
        |app| async move {
            let r = app
                .upload_raw("machine=m1&kernel=6.1.0", "just some words\n")
                .await;
            (app, r)
        },
        422,
        "unrecognised format; Perfline knows: csv, json",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_json_names_the_line() {
    let body = check_refused(
        |app| async move {
            let r = app.upload_raw("machine=m1&kernel=6.1.0&format=json", "{\n\"benchmark\": \"b\",\n\"samples\": [\n{\"metric\": \"m\", \"value\": \"x\"}\n]}").await;
            (app, r)
        },
        422,
        "invalid JSON",
    )
    .await;
    assert_eq!(body["error"]["line"], 4);
}

/// Found by schemathesis: a rejection from axum (a path parameter that is not a number) was
/// compressed first and wrapped in the JSON envelope after, so a client asking for gzip got
/// a plain JSON body labelled `content-encoding: gzip` (undecodable) whose message was the
/// compressed bytes. Every error answer must decode to the envelope with a readable message.
#[tokio::test(flavor = "multi_thread")]
async fn compressed_rejections_decode_to_the_envelope() {
    use std::io::Read as _;
    let app = spawn_app().await;
    for path in [
        "/api/v1/runs/abc",
        "/api/v1/alerts/1.5",
        "/api/v1/uploads/x/raw",
    ] {
        let r = app
            .client
            .get(app.url(path))
            .header("accept-encoding", "gzip")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 400, "{path}");
        let gzip = r
            .headers()
            .get("content-encoding")
            .is_some_and(|v| v == "gzip");
        let bytes = r.bytes().await.unwrap();
        let text = if gzip {
            let mut out = String::new();
            flate2::read::GzDecoder::new(&bytes[..])
                .read_to_string(&mut out)
                .unwrap_or_else(|e| panic!("{path}: labelled gzip but not: {e}"));
            out
        } else {
            String::from_utf8(bytes.to_vec()).unwrap()
        };
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["error"]["code"], "bad_request", "{path}: {v}");
        assert!(
            v["error"]["message"].as_str().unwrap().is_ascii(),
            "{path}: {v}"
        );
    }
    app.stop().await;
}

/// A page's server function called with arguments it cannot read is the caller's fault: a 400
/// (server_fn itself says 500), its body in the encoding the pages decode.
#[tokio::test(flavor = "multi_thread")]
async fn unreadable_server_function_arguments_are_400() {
    let app = spawn_app().await;
    for (function, body) in [
        ("trend_view", "query[trend][benchmark]=a"),
        ("trend_view", "garbage=1"),
        (
            "trend_point",
            "query[benchmark]=a&query[machine]=m&query[metric]=x&query[param]=&index=-1",
        ),
        ("run", "id=abc"),
    ] {
        let r = app
            .client
            .post(app.url(&format!("/sfn/{function}")))
            .header("origin", &app.base)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        let text = r.text().await.unwrap();
        assert_eq!(status, 400, "{function} {body}: {text}");
        // The typed error the page decodes.
        let error: app::error::PageError = serde_json::from_str(&text).unwrap();
        assert!(
            matches!(error, app::error::PageError::BadRequest(_)),
            "{function} {body}: {text}"
        );
    }
    // Readable arguments still answer.
    let r = app
        .client
        .post(app.url("/sfn/trend_view"))
        .header("origin", &app.base)
        .header("content-type", "application/x-www-form-urlencoded")
        .body("query[trend][benchmark]=&query[trend][machine]=&query[trend][metric]=&query[trend][param]=")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(r.text().await.unwrap(), "null");
}
