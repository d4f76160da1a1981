// SPDX-License-Identifier: GPL-3.0-or-later
//! The lab's loop at its seams (issue 52): what robots, calibration and bisections do to each
//! other when used together.

mod auto;
mod calibration;
mod marks;
mod robots;
pub(crate) mod sim;
mod sim_ci;
mod story;

/// The messages the SMTP server holds once the culprit mail is among them (within 20 s).
pub(crate) async fn culprit_mails(smtp: &crate::alerts::Smtp) -> Vec<String> {
    use std::time::{Duration, Instant};
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let m = smtp.messages();
        if m.iter()
            .any(|m| crate::alerts::body_of(m).contains("Perfline bisected it"))
        {
            return m;
        }
        assert!(Instant::now() < deadline, "no culprit mail: {m:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
