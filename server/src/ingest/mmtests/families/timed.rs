//! Ports of `parse-results` for: autonumabench, gitcheckout, gitsource, kernbench, kvmstart, nas, poundsyscall, time_unmap, trunc, usemem, xfsrepair, hackbench, netperf.

use super::prelude::*;

pub fn autonumabench(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("autonumabench: not ported yet"))
}

pub fn gitcheckout(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("gitcheckout: not ported yet"))
}

pub fn gitsource(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("gitsource: not ported yet"))
}

pub fn kernbench(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("kernbench: not ported yet"))
}

pub fn kvmstart(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("kvmstart: not ported yet"))
}

pub fn nas(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("nas: not ported yet"))
}

pub fn poundsyscall(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("poundsyscall: not ported yet"))
}

pub fn time_unmap(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("time_unmap: not ported yet"))
}

pub fn trunc(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("trunc: not ported yet"))
}

pub fn usemem(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("usemem: not ported yet"))
}

pub fn xfsrepair(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("xfsrepair: not ported yet"))
}

pub fn hackbench(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("hackbench: not ported yet"))
}

pub fn netperf(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("netperf: not ported yet"))
}

