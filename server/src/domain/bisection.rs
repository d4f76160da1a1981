// SPDX-License-Identifier: GPL-3.0-or-later
//! A performance bisection through the noise: which commit to run next, how many runs it needs
//! now, and when the runs say good, bad, or not yet. Pure and stateless: [`walk`] replays the
//! whole bisection from the runs uploaded so far, so the store keeps only runs and marks, and
//! the simulation bench (`benches/bisect.rs`) drives the same function with simulated runs.
//!
//! The walk: first the two ends (the last good and the first bad commit) are rerun until their
//! fresh runs show the step (`verdict::compare`, for part of the step the bisection was started
//! for) — or show that they do not, or that it is within the noise, which ends the bisection
//! `failed` with the reason instead of a guess. Then, as `git bisect` does, the commit in the
//! middle of the bounds (skipping those marked skip) is run and judged between the two levels
//! (the means of every run of the commits judged good, and bad, so far) by Wald's sequential
//! test at [`ERROR`]: unsure asks for more runs, up to the cap; a commit still unsure at the cap
//! is decided on the balance of the evidence, and the walk goes on with that choice. When the
//! bounds meet, the first bad commit is the culprit — unless a verdict on the way was decided
//! at the cap with odds below [`CAP_ODDS`]: then the bisection fails, saying the step is within
//! the noise at that cap and which commit the balance points to ([`Walk::on_balance`]), instead
//! of naming a guess.

use crate::domain::verdict::{self, Sides, Verdict};

/// The chance of a wrong verdict on one commit that Wald's bounds are set for: ten verdicts
/// make a bisection of a thousand commits, and it must name the exact culprit.
pub const ERROR: f64 = 0.002;

/// The share of the SPRT's mean sample number asked for at once: runs come in smaller
/// batches, and the test stops as soon as it is sure.
pub const BATCH_SHARE: f64 = 0.5;

/// At the cap, a commit still unsure is decided on the balance; if the runs favour that side
/// less than this many to one, a culprit that rests on it is a guess, and the bisection says
/// so instead of naming it. (On the bench's grid, 4:1 to 99:1 all kept wrong culprits at
/// 0.3–0.4 %; 19:1, "95 % sure", keeps the most exact ones of the conventional choices.)
pub const CAP_ODDS: f64 = 19.0;

/// The most runs of one commit, unless the bisection says otherwise.
pub const DEFAULT_MAX_RUNS: u32 = 30;

/// The fewest runs of each end, whatever the noise: the levels rest on them.
pub const MIN_END_RUNS: u32 = 2;

/// What the bisection knows: the commits from the last good (index 0) to the first bad (the
/// last index), in history order, and the runs uploaded for each.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// Run means per commit.
    pub runs: Vec<Vec<f64>>,
    /// Commits marked skip (they do not build, do not boot).
    pub skip: Vec<bool>,
    /// The step the bisection looks for: the bad level minus the good one, as found.
    pub step: f64,
    /// One run's spread, from the series' noise; the runs' own spread replaces it once they
    /// have enough degrees of freedom.
    pub run_sd: f64,
    pub max_runs: u32,
}

/// What a tested commit came to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Call {
    pub verdict: Verdict,
    /// Decided at the cap on the balance of the evidence, not sure.
    pub forced: bool,
    /// Decided at the cap with odds below [`CAP_ODDS`]: a culprit resting on it is a guess.
    pub weak: bool,
}

/// What to do next.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    /// Run commit `index` until it has `runs` runs in all.
    Run { index: usize, runs: u32 },
    /// The first bad commit.
    Done { culprit: usize },
    /// The bisection cannot tell, and why.
    Failed(String),
}

