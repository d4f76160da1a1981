// SPDX-License-Identifier: GPL-3.0-or-later
//! The differential profile (`/profile`): where the time went, and where it moved, between two
//! kernels or commits, from the `perf-profile.*` keys of LKP jobs and from folded stacks
//! uploaded beside their runs.
//!
//! LKP's perf-profile keys come in three kinds, each a percentage of the cycles sampled:
//! - `perf-profile.calltrace.cycles-pp.A.B.C`: a call chain, **callee first**: `A` called by
//!   `B` called by `C`; the value is `A`'s share reached through that chain. Read backwards,
//!   the chains are paths from an outermost caller down, so they make a tree
//!   ([`chain_tree`]): each node's value is its own key's.
//! - `perf-profile.children.cycles-pp.X`: `X` with everything it calls (inclusive).
//! - `perf-profile.self.cycles-pp.X`: `X` alone (exclusive).
//!
//! A chain's symbols are joined by dots, and kernel symbols hold dots of their own: the
//! compiler's clones `memcpy.isra.0`, `f.part.0`, `f.constprop.0`, `f.cold`,
//! `f.lto_priv.0`, `f.llvm.123`. [`split_chain`] glues such suffixes back to their symbol.

use serde::{Deserialize, Serialize};

use crate::compare::KernelRuns;
use crate::types::CompareQuery;

/// The key prefix of each kind (the event LKP samples: cycles, call graph kept).
pub const CALLTRACE: &str = "perf-profile.calltrace.cycles-pp.";
pub const CHILDREN: &str = "perf-profile.children.cycles-pp.";
pub const SELF: &str = "perf-profile.self.cycles-pp.";

/// The deepest chain taken into the tree (LKP's are cut far shorter); deeper keys are left out.
pub const MAX_CHAIN: usize = 64;
/// The most nodes the tree holds (an LKP job has a few hundred chains).
pub const MAX_NODES: usize = 20_000;

/// The parts of a symbol the compiler appends to a clone's name, each after a dot (numbers,
/// such as `.0` or `.123`, are glued back too).
const CLONE_SUFFIXES: &[&str] = &[
    "isra",
    "part",
    "cold",
    "constprop",
    "lto_priv",
    "llvm",
    "localalias",
    "clone",
    "specialized",
];

/// A chain's symbols, in the key's order (callee first), with clone suffixes kept on their
/// symbol: `memcpy.isra.0.do_it.part.1.main` is `memcpy.isra.0`, `do_it.part.1`, `main`.
pub fn split_chain(chain: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for part in chain.split('.') {
        let suffix = !part.is_empty()
            && (part.bytes().all(|b| b.is_ascii_digit()) || CLONE_SUFFIXES.contains(&part));
        match out.last_mut() {
            Some(last) if suffix => {
                last.push('.');
                last.push_str(part);
            }
            _ => out.push(part.to_owned()),
        }
    }
    out
}

/// One side's mean and spread of a percentage (`None`: the key is not in that side's runs;
/// LKP leaves out keys under its threshold, so that reads as about 0).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Side {
    pub mean: f64,
    /// LKP's stddev (population, ÷ n), in percentage points.
    pub stddev: f64,
    pub runs: i64,
}

/// A percentage on both sides.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Share {
    pub base: Option<Side>,
    pub new: Option<Side>,
}

impl Share {
    /// The change in percentage points (a side without the key counts as 0), `None` when
    /// neither side has it.
    pub fn delta(&self) -> Option<f64> {
        if self.base.is_none() && self.new.is_none() {
            return None;
        }
        Some(self.new.map_or(0.0, |s| s.mean) - self.base.map_or(0.0, |s| s.mean))
    }

    /// The larger side's percentage (what a node costs, whichever side).
    pub fn cost(&self) -> f64 {
        self.base
            .map_or(0.0, |s| s.mean)
            .max(self.new.map_or(0.0, |s| s.mean))
    }
}

/// A node of the call-chain tree: a symbol reached from its parent's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChainNode {
    pub symbol: String,
    /// The value of the chain ending here, when LKP printed that chain.
    pub share: Share,
    /// Callees, largest change first.
    pub children: Vec<ChainNode>,
}

/// One symbol's `children` (inclusive) and `self` (exclusive) percentages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SymbolRow {
    pub symbol: String,
    pub children: Share,
    #[serde(rename = "self")]
    pub own: Share,
}

impl SymbolRow {
    /// The larger change of the two, in percentage points (what the table sorts by).
    pub fn moved(&self) -> f64 {
        self.children
            .delta()
            .unwrap_or(0.0)
            .abs()
            .max(self.own.delta().unwrap_or(0.0).abs())
    }
}

/// One perf-profile key of the compared runs, both sides.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyShare<'a> {
    pub key: &'a str,
    pub share: Share,
}

