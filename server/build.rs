//! Embeds the built site (`scripts/build-site` writes it to `target/site/pkg`) in the binary:
//! generates `$OUT_DIR/site.rs` with the set's name and every file, gzip and brotli copies
//! included, so `perfline` serves its pages from any directory. `PERFLINE_SITE_DIR` points
//! at another built `pkg` directory. Without a built site the binary still builds and
//! serves pages that do not hydrate (and says so at start).

use std::fmt::Write as _;
use std::path::PathBuf;

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
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets it")).join("site.rs");
    std::fs::write(out, code).expect("OUT_DIR is writable");
}