/// The walk so far: what to do next, each commit's call, the bounds, and the levels.
#[derive(Debug, Clone, PartialEq)]
pub struct Walk {
    pub next: Next,
    pub calls: Vec<Option<Call>>,
    /// The commits called, in the order the walk called them (the ends first).
    pub path: Vec<usize>,
    /// The last good and first bad index the walk has reached.
    pub good: usize,
    pub bad: usize,
    /// The levels the verdicts were judged between, and the spread used.
    pub good_level: f64,
    pub bad_level: f64,
    pub run_sd: f64,
    /// When the walk ended `Failed` because verdicts decided at the cap would have named the
    /// culprit: the first bad commit on that balance.
    pub on_balance: Option<usize>,
}

impl Walk {
    /// The verdicts that stand, in the order the walk called them: every call on the path
    /// but a weak one (decided at the cap with odds below [`CAP_ODDS`], which fails the
    /// bisection). Only these become bisect marks and `git bisect` lines: a guess is not a
    /// verdict.
    pub fn standing(&self) -> impl Iterator<Item = (usize, Call)> + '_ {
        self.path
            .iter()
            .filter_map(|&i| Some((i, self.calls[i]?)))
            .filter(|(_, call)| !call.weak)
    }
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// The runs' own spread, pooled over the commits with two runs or more, when it has at least
/// `min_df` degrees of freedom.
fn pooled_sd(runs: &[Vec<f64>], min_df: usize) -> Option<f64> {
    let (mut ss, mut df) = (0.0, 0usize);
    for r in runs.iter().filter(|r| r.len() >= 2) {
        let m = mean(r);
        ss += r.iter().map(|v| (v - m).powi(2)).sum::<f64>();
        df += r.len() - 1;
    }
    (df >= min_df && ss > 0.0).then(|| (ss / df as f64).sqrt())
}

/// About the SPRT's mean sample number for levels `d` run spreads apart: 2·ln((1 − ε)/ε)/d².
fn expected_runs(d: f64) -> f64 {
    2.0 * ((1.0 - ERROR) / ERROR).ln() / (d * d)
}

/// Runs to ask for at once: [`BATCH_SHARE`] of [`expected_runs`], within `min..=max`.
fn batch(d: f64, min: u32, max: u32) -> u32 {
    if !d.is_finite() || d <= 0.0 {
        return max;
    }
    ((BATCH_SHARE * expected_runs(d)).ceil() as u32).clamp(min, max)
}

/// Whether a commit `d` run spreads from the other level can be told within `max` runs.
fn tellable(d: f64, max: u32) -> Option<u32> {
    let n = expected_runs(d).ceil();
    (n.is_finite() && n <= f64::from(max)).then_some(n as u32)
}

