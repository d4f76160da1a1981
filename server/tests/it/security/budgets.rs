//! Security findings of the 2026-12-06 audit (issue 51): budgets.

#[allow(unused_imports, reason = "filled in by the tests below")]
use crate::helpers::*;
