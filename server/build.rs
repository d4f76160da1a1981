// SPDX-License-Identifier: GPL-3.0-or-later
//! Embeds the built site (`scripts/build-site` writes it to `target/site/pkg`) in the binary:
//! generates `$OUT_DIR/site.rs` with the set's name and every file, gzip and brotli copies
//! included, so `perfline` serves its pages from any directory. `PERFLINE_SITE_DIR` points
//! at another built `pkg` directory. Without a built site the binary still builds and
//! serves pages that do not hydrate (and says so at start).
//!
//! With the `server` feature it also packs the source the binary is built from into
//! `$OUT_DIR/source.tar.gz` (the workspace's sources, manifests, scripts, docs and licence
//! texts; no tests, fixtures or build output), which `perfline source` writes out and the
//! server serves at `/source.tar.gz`: the corresponding source of every binary and of the WASM
//! it sends, as the GPL asks of who conveys them.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    // `sqlx::migrate!` embeds the migrations: a new one must rebuild the crate.
    println!("cargo:rerun-if-changed=../migrations");
    println!("cargo:rerun-if-env-changed=PERFLINE_SITE_DIR");
    let dir = match std::env::var_os("PERFLINE_SITE_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"))
            .join("../target/site/pkg"),
    };
    let manifest = dir.join("site.txt");
    // site.txt is written last by build-site: when it changes, the set is complete and new.
    println!("cargo:rerun-if-changed={}", manifest.display());
    let mut code = String::new();
    // The parsers alone (`--no-default-features`, the fuzz targets) serve nothing: no site.
    let server = std::env::var_os("CARGO_FEATURE_SERVER").is_some();
    let erased = std::env::var_os("CARGO_CFG_ERASE_COMPONENTS").is_some();
    match std::fs::read_to_string(&manifest).ok().filter(|_| server) {
        Some(name) => {
            let name = name.trim();
            // The site is built with `--cfg erase_components` (.cargo/config.toml); a server
            // built without it renders other hydration markers and no page would hydrate.
            assert!(
                erased,
                "server built without --cfg erase_components (a RUSTFLAGS variable replaced .cargo/config.toml?): its pages would not hydrate with the built site"
            );
            writeln!(code, "pub const SITE_NAME: Option<&str> = Some({name:?});").unwrap();
            code.push_str("pub static SITE_FILES: &[(&str, &[u8])] = &[\n");
            let mut entries: Vec<_> = std::fs::read_dir(&dir)
                .expect("the site directory lists")
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|f| f.starts_with(name))
                .collect();
            entries.sort();
            for file in entries {
                let path = dir.join(&file).canonicalize().expect("the file exists");
                writeln!(
                    code,
                    "    ({file:?}, include_bytes!({:?})),",
                    path.display().to_string()
                )
                .unwrap();
            }
            code.push_str("];\n");
        }
        None => {
            if server {
                println!(
                    "cargo:warning=no built site at {}: the binary's pages will not hydrate (run scripts/build-site first)",
                    dir.display()
                );
            }
            code.push_str("pub const SITE_NAME: Option<&str> = None;\n");
            code.push_str("pub static SITE_FILES: &[(&str, &[u8])] = &[];\n");
        }
    }
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets it"));
    std::fs::write(out_dir.join("site.rs"), code).expect("OUT_DIR is writable");
    let tarball = out_dir.join("source.tar.gz");
    if server {
        let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"))
            .join("..");
        pack_source(&root, &tarball);
    } else {
        std::fs::write(&tarball, b"").expect("OUT_DIR is writable");
    }
}

/// What the source archive holds, relative to the workspace root: what building the binary,
/// its site and its image needs, and the documents that say what it is. Missing entries (a
/// Docker build context copies a subset) are left out.
const SOURCE: &[&str] = &[
    "Cargo.toml",
    "Cargo.lock",
    "LICENSE",
    "LICENSES",
    "README.md",
    "ARCHITECTURE.md",
    "BENCHMARKS.md",
    "Dockerfile",
    "deny.toml",
    ".cargo",
    ".ci",
    ".config",
    "app",
    "crates",
    "docs",
    "frontend",
    "migrations",
    "scripts",
    "style",
    "server/Cargo.toml",
    "server/build.rs",
    "server/src",
    "e2e/package.json",
    "e2e/package-lock.json",
    "fuzz/Cargo.toml",
    "fuzz/fuzz_targets",
];

/// Directories never packed: test data, build output, installed packages.
const SKIP: &[&str] = &["fixtures", "target", "node_modules"];

fn pack_source(root: &Path, to: &Path) {
    let version = std::env::var("CARGO_PKG_VERSION").expect("cargo sets it");
    let mut files = Vec::new();
    for entry in SOURCE {
        let path = root.join(entry);
        if path.exists() {
            println!("cargo:rerun-if-changed={}", path.display());
            collect(&path, &mut files);
        }
    }
    files.sort();
    let gz = flate2::write::GzEncoder::new(
        std::fs::File::create(to).expect("OUT_DIR is writable"),
        flate2::Compression::default(),
    );
    let mut tar = tar::Builder::new(gz);
    for path in files {
        let bytes = std::fs::read(&path).expect("a listed file reads");
        let name = path.strip_prefix(root).expect("under the root");
        let executable = {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::metadata(&path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
        };
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(if executable { 0o755 } else { 0o644 });
        // The same sources give the same archive: no times, owners or host paths.
        header.set_mtime(0);
        header.set_cksum();
        tar.append_data(
            &mut header,
            Path::new(&format!("perfline-{version}")).join(name),
            &bytes[..],
        )
        .expect("the archive is written");
    }
    tar.into_inner()
        .and_then(flate2::write::GzEncoder::finish)
        .expect("the archive is written");
}

fn collect(path: &Path, files: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let skip = path
            .file_name()
            .is_some_and(|n| SKIP.iter().any(|s| n == *s));
        if skip {
            return;
        }
        for entry in std::fs::read_dir(path)
            .expect("a source directory lists")
            .flatten()
        {
            collect(&entry.path(), files);
        }
    } else if path.is_file() {
        files.push(path.to_path_buf());
    }
}