/// Replays the bisection from its runs.
pub fn walk(p: &Plan) -> Walk {
    let n = p.runs.len();
    let last = n.saturating_sub(1);
    let mut calls: Vec<Option<Call>> = vec![None; n];
    let sd = pooled_sd(&p.runs, 10).unwrap_or(p.run_sd);
    let mut path: Vec<usize> = Vec::new();
    let done = |next: Next,
                calls: Vec<Option<Call>>,
                path: Vec<usize>,
                good: usize,
                bad: usize,
                gl: f64,
                bl: f64| Walk {
        next,
        calls,
        path,
        good,
        bad,
        good_level: gl,
        bad_level: bl,
        run_sd: sd,
        on_balance: None,
    };
    if n < 2 {
        return done(
            Next::Failed("a bisection needs a good and a bad commit".into()),
            calls,
            path,
            0,
            last,
            f64::NAN,
            f64::NAN,
        );
    }
    // A step that could not be told within the cap even as found is not bisected: it would
    // spend the runs and still guess.
    let pct = |from: f64, to: f64| 100.0 * (to - from) / from;
    let d = (p.step / sd).abs();
    if tellable(d, p.max_runs).is_none() {
        let need = expected_runs(d).ceil();
        return done(
            Next::Failed(format!(
                "the step is within the noise: a step of {:.4} with a run spread of {:.4} would take about {need} runs per commit to tell, more than the {} allowed",
                p.step.abs(),
                sd,
                p.max_runs
            )),
            calls,
            path,
            0,
            last,
            f64::NAN,
            f64::NAN,
        );
    }
    // The ends: fresh runs of both must show the step.
    let (g, b) = (&p.runs[0], &p.runs[last]);
    let end_batch = batch(
        (verdict::SHRINK * p.step / sd).abs(),
        MIN_END_RUNS,
        p.max_runs,
    );
    let short = |r: &[f64]| (r.len() as u32) < end_batch;
    if short(g) || short(b) {
        let index = if g.len() <= b.len() { 0 } else { last };
        return done(
            Next::Run {
                index,
                runs: end_batch,
            },
            calls,
            path,
            0,
            last,
            mean(g),
            mean(b),
        );
    }
    let shown = verdict::compare(g, b, verdict::SHRINK * p.step, sd);
    match shown {
        Verdict::Good => {
            return done(
                Next::Failed(format!(
                    "the last good and the first bad commit rerun alike ({:.4} over {} runs and {:.4} over {}): there is no step of {:+.1} % between them to bisect",
                    mean(g), g.len(), mean(b), b.len(), pct(mean(g), mean(g) + p.step)
                )),
                calls,
                path,
                0,
                last,
                mean(g),
                mean(b),
            );
        }
        Verdict::Unsure => {
            if (g.len() as u32) < p.max_runs || (b.len() as u32) < p.max_runs {
                let index = if g.len() <= b.len() { 0 } else { last };
                let runs = ((p.runs[index].len() as u32) + end_batch).min(p.max_runs);
                return done(
                    Next::Run { index, runs },
                    calls,
                    path,
                    0,
                    last,
                    mean(g),
                    mean(b),
                );
            }
            return done(
                Next::Failed(format!(
                    "the step is within the noise: after {} runs of each end the first bad commit ({:.4}) cannot be told from the last good ({:.4}) with a run spread of {:.3}",
                    p.max_runs, mean(b), mean(g), sd
                )),
                calls,
                path,
                0,
                last,
                mean(g),
                mean(b),
            );
        }
        Verdict::Bad => {}
    }
    calls[0] = Some(Call {
        verdict: Verdict::Good,
        forced: false,
        weak: false,
    });
    calls[last] = Some(Call {
        verdict: Verdict::Bad,
        forced: false,
        weak: false,
    });
    path.extend([last, 0]);
    // Can commits be told apart at all within the cap?
    let measured = mean(b) - mean(g);
    let d = (measured / sd).abs();
    if tellable(d, p.max_runs).is_none() {
        let need = expected_runs(d).ceil();
        return done(
            Next::Failed(format!(
                "the step is within the noise: the ends differ by {:+.1} % with a run spread of {:.1} %, so telling a commit's side would take about {need} runs, more than the {} allowed",
                pct(mean(g), mean(b)),
                100.0 * sd / mean(g).abs(),
                p.max_runs
            )),
            calls,
            path,
            0,
            last,
            mean(g),
            mean(b),
        );
    }
    let (mut lo, mut hi) = (0usize, last);
    let (mut good_runs, mut bad_runs): (Vec<f64>, Vec<f64>) = (g.clone(), b.clone());
    loop {
        let (gl, bl) = (mean(&good_runs), mean(&bad_runs));
        if hi - lo <= 1 {
            // A culprit that rests on a verdict decided at the cap is a guess: said, not named.
            let weak = path
                .iter()
                .filter(|&&i| calls[i].is_some_and(|c| c.weak))
                .count();
            if weak > 0 {
                let mut w = done(
                    Next::Failed(format!(
                        "the step is within the noise at this run cap: {weak} commit{} stayed unsure after {} runs, the runs favouring one side less than {CAP_ODDS}:1 (forced in the tested list), so the culprit would be a guess",
                        if weak == 1 { "" } else { "s" },
                        p.max_runs,
                    )),
                    calls,
                    path,
                    lo,
                    hi,
                    gl,
                    bl,
                );
                w.on_balance = Some(hi);
                return w;
            }
            return done(Next::Done { culprit: hi }, calls, path, lo, hi, gl, bl);
        }
        // The commit nearest the middle that is not skipped.
        let middle = (lo + hi) / 2;
        let Some(mid) = (lo + 1..hi)
            .filter(|&i| !p.skip[i])
            .min_by_key(|&i| (i.abs_diff(middle), i))
        else {
            return done(
                Next::Failed(format!(
                    "only skipped commits are left between the last good (index {lo}) and the first bad (index {hi}): the first bad commit is one of them or the bad one"
                )),
                calls,
                path,
                lo,
                hi,
                gl,
                bl,
            );
        };
        let sides = Sides {
            good: gl,
            bad: bl,
            run_sd: sd,
            good_se: sd / (good_runs.len() as f64).sqrt(),
            bad_se: sd / (bad_runs.len() as f64).sqrt(),
        };
        let runs = &p.runs[mid];
        let want = batch(((bl - gl) / sd).abs(), 1, p.max_runs);
        if runs.is_empty() {
            return done(
                Next::Run {
                    index: mid,
                    runs: want,
                },
                calls,
                path,
                lo,
                hi,
                gl,
                bl,
            );
        }
        let ratio = sides.log_ratio(runs);
        let bound = ((1.0 - ERROR) / ERROR).ln();
        let call = if ratio >= bound {
            Call {
                verdict: Verdict::Bad,
                forced: false,
                weak: false,
            }
        } else if ratio <= -bound {
            Call {
                verdict: Verdict::Good,
                forced: false,
                weak: false,
            }
        } else if (runs.len() as u32) < p.max_runs {
            let more = ((runs.len() as u32) + want).min(p.max_runs);
            return done(
                Next::Run {
                    index: mid,
                    runs: more,
                },
                calls,
                path,
                lo,
                hi,
                gl,
                bl,
            );
        } else {
            Call {
                verdict: if ratio >= 0.0 {
                    Verdict::Bad
                } else {
                    Verdict::Good
                },
                forced: true,
                weak: ratio.abs() < CAP_ODDS.ln(),
            }
        };
        calls[mid] = Some(call);
        path.push(mid);
        if call.verdict == Verdict::Bad {
            hi = mid;
            bad_runs.extend_from_slice(runs);
        } else {
            lo = mid;
            good_runs.extend_from_slice(runs);
        }
    }
}

