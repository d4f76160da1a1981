// SPDX-License-Identifier: GPL-3.0-or-later
//! The differential flame graph of two folded profiles, laid out here and drawn by the profile
//! page as SVG on the server (no script in it: the hover text is each frame's `<title>`).
//!
//! The idea is Brendan Gregg's differential flame graph, as he describes it in public
//! ("Differential Flame Graphs", 2014, and the flame graph papers): draw the *second* profile
//! as a flame graph (a frame's width is its samples, callers below callees, siblings in name
//! order), and colour each frame by how it changed from the first: red grew, blue shrank, the
//! deeper the colour the larger the change. This is a fresh implementation written from that
//! description, not a port of his scripts or of any crate (the usual one, inferno, is under
//! the CDDL, which does not mix with the GPL). Our choices:
//! - a frame's change is its *inclusive* share of all samples, second profile minus first, in
//!   percentage points, so profiles of different lengths compare (as his `-n`
//!   normalisation does); colours scale to the largest change drawn;
//! - frames narrower than [`MIN_WIDTH`] are merged into one `…` frame per parent (drawn when
//!   the merged frames together are wide enough), and no more than [`MAX_FRAMES`] frames,
//!   [`MAX_LEVELS`] levels deep, are drawn, widest levels first (breadth first);
//! - frames only in the first profile have no width in the second and are not drawn (the
//!   page's tables still show them).

use std::collections::{HashMap, VecDeque};

use app::profile::{FlameGraph, Frame};

use crate::ingest::folded::Folded;

/// The graph's width in its own units (the page scales it to the window).
pub const WIDTH: f64 = 1200.0;
/// A frame's height.
pub const FRAME_H: f64 = 16.0;
/// The narrowest frame drawn on its own.
pub const MIN_WIDTH: f64 = 0.5;
/// The most frames drawn.
pub const MAX_FRAMES: usize = 3000;
/// The deepest level drawn.
pub const MAX_LEVELS: usize = 128;
/// The most nodes the merged call tree of both profiles holds; deeper frames of stacks past it
/// count to the last node they reach.
pub const MAX_NODES: usize = 1_000_000;

struct Node {
    name: u32,
    a: u64,
    b: u64,
    children: Vec<usize>,
}

/// Both profiles merged into one call tree: each node's inclusive samples on each side.
struct Tree {
    nodes: Vec<Node>,
    names: Vec<String>,
    name_ids: HashMap<String, u32>,
    child: HashMap<(usize, u32), usize>,
}

impl Tree {
    fn new() -> Tree {
        Tree {
            nodes: vec![Node {
                name: 0,
                a: 0,
                b: 0,
                children: Vec::new(),
            }],
            names: vec!["all".to_owned()],
            name_ids: HashMap::new(),
            child: HashMap::new(),
        }
    }

    fn name(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.name_ids.get(s) {
            return id;
        }
        let id = u32::try_from(self.names.len()).unwrap_or(u32::MAX);
        self.names.push(s.to_owned());
        self.name_ids.insert(s.to_owned(), id);
        id
    }

    fn add(&mut self, profile: &Folded, second: bool) {
        for (stack, n) in &profile.stacks {
            let mut at = 0;
            let mut path = vec![0];
            for frame in stack {
                let name = self.name(frame);
                let next = match self.child.get(&(at, name)) {
                    Some(&c) => c,
                    None if self.nodes.len() < MAX_NODES => {
                        let c = self.nodes.len();
                        self.nodes.push(Node {
                            name,
                            a: 0,
                            b: 0,
                            children: Vec::new(),
                        });
                        self.nodes[at].children.push(c);
                        self.child.insert((at, name), c);
                        c
                    }
                    None => break,
                };
                at = next;
                path.push(at);
            }
            for i in path {
                let node = &mut self.nodes[i];
                if second {
                    node.b = node.b.saturating_add(*n);
                } else {
                    node.a = node.a.saturating_add(*n);
                }
            }
        }
    }
}

/// A frame's share of its side's samples, in percent.
fn share(n: u64, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        100.0 * n as f64 / total as f64
    }
}

