//! Ports of `parse-results` for: bonniepp, fio, iperf3, ltp, perfnuma, pgbench, pistress, pmqtest, rtmigration, saladfork.

use super::prelude::*;

pub fn bonniepp(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("bonniepp: not ported yet"))
}

pub fn fio(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("fio: not ported yet"))
}

pub fn iperf3(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("iperf3: not ported yet"))
}

pub fn ltp(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("ltp: not ported yet"))
}

pub fn perfnuma(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("perfnuma: not ported yet"))
}

pub fn pgbench(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("pgbench: not ported yet"))
}

pub fn pistress(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("pistress: not ported yet"))
}

pub fn pmqtest(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("pmqtest: not ported yet"))
}

pub fn rtmigration(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("rtmigration: not ported yet"))
}

pub fn saladfork(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("saladfork: not ported yet"))
}