/// Why a culprit is suspicious, if it is: a merge (the step may come from either side), or a
/// commit that touches only documentation or selftests, which cannot change how a kernel
/// performs. `files`: the files it touches, when the history was uploaded with them.
pub fn suspicious(parents: u32, files: Option<&[String]>, arch: Option<&str>) -> Option<String> {
    if parents >= 2 {
        return Some(format!(
            "a merge commit ({parents} parents): the step may come from either side of the merge"
        ));
    }
    let files = files.filter(|f| !f.is_empty())?;
    const INERT: [&str; 2] = ["Documentation/", "tools/testing/"];
    if files.iter().all(|f| INERT.iter().any(|d| f.starts_with(d))) {
        return Some(format!(
            "it touches only {} file{} under Documentation/ or tools/testing/, which do not change the kernel that ran",
            files.len(),
            if files.len() == 1 { "" } else { "s" }
        ));
    }
    // Only another architecture's code: not built into the kernel that ran.
    let own = arch.and_then(arch_dir)?;
    let dirs: std::collections::BTreeSet<&str> = files
        .iter()
        .map(|f| f.strip_prefix("arch/").and_then(|r| r.split('/').next()))
        .collect::<Option<_>>()?;
    if !dirs.contains(own) {
        let list: Vec<String> = dirs.iter().map(|d| format!("arch/{d}/")).collect();
        return Some(format!(
            "it touches only {}, not this machine's architecture (arch/{own}/)",
            list.join(" and ")
        ));
    }
    None
}