/// Thousands separated by commas (sample counts in hover text).
fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The fill of a change of `delta` points when the largest drawn is `max`: pale for none,
/// towards red for growth and blue for shrinkage (never so deep that black text fails
/// contrast).
fn fill(delta: f64, max: f64) -> String {
    let t = if max > 0.0 {
        (delta.abs() / max).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let low = (235.0 - 125.0 * t).round() as u8;
    if delta > 0.0 && t > 0.0 {
        format!("rgb(255,{low},{low})")
    } else if delta < 0.0 && t > 0.0 {
        format!("rgb({low},{low},255)")
    } else {
        "rgb(235,235,235)".to_owned()
    }
}

/// A frame before it is coloured.
struct Laid {
    x: f64,
    depth: usize,
    w: f64,
    name: String,
    a: u64,
    b: u64,
    /// The frames a `…` frame stands for (0 for a frame of its own).
    merged: usize,
}

/// Lays out the differential flame graph of `before` → `after`; `None` when `after` has no
/// samples to give widths.
pub fn draw(before: &Folded, after: &Folded) -> Option<FlameGraph> {
    if after.total == 0 {
        return None;
    }
    let mut tree = Tree::new();
    tree.add(before, false);
    tree.add(after, true);
    let (ta, tb) = (before.total, after.total);
    let scale = WIDTH / tb as f64;
    let mut laid: Vec<Laid> = Vec::new();
    let mut merged_total = 0usize;
    let mut queue: VecDeque<(usize, f64, usize)> = VecDeque::from([(0, 0.0, 0)]);
    while let Some((i, x, depth)) = queue.pop_front() {
        if laid.len() >= MAX_FRAMES || depth >= MAX_LEVELS {
            merged_total += 1;
            continue;
        }
        let node = &tree.nodes[i];
        laid.push(Laid {
            x,
            depth,
            w: node.b as f64 * scale,
            name: tree.names[node.name as usize].clone(),
            a: node.a,
            b: node.b,
            merged: 0,
        });
        let mut children: Vec<usize> = node
            .children
            .iter()
            .copied()
            .filter(|&c| tree.nodes[c].b > 0)
            .collect();
        children.sort_by(|&p, &q| {
            tree.names[tree.nodes[p].name as usize].cmp(&tree.names[tree.nodes[q].name as usize])
        });
        let mut cx = x;
        let (mut small, mut small_a, mut small_b) = (0usize, 0u64, 0u64);
        for c in children {
            let w = tree.nodes[c].b as f64 * scale;
            if w < MIN_WIDTH {
                small += 1;
                small_a += tree.nodes[c].a;
                small_b += tree.nodes[c].b;
                continue;
            }
            queue.push_back((c, cx, depth + 1));
            cx += w;
        }
        if small > 0 {
            merged_total += small;
            let w = small_b as f64 * scale;
            if w >= MIN_WIDTH && laid.len() < MAX_FRAMES && depth + 1 < MAX_LEVELS {
                laid.push(Laid {
                    x: cx,
                    depth: depth + 1,
                    w,
                    name: format!("… {small} narrow frames"),
                    a: small_a,
                    b: small_b,
                    merged: small,
                });
            }
        }
    }
    let levels = laid.iter().map(|l| l.depth).max().unwrap_or(0) + 1;
    let height = levels as f64 * FRAME_H;
    let delta = |l: &Laid| share(l.b, tb) - share(l.a, ta);
    let max = laid.iter().map(|l| delta(l).abs()).fold(0.0, f64::max);
    let round = |v: f64| (v * 100.0).round() / 100.0;
    let frames = laid
        .iter()
        .map(|l| {
            let d = delta(l);
            let fits = ((l.w - 6.0) / 7.0).floor();
            let label = if fits >= 3.0 {
                let chars = fits as usize;
                if l.name.chars().count() <= chars {
                    l.name.clone()
                } else {
                    format!("{}…", app::text::head(&l.name, chars - 1))
                }
            } else {
                String::new()
            };
            let what = if l.merged > 0 {
                format!("{} (merged: each under {MIN_WIDTH} units wide)", l.name)
            } else {
                l.name.clone()
            };
            let title = format!(
                "{what}\nafter: {:.2} % ({} samples)\nbefore: {:.2} % ({} samples)\nchange: {:+.2} points",
                share(l.b, tb),
                count(l.b),
                share(l.a, ta),
                count(l.a),
                d
            );
            Frame {
                x: round(l.x),
                y: round(height - (l.depth as f64 + 1.0) * FRAME_H),
                w: round(l.w),
                h: FRAME_H - 1.0,
                fill: fill(d, max),
                label,
                title,
            }
        })
        .collect();
    Some(FlameGraph {
        width: WIDTH,
        height,
        frames,
        base_samples: ta,
        new_samples: tb,
        merged: merged_total,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::folded::parse;

    fn frame<'a>(g: &'a FlameGraph, name: &str) -> &'a Frame {
        g.frames
            .iter()
            .find(|f| f.title.starts_with(&format!("{name}\n")))
            .unwrap_or_else(|| panic!("no frame {name}"))
    }

    #[test]
    fn widths_from_the_second_colours_by_change() {
        let before = parse("main;a 50\nmain;b 50\n").unwrap();
        let after = parse("main;a 75\nmain;b 25\nmain;c;d 100\n").unwrap();
        let g = draw(&before, &after).unwrap();
        let all = frame(&g, "all");
        assert_eq!((all.x, all.w), (0.0, WIDTH));
        assert_eq!(all.y, g.height - FRAME_H);
        // main is 100 % on both sides: no change.
        assert_eq!(frame(&g, "main").fill, "rgb(235,235,235)");
        // a: 50 % -> 37.5 %: blue; c: 0 -> 50 %: the deepest red; widths are the second's.
        let (a, c) = (frame(&g, "a"), frame(&g, "c"));
        assert_eq!(a.w, 75.0 * WIDTH / 200.0);
        assert!(a.fill.ends_with(",255)"), "{}", a.fill);
        assert_eq!(c.fill, "rgb(255,110,110)");
        assert!(c.title.contains("change: +50.00 points"), "{}", c.title);
        assert!(c.title.contains("before: 0.00 % (0 samples)"));
        // Siblings in name order, callees above callers.
        assert!(frame(&g, "a").x < frame(&g, "b").x && frame(&g, "b").x < c.x);
        assert!(frame(&g, "d").y < c.y);
        assert_eq!(g.merged, 0);
    }

    #[test]
    fn narrow_frames_merge_and_frames_are_bounded() {
        let mut text = String::from("main;big 1000000\n");
        for i in 0..5000 {
            text.push_str(&format!("main;tiny{i} 1\n"));
        }
        // A thousand stacks ten frames deep, each frame wide enough: more than MAX_FRAMES.
        for i in 0..1000 {
            text.push_str(&format!("wide;f{i};g1;g2;g3;g4;g5;g6;g7;g8 1000\n"));
        }
        let p = parse(&text).unwrap();
        let g = draw(&p, &p).unwrap();
        assert!(g.frames.len() <= MAX_FRAMES + 1, "{}", g.frames.len());
        assert!(g.merged >= 5000);
        assert!(g
            .frames
            .iter()
            .all(|f| f.w >= MIN_WIDTH || f.title.starts_with("all")));
        // The same profile on both sides: nothing changed.
        assert!(g.frames.iter().all(|f| f.fill == "rgb(235,235,235)"));
        let deep = parse(&format!("{} 5\n", vec!["f"; 500].join(";"))).unwrap();
        let g = draw(&deep, &deep).unwrap();
        assert_eq!(g.frames.len(), MAX_LEVELS);
    }

    #[test]
    fn no_samples_after_no_graph() {
        let p = parse("a;b 0\n").unwrap();
        assert!(draw(&p, &p).is_none());
    }

    #[test]
    fn labels_fit_and_counts_print() {
        let p = parse(&format!("{};short 1\n", "x".repeat(400))).unwrap();
        let g = draw(&p, &p).unwrap();
        let f = &g.frames[1];
        assert!(f.label.ends_with('…') && f.label.chars().count() <= 170);
        assert_eq!(count(1_234_567), "1,234,567");
        assert_eq!(count(12), "12");
    }
}
