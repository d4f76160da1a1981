//! The lab's loop at its seams (issue 52): what robots, calibration and bisections do to each
//! other when used together.

mod auto;
mod calibration;
mod marks;
mod robots;
pub(crate) mod sim;
mod sim_ci;
mod story;
