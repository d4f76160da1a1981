// SPDX-License-Identifier: GPL-3.0-or-later
//! Perfline's pure rules, at the bottom of the server: no I/O, no clock, no SQL; the store,
//! the services and the benches call them.
//!
//! - [`changepoint`]: change points by a penalised segmentation, the one engine of trends and
//!   alerts, and the alerts' permutation test of one split.
//! - [`verdict`]: a commit's runs judged good, bad or unsure through the noise (Wald's
//!   sequential probability ratio test), and the batch of runs to ask for.
//! - [`bisection`]: a bisection replayed from the runs uploaded so far (`walk`), so the store
//!   keeps only runs and marks.
//! - [`noise`]: the noise model (within-run and between-run variation) and the t test's power.
//! - [`alert_rule`]: the alert `Rule`, here so that the store (which keeps rules) and the
//!   detector (which applies them) need not import each other.

pub mod alert_rule;
pub mod bisection;
pub mod changepoint;
pub mod noise;
pub mod verdict;
