// SPDX-License-Identifier: GPL-2.0-or-later
// Part of a port of mmtests (https://github.com/gormanm/mmtests) at 638401e07e70, modified (translated to Rust); see crates/mmtests-parse/PROVENANCE.md.
//! Caps on the work a parser does for one directory. mmtests' scripts list, read and print
//! per file name, so hostile names (a factor repeated in many names, patterns matching
//! everything) would make a faithful port quadratic; these caps turn that into a [`Problem`].

use std::cell::Cell;

use super::prelude::*;

/// Work allowed for one directory, in units of bytes read or held, names listed and rows
/// printed: `factor` times the directory's size as read so far ([`LogDir::size`]: names and
/// texts, one more per member, a compressed log's text once it is read) plus `base`. Charged
/// through a shared reference, so one budget serves a whole parser.
pub struct Budget<'a> {
    dir: &'a LogDir,
    spent: Cell<u64>,
    factor: u64,
    base: u64,
}

impl<'a> Budget<'a> {
    pub fn new(dir: &'a LogDir, factor: u64, base: u64) -> Budget<'a> {
        Budget {
            dir,
            spent: Cell::new(0),
            factor,
            base,
        }
    }

    /// Spends `units`; a [`Problem`] once the budget is exhausted.
    pub fn charge(&self, units: u64) -> Result<(), Problem> {
        let allowed = self
            .dir
            .size()
            .saturating_mul(self.factor)
            .saturating_add(self.base);
        match self
            .spent
            .get()
            .checked_add(units)
            .filter(|&s| s <= allowed)
        {
            Some(spent) => {
                self.spent.set(spent);
                Ok(())
            }
            None => {
                self.spent.set(allowed);
                Err(Problem::new(format!(
                    "the file names make mmtests' parser list, read or print the same logs over \
                     and over (more work than {} times the directory's size); refused",
                    self.factor
                )))
            }
        }
    }
}

/// Refuses a directory whose names repeat a factor so often that a script's output would grow
/// quadratically: `rows` (counted before the work) against eight per member, plus a little.
pub fn check_repeats(rows: usize, members: usize, script: &str, glob: &str) -> Result<(), Problem> {
    let bound = members.saturating_mul(8).saturating_add(4096);
    if rows > bound {
        return Err(Problem::new(format!(
            "{script}: the names under {glob} repeat factors so often that the script would \
             print {rows} rows for {members} members; refused"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_run_out() {
        let mut dir = LogDir::new("x");
        dir.insert("a", "12".into());
        // (1 + 2 + 1) * 2 + 10 units.
        let budget = Budget::new(&dir, 2, 10);
        assert!(budget.charge(18).is_ok());
        assert!(budget.charge(1).is_err());
        assert!(budget.charge(0).is_ok());
        assert!(check_repeats(4096, 0, "s", "g").is_ok());
        assert!(check_repeats(4105, 1, "s", "g").is_err());
    }

    /// A compressed log weighs its name until a parser reads it, then its text too; a member
    /// added again under its name replaces it in the size.
    #[test]
    fn a_packed_log_adds_to_the_budget_once_read() {
        let tenfold = |_: &str, raw: &[u8]| Some(String::from_utf8_lossy(raw).repeat(10));
        let mut dir = LogDir::unpacking("x", Unpack(std::sync::Arc::new(tenfold)));
        dir.insert_packed("a.gz", b"12".to_vec());
        dir.insert("b", "xy".into());
        dir.insert("b", "xy".into());
        assert_eq!(dir.size(), 5 + 4);
        let budget = Budget::new(&dir, 1, 0);
        assert!(budget.charge(9).is_ok());
        assert!(budget.charge(1).is_err());
        assert_eq!(dir.get("a.gz").map(str::len), Some(20));
        assert_eq!(dir.size(), 9 + 20);
        assert!(budget.charge(20).is_ok());
        assert!(budget.charge(1).is_err());
    }
}
