// SPDX-License-Identifier: GPL-3.0-or-later
//! A comparison as text: its table (mmtests', mmtests' ratio view, or LKP's) and what goes
//! under it (the run-count advice, the permalink, what else differs between the kernels'
//! runs). Written once here for the API's `format=text` (and so for `perfline compare`, which
//! prints it), the comparison page's text and its "Copy as text".
//!
//! Beside `compare` rather than in it: the tables are `mmtests`', which is built on `compare`.

use crate::compare::{advice_text, lkp_approximation, Comparison};
use crate::label::Label;
use crate::mmtests::{mmtests_text, ratio_text};

/// The table a comparison's text starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table<'a> {
    /// mmtests' table, as `compare-kernels.sh` prints it.
    Mmtests,
    /// mmtests' `--print-ratio` table.
    Ratio,
    /// lkp-tests' table as the server printed it from the runs' samples (its own rules, the
    /// port in `app::lkp`); empty when no metric changed by those rules.
    Lkp(&'a str),
    /// Every row in LKP's layout, approximated from the statistics
    /// ([`lkp_approximation`]): lkp-tests prints only the rows it calls changed.
    LkpEveryRow,
}

/// What a comparison's text holds besides its table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextOptions<'a> {
    pub table: Table<'a>,
    /// With `Some(detect)`: a line under the table for each row whose runs cannot tell a
    /// change of `detect` (a fraction: 0.02 is 2%).
    pub advice: Option<f64>,
    /// Where the permalink's link starts (an origin, or `""` for a path). No permalink line
    /// with `None`, nor for a comparison without a permalink.
    pub origin: Option<&'a str>,
    /// Whether what else differs between the kernels' runs follows the permalink.
    pub facts: bool,
}

/// The text of `c` as `options` say.
pub fn text(c: &Comparison, options: &TextOptions<'_>) -> String {
    let mut text = match options.table {
        Table::Mmtests => mmtests_text(c),
        Table::Ratio => ratio_text(c),
        Table::Lkp("") => "No metric changed by lkp-tests' rules.\n".to_owned(),
        Table::Lkp(table) => table.to_owned(),
        Table::LkpEveryRow => lkp_approximation(c),
    };
    if let Some(detect) = options.advice {
        text.push_str(&advice_text(&c.rows, detect));
    }
    if let (Some(origin), Some(id)) = (options.origin, &c.permalink) {
        text.push('\n');
        text.push_str(&permalink_line(origin, id));
    }
    if options.facts {
        // Under the permalink: what else differs (the table above stays as it was asked).
        let facts = facts(c);
        if !facts.is_empty() {
            text.push('\n');
            text.push_str(&facts);
        }
    }
    text
}

/// The line that names a comparison's permalink `id`, its link starting with `origin`.
pub fn permalink_line(origin: &str, id: &str) -> String {
    format!("Permalink: {origin}/c/{id}\n")
}

/// What differs between the baseline's runs and each kernel's besides the kernel (machine,
/// CPU, config, sysctl, command line...); empty when nothing does.
pub fn facts(c: &Comparison) -> String {
    let baseline = c.query.kernels.first().map_or("", Label::as_str);
    crate::facts::text(baseline, &c.facts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::CompareQuery;

    fn comparison(permalink: Option<&str>) -> Comparison {
        Comparison {
            query: CompareQuery::parse("b", "m", &["a", "b"]).unwrap(),
            runs: Vec::new(),
            precision: 2,
            permalink: permalink.map(Into::into),
            rows: Vec::new(),
            facts: Vec::new(),
            changed: Vec::new(),
            family: None,
        }
    }

    #[test]
    fn the_permalink_line_follows_the_table_when_there_is_one() {
        let options = TextOptions {
            table: Table::Lkp("TABLE\n"),
            advice: None,
            origin: Some("https://perf.example.org"),
            facts: true,
        };
        assert_eq!(
            text(&comparison(Some("abc")), &options),
            "TABLE\n\nPermalink: https://perf.example.org/c/abc\n"
        );
        assert_eq!(text(&comparison(None), &options), "TABLE\n");
        let path = TextOptions {
            origin: Some(""),
            ..options
        };
        assert!(text(&comparison(Some("abc")), &path).ends_with("\nPermalink: /c/abc\n"));
        let none = TextOptions {
            origin: None,
            ..options
        };
        assert_eq!(text(&comparison(Some("abc")), &none), "TABLE\n");
    }

    #[test]
    fn an_empty_lkp_table_says_nothing_changed() {
        let options = TextOptions {
            table: Table::Lkp(""),
            advice: None,
            origin: None,
            facts: false,
        };
        assert_eq!(
            text(&comparison(None), &options),
            "No metric changed by lkp-tests' rules.\n"
        );
    }
}