/// The kernel's `arch/` directory of a machine architecture as `uname -m`, `lscpu` or an LKP
/// job name it.
pub fn arch_dir(arch: &str) -> Option<&'static str> {
    let a = arch.trim().to_ascii_lowercase();
    Some(match a.as_str() {
        "x86_64" | "amd64" | "i386" | "i486" | "i586" | "i686" | "x86" => "x86",
        "aarch64" | "arm64" => "arm64",
        "s390x" | "s390" => "s390",
        "riscv64" | "riscv32" | "riscv" => "riscv",
        "loongarch64" | "loongarch" => "loongarch",
        _ if a.starts_with("armv") || a == "arm" => "arm",
        _ if a.starts_with("ppc") || a.starts_with("powerpc") => "powerpc",
        _ if a.starts_with("mips") => "mips",
        _ if a.starts_with("sparc") => "sparc",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plan of `n` commits stepping from 1000 to 950 at `at`, no runs yet.
    fn plan(n: usize) -> Plan {
        Plan {
            runs: vec![Vec::new(); n],
            skip: vec![false; n],
            step: -50.0,
            run_sd: 10.0,
            max_runs: DEFAULT_MAX_RUNS,
        }
    }

    /// Runs the walk to its end with runs at the true levels (a fixed jitter pattern).
    fn drive(mut p: Plan, at: usize) -> (Walk, usize) {
        let mut k = 0usize;
        loop {
            let w = walk(&p);
            match w.next {
                Next::Run { index, runs } => {
                    while (p.runs[index].len() as u32) < runs {
                        k += 1;
                        let level = if index >= at { 950.0 } else { 1000.0 };
                        p.runs[index].push(level + ((k * 7) % 11) as f64 - 5.0);
                    }
                }
                _ => return (w, k),
            }
        }
    }

    #[test]
    fn a_clear_step_is_found_in_log2_steps_with_few_runs() {
        let (w, runs) = drive(plan(1000), 613);
        assert_eq!(w.next, Next::Done { culprit: 613 });
        // Two runs of each end, then one run a commit: about log2(1000) commits.
        assert!(runs <= 16, "{runs}");
        assert_eq!(w.calls.iter().flatten().count(), 12);
        assert!(w.calls.iter().flatten().all(|c| !c.forced));
    }

    #[test]
    fn a_culprit_resting_on_a_weak_verdict_at_the_cap_is_said_not_named() {
        // Eight commits, the step at 4; commit 3 (tested second) runs halfway between the
        // levels, so it stays unsure to the cap and is decided on the balance.
        let run = |p: &mut Plan, middle: f64| loop {
            let w = walk(p);
            let Next::Run { index, runs } = w.next else {
                break w;
            };
            while (p.runs[index].len() as u32) < runs {
                let k = p.runs[index].len();
                let level = match index {
                    3 => middle,
                    i if i >= 4 => 950.0,
                    _ => 1000.0,
                };
                // Alternating ±3: the mean is the level after every pair.
                p.runs[index].push(level + if k.is_multiple_of(2) { 3.0 } else { -3.0 });
            }
        };
        // Exactly in the middle: even odds after 30 runs.
        let mut p = plan(8);
        let w = run(&mut p, 975.0);
        let call = w.calls[3].expect("commit 3 called");
        assert!(call.forced && call.weak, "{call:?}");
        assert_eq!(p.runs[3].len() as u32, DEFAULT_MAX_RUNS);
        let Next::Failed(why) = &w.next else {
            panic!("{:?}", w.next)
        };
        assert!(
            why.starts_with("the step is within the noise at this run cap: 1 commit stayed unsure after 30 runs"),
            "{why}"
        );
        let first_bad = if call.verdict == Verdict::Bad { 3 } else { 4 };
        assert_eq!(w.on_balance, Some(first_bad));
        // The guess is no verdict: every other call on the path stands, it does not.
        let standing: Vec<usize> = w.standing().map(|(i, _)| i).collect();
        assert!(!standing.contains(&3), "{standing:?}");
        assert_eq!(standing.len(), w.path.len() - 1, "{:?}", w.path);
        // A little nearer the good level (0.45 of a run spread of 3 off the middle) the runs
        // are still unsure at the cap but favour good more than 19:1: the verdict stands,
        // flagged forced, and the culprit is named. (Further off, it is sure before the cap.)
        let mut p = plan(8);
        let w = run(&mut p, 975.45);
        let call = w.calls[3].expect("commit 3 called");
        assert_eq!(call.verdict, Verdict::Good);
        assert!(call.forced && !call.weak, "{call:?}");
        assert_eq!(w.next, Next::Done { culprit: 4 });
        assert!(
            w.standing().any(|(i, c)| i == 3 && c.forced),
            "{:?}",
            w.path
        );
        assert_eq!(w.on_balance, None);
    }

    #[test]
    fn merges_and_documentation_only_culprits_are_suspicious() {
        let owned = |v: &[&str]| v.iter().map(|f| (*f).to_owned()).collect::<Vec<String>>();
        assert!(suspicious(2, None, None)
            .unwrap()
            .starts_with("a merge commit (2 parents)"));
        let docs = owned(&["Documentation/a.rst", "tools/testing/selftests/x.c"]);
        assert!(suspicious(1, Some(&docs), None)
            .unwrap()
            .starts_with("it touches only 2 files"));
        let code = owned(&["Documentation/a.rst", "net/ipv4/tcp.c"]);
        assert_eq!(suspicious(1, Some(&code), Some("x86_64")), None);
        // Files unknown (a plain history, or too many): nothing to say.
        assert_eq!(suspicious(1, None, Some("x86_64")), None);
        assert_eq!(suspicious(1, Some(&[]), None), None);
        // Another architecture's code, when the machine's is known.
        let arm = owned(&["arch/arm64/kernel/smp.c", "arch/arm/mm/init.c"]);
        assert_eq!(
            suspicious(1, Some(&arm), Some("x86_64")).as_deref(),
            Some("it touches only arch/arm/ and arch/arm64/, not this machine's architecture (arch/x86/)")
        );
        assert_eq!(suspicious(1, Some(&arm), Some("aarch64")), None);
        assert_eq!(suspicious(1, Some(&arm), None), None);
        let x86 = owned(&["arch/x86/kernel/smp.c"]);
        assert_eq!(suspicious(1, Some(&x86), Some("x86_64")), None);
        assert_eq!(arch_dir("ppc64le"), Some("powerpc"));
        assert_eq!(arch_dir("armv7l"), Some("arm"));
        assert_eq!(arch_dir("vax"), None);
    }

    #[test]
    fn skipped_commits_are_stepped_around() {
        let mut p = plan(9);
        p.skip[4] = true;
        let (w, _) = drive(p.clone(), 6);
        assert_eq!(w.next, Next::Done { culprit: 6 });
        assert_eq!(w.calls[4], None);
        // The step at the skipped commit: it or the next is the culprit, and the walk says so
        // rather than pick one.
        let (w, _) = drive(p, 4);
        assert!(
            matches!(w.next, Next::Failed(ref m) if m.starts_with("only skipped commits are left between the last good (index 3) and the first bad (index 5)")),
            "{:?}",
            w.next
        );
    }

    #[test]
    fn no_step_or_one_within_the_noise_fails_and_says_why() {
        // The ends rerun alike.
        let (w, _) = drive(plan(100), 1000);
        let Next::Failed(why) = w.next else {
            panic!("{:?}", w.next)
        };
        assert!(why.contains("rerun alike"), "{why}");
        // A step of 0.5 % with a run spread of 5 %: it would take too many runs.
        let mut p = plan(100);
        p.step = -5.0;
        p.run_sd = 50.0;
        let mut k = 0;
        let w = loop {
            let w = walk(&p);
            let Next::Run { index, runs } = w.next else {
                break w;
            };
            while (p.runs[index].len() as u32) < runs {
                k += 1;
                let level = if index >= 40 { 995.0 } else { 1000.0 };
                p.runs[index].push(level + 50.0 * (f64::from((k * 37) % 101) / 50.0 - 1.0));
            }
        };
        let Next::Failed(why) = w.next else {
            panic!("{:?}", w.next)
        };
        assert!(why.starts_with("the step is within the noise"), "{why}");
    }
}
