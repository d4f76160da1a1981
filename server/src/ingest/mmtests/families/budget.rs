//! Caps on the work a parser does for one directory. mmtests' scripts list, read and print
//! per file name, so hostile names (a factor repeated in many names, patterns matching
//! everything) would make a faithful port quadratic; these caps turn that into a [`Problem`].

use std::cell::Cell;

use super::prelude::*;

/// Work allowed for one directory, in units of bytes read or held, names listed and rows
/// printed: `factor` times the directory's size (names and texts, one more per member) plus
/// `base`. Charged through a shared reference, so one budget serves a whole parser.
pub struct Budget {
    left: Cell<u64>,
    factor: u64,
}

impl Budget {
    pub fn new(dir: &LogDir, factor: u64, base: u64) -> Budget {
        let size = dir
            .names()
            .map(|n| (n.len() + dir.get(n).map_or(0, str::len) + 1) as u64)
            .fold(0u64, u64::saturating_add);
        Budget {
            left: Cell::new(size.saturating_mul(factor).saturating_add(base)),
            factor,
        }
    }

    /// Spends `units`; a [`Problem`] once the budget is exhausted.
    pub fn charge(&self, units: u64) -> Result<(), Problem> {
        match self.left.get().checked_sub(units) {
            Some(left) => {
                self.left.set(left);
                Ok(())
            }
            None => {
                self.left.set(0);
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
}