/// The call-chain tree of the `calltrace` keys: outermost callers at the top, each node's
/// callees under it, largest change (in percentage points) first, then largest cost. Keys
/// deeper than [`MAX_CHAIN`], or past [`MAX_NODES`] nodes, are left out; what is left out is
/// counted in the second value.
pub fn chain_tree(keys: &[KeyShare<'_>]) -> (Vec<ChainNode>, usize) {
    #[derive(Default)]
    struct Build {
        share: Share,
        children: std::collections::BTreeMap<String, Build>,
    }
    let mut root = Build::default();
    let mut nodes = 0usize;
    let mut left_out = 0usize;
    for k in keys {
        let Some(chain) = k.key.strip_prefix(CALLTRACE) else {
            continue;
        };
        let mut symbols = split_chain(chain);
        if symbols.len() > MAX_CHAIN || symbols.iter().any(String::is_empty) {
            left_out += 1;
            continue;
        }
        symbols.reverse();
        // The nodes this chain would add.
        let mut at = &root;
        let mut new = 0;
        for (i, s) in symbols.iter().enumerate() {
            match at.children.get(s) {
                Some(next) => at = next,
                None => {
                    new = symbols.len() - i;
                    break;
                }
            }
        }
        if nodes + new > MAX_NODES {
            left_out += 1;
            continue;
        }
        let mut at = &mut root;
        for s in symbols {
            at = at.children.entry(s).or_insert_with(|| {
                nodes += 1;
                Build::default()
            });
        }
        at.share = k.share;
    }
    fn finish(children: std::collections::BTreeMap<String, Build>) -> Vec<ChainNode> {
        let mut out: Vec<ChainNode> = children
            .into_iter()
            .map(|(symbol, b)| ChainNode {
                symbol,
                share: b.share,
                children: finish(b.children),
            })
            .collect();
        out.sort_by(|a, b| {
            let (da, db) = (node_moved(a), node_moved(b));
            db.total_cmp(&da)
                .then(node_cost(b).total_cmp(&node_cost(a)))
                .then(a.symbol.cmp(&b.symbol))
        });
        out
    }
    (finish(root.children), left_out)
}

/// A node's change: its own, else the largest of its callees' (a caller LKP printed no chain
/// for ranks by what moved under it).
fn node_moved(n: &ChainNode) -> f64 {
    match n.share.delta() {
        Some(d) => d.abs(),
        None => n.children.iter().map(node_moved).fold(0.0, f64::max),
    }
}

fn node_cost(n: &ChainNode) -> f64 {
    if n.share.base.is_some() || n.share.new.is_some() {
        n.share.cost()
    } else {
        n.children.iter().map(node_cost).fold(0.0, f64::max)
    }
}

/// The `children` and `self` keys side by side per symbol, the largest change first.
pub fn symbol_rows(keys: &[KeyShare<'_>]) -> Vec<SymbolRow> {
    let mut by: std::collections::BTreeMap<&str, SymbolRow> = Default::default();
    for k in keys {
        let (symbol, inclusive) = if let Some(s) = k.key.strip_prefix(CHILDREN) {
            (s, true)
        } else if let Some(s) = k.key.strip_prefix(SELF) {
            (s, false)
        } else {
            continue;
        };
        let row = by.entry(symbol).or_insert_with(|| SymbolRow {
            symbol: symbol.to_owned(),
            children: Share::default(),
            own: Share::default(),
        });
        if inclusive {
            row.children = k.share;
        } else {
            row.own = k.share;
        }
    }
    let mut rows: Vec<SymbolRow> = by.into_values().collect();
    rows.sort_by(|a, b| {
        b.moved()
            .total_cmp(&a.moved())
            .then(a.symbol.cmp(&b.symbol))
    });
    rows
}

/// A differential flame graph as drawn: frames in the graph's own units (the page scales it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlameGraph {
    pub width: f64,
    pub height: f64,
    pub frames: Vec<Frame>,
    /// Samples of each side's folded stacks.
    pub base_samples: u64,
    pub new_samples: u64,
    /// Frames too narrow to draw, merged into their parent's `…` frame or left out.
    pub merged: usize,
}

/// One drawn frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Frame {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
    /// `rgb(r,g,b)`: red grew, blue shrank, pale for no change.
    pub fill: String,
    /// The name, cut to fit (empty when nothing fits).
    pub label: String,
    /// The hover text: the name, both sides' shares and the change.
    pub title: String,
}

