// SPDX-License-Identifier: GPL-3.0-or-later
//! The differential profile of two kernels or commits (`/profile`): the comparison of their
//! runs (the same one `/compare` makes, so the numbers agree), its `perf-profile.*` keys made
//! into a call-chain tree and a children/self table (`app::profile`), and the folded stacks
//! uploaded beside those runs drawn as a differential flame graph (`analysis::flame`).

use app::profile::{chain_tree, symbol_rows, KeyShare, Profile, Share, Side};
use app::types::CompareQuery;

use crate::analysis::flame;
use crate::ingest::folded::{self, Folded};
use crate::services::compare::Asker;
use crate::services::{ServiceError, ServiceResult, Services};

/// The most runs per side whose uploads are searched for folded stacks.
pub const MAX_RUNS: usize = 64;
/// The most folded files read per side (their samples add up).
pub const MAX_FILES: usize = 16;

impl Services {
    /// The profile of `query`'s two columns (baseline first).
    pub async fn profile(&self, query: CompareQuery, asker: Asker) -> ServiceResult<Profile> {
        if query.kernels.len() != 2 {
            return Err(ServiceError::Invalid(format!(
                "a profile compares two kernels or commits; {} given",
                query.kernels.len()
            )));
        }
        let computed = self.compare_live(query, None, asker).await?;
        let comparison = computed.comparison.clone();
        // Each side's folded stacks: the folded files of the uploads its runs came in.
        let mut sides: Vec<Vec<Vec<u8>>> = Vec::new();
        for kernel in comparison.runs.iter().take(2) {
            let mut uploads = std::collections::BTreeSet::new();
            for id in kernel.runs.iter().take(MAX_RUNS) {
                if let Some(run) = self.store.run(*id).await? {
                    uploads.insert(run.upload_id);
                }
            }
            let mut files = Vec::new();
            'uploads: for upload in uploads {
                let Some(summary) = self.store.upload(upload).await? else {
                    continue;
                };
                for f in summary.files.iter().filter(|f| f.format == "folded") {
                    if files.len() == MAX_FILES {
                        break 'uploads;
                    }
                    if let Some(stored) = self.store.upload_file(upload, f.index).await? {
                        files.push(stored.raw);
                    }
                }
            }
            sides.push(files);
        }
        self.heavy.run(move || build(comparison, &sides)).await
    }
}

/// The profile of a comparison and each side's folded files.
fn build(comparison: app::compare::Comparison, sides: &[Vec<Vec<u8>>]) -> Profile {
    let side = |c: Option<&app::compare::Cell>| {
        c.map(|c| Side {
            mean: c.stats.amean,
            stddev: c.stats.pstddev,
            runs: c.stats.n,
        })
    };
    let keys: Vec<KeyShare<'_>> = comparison
        .rows
        .iter()
        .filter(|r| r.metric.starts_with("perf-profile.") && r.param.is_empty())
        .map(|r| KeyShare {
            key: &r.metric,
            share: Share {
                base: side(r.cells.first().and_then(Option::as_ref)),
                new: side(r.cells.get(1).and_then(Option::as_ref)),
            },
        })
        .collect();
    let (tree, left_out) = chain_tree(&keys);
    let symbols = symbol_rows(&keys);
    let n_keys = keys.len();
    let parsed: Vec<Option<Folded>> = sides
        .iter()
        .map(|files| {
            let mut all: Option<Folded> = None;
            for raw in files {
                // Checked when uploaded; one that no longer parses is left out.
                let Ok(f) = std::str::from_utf8(crate::ingest::strip_bom(raw))
                    .map_err(|_| ())
                    .and_then(|t| folded::parse(t).map_err(|_| ()))
                else {
                    continue;
                };
                match &mut all {
                    Some(a) => a.merge(f),
                    None => all = Some(f),
                }
            }
            all
        })
        .collect();
    let labels: Vec<&str> = comparison.runs.iter().map(|k| k.kernel.as_str()).collect();
    let (flame, flame_note) = match (parsed.first(), parsed.get(1)) {
        (Some(Some(a)), Some(Some(b))) => match flame::draw(a, b) {
            Some(g) => {
                let note = format!(
                    "{} → {}: widths are {}'s {} samples, colours the change from {}'s {} (red grew, blue shrank).",
                    labels.first().unwrap_or(&""),
                    labels.get(1).unwrap_or(&""),
                    labels.get(1).unwrap_or(&""),
                    g.new_samples,
                    labels.first().unwrap_or(&""),
                    g.base_samples,
                );
                (Some(g), note)
            }
            None => (
                None,
                "The second side's folded stacks have no samples.".to_owned(),
            ),
        },
        _ => {
            let missing: Vec<&str> = parsed
                .iter()
                .zip(&labels)
                .filter(|(p, _)| p.is_none())
                .map(|(_, l)| *l)
                .collect();
            (
                None,
                format!(
                    "No flame graph: no folded stacks were uploaded beside the runs of {}. Upload `perf script | stackcollapse-perf.pl` output in the same upload as the results (format folded).",
                    missing.join(" and ")
                ),
            )
        }
    };
    Profile {
        query: comparison.query.clone(),
        runs: comparison.runs.clone(),
        tree,
        left_out,
        symbols,
        keys: n_keys,
        flame,
        flame_note,
    }
}
