//! Ports of `parse-results` for: siege, simoop, specjbb, sstartup, stressng, sysbench, thpchallenge, xfstests, cyclictest, futexbench.

use super::prelude::*;

pub fn siege(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("siege: not ported yet"))
}

pub fn simoop(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("simoop: not ported yet"))
}

pub fn specjbb(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("specjbb: not ported yet"))
}

pub fn sstartup(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("sstartup: not ported yet"))
}

pub fn stressng(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("stressng: not ported yet"))
}

pub fn sysbench(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("sysbench: not ported yet"))
}

pub fn thpchallenge(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("thpchallenge: not ported yet"))
}

pub fn xfstests(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("xfstests: not ported yet"))
}

pub fn cyclictest(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("cyclictest: not ported yet"))
}

pub fn futexbench(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("futexbench: not ported yet"))
}