/// The profile page's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    pub query: CompareQuery,
    /// The two sides' labels and runs, baseline first.
    pub runs: Vec<KernelRuns>,
    pub tree: Vec<ChainNode>,
    /// Chains left out of the tree (over [`MAX_CHAIN`] deep or [`MAX_NODES`] nodes).
    pub left_out: usize,
    pub symbols: Vec<SymbolRow>,
    /// The perf-profile keys found on either side.
    pub keys: usize,
    pub flame: Option<FlameGraph>,
    /// What the flame graph is drawn from, or why there is none.
    pub flame_note: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(mean: f64) -> Option<Side> {
        Some(Side {
            mean,
            stddev: 0.1,
            runs: 3,
        })
    }

    #[test]
    fn chains_split_with_clone_suffixes() {
        // (key tail, symbols)
        let cases: &[(&str, &[&str])] = &[
            ("a.b.c", &["a", "b", "c"]),
            (
                "entry_SYSCALL_64_after_hwframe",
                &["entry_SYSCALL_64_after_hwframe"],
            ),
            (
                "memcpy.isra.0.do_it.part.1.main",
                &["memcpy.isra.0", "do_it.part.1", "main"],
            ),
            ("f.cold.g", &["f.cold", "g"]),
            ("f.constprop.0.isra.0.g", &["f.constprop.0.isra.0", "g"]),
            ("f.lto_priv.0.g.llvm.1234", &["f.lto_priv.0", "g.llvm.1234"]),
            // A suffix word with nothing before it is a symbol.
            ("cold.f", &["cold", "f"]),
        ];
        for (chain, want) in cases {
            assert_eq!(split_chain(chain), *want, "{chain}");
        }
    }

    /// Seed 001's chains (callee first) make one tree rooted at the syscall entry.
    #[test]
    fn tree_from_seed_chains() {
        let keys = [
            (
                "perf-profile.calltrace.cycles-pp.entry_SYSCALL_64_after_hwframe",
                98.02,
                98.13,
            ),
            (
                "perf-profile.calltrace.cycles-pp.do_syscall_64.entry_SYSCALL_64_after_hwframe",
                97.88,
                98.00,
            ),
            (
                "perf-profile.calltrace.cycles-pp.memcpy.isra.0.do_syscall_64.entry_SYSCALL_64_after_hwframe",
                1.0,
                3.0,
            ),
            (
                "perf-profile.calltrace.cycles-pp.ksys_read.do_syscall_64.entry_SYSCALL_64_after_hwframe",
                5.0,
                4.5,
            ),
            ("perf-profile.children.cycles-pp.memcpy.isra.0", 2.0, 4.0),
            ("perf-profile.self.cycles-pp.memcpy.isra.0", 1.5, 3.5),
            ("perf-profile.self.cycles-pp.ksys_read", 0.7, 0.6),
            ("netperf.Throughput_Mbps", 100.0, 90.0),
        ];
        let shares: Vec<KeyShare<'_>> = keys
            .iter()
            .map(|(k, a, b)| KeyShare {
                key: k,
                share: Share {
                    base: side(*a),
                    new: side(*b),
                },
            })
            .collect();
        let (tree, left_out) = chain_tree(&shares);
        assert_eq!(left_out, 0);
        assert_eq!(tree.len(), 1);
        let root = &tree[0];
        assert_eq!(root.symbol, "entry_SYSCALL_64_after_hwframe");
        assert_eq!(root.share.base.unwrap().mean, 98.02);
        let sys = &root.children[0];
        assert_eq!(sys.symbol, "do_syscall_64");
        // Largest change first: memcpy (+2.0) before ksys_read (-0.5).
        let names: Vec<&str> = sys.children.iter().map(|n| n.symbol.as_str()).collect();
        assert_eq!(names, ["memcpy.isra.0", "ksys_read"]);
        assert!((sys.children[0].share.delta().unwrap() - 2.0).abs() < 1e-9);
        let rows = symbol_rows(&shares);
        let names: Vec<&str> = rows.iter().map(|r| r.symbol.as_str()).collect();
        assert_eq!(names, ["memcpy.isra.0", "ksys_read"]);
        assert_eq!(rows[0].children.new.unwrap().mean, 4.0);
        assert_eq!(rows[0].own.base.unwrap().mean, 1.5);
        assert!(rows[1].children.base.is_none());
    }

    #[test]
    fn a_key_on_one_side_changes_from_zero() {
        let s = Share {
            base: None,
            new: side(2.5),
        };
        assert_eq!(s.delta(), Some(2.5));
        assert_eq!(Share::default().delta(), None);
    }

    #[test]
    fn the_tree_is_bounded() {
        let deep = format!("{CALLTRACE}{}", vec!["f"; MAX_CHAIN + 1].join("."));
        let many: Vec<String> = (0..MAX_NODES + 10)
            .map(|i| format!("{CALLTRACE}f{i}"))
            .collect();
        let mut keys = vec![KeyShare {
            key: &deep,
            share: Share::default(),
        }];
        keys.extend(many.iter().map(|k| KeyShare {
            key: k,
            share: Share::default(),
        }));
        let (tree, left_out) = chain_tree(&keys);
        assert_eq!(tree.len(), MAX_NODES);
        assert_eq!(left_out, 11);
    }
}
