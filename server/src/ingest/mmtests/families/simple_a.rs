//! Ports of `parse-results` for: aim9, apachebench, blogbench, coremark, easywave, ebizzy, fsmark, libmicro, pedsort, perfpipe, perfsyscall, sembench.

use super::prelude::*;

pub fn aim9(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("aim9: not ported yet"))
}

pub fn apachebench(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("apachebench: not ported yet"))
}

pub fn blogbench(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("blogbench: not ported yet"))
}

pub fn coremark(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("coremark: not ported yet"))
}

pub fn easywave(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("easywave: not ported yet"))
}

pub fn ebizzy(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("ebizzy: not ported yet"))
}

pub fn fsmark(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("fsmark: not ported yet"))
}

pub fn libmicro(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("libmicro: not ported yet"))
}

pub fn pedsort(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("pedsort: not ported yet"))
}

pub fn perfpipe(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("perfpipe: not ported yet"))
}

pub fn perfsyscall(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("perfsyscall: not ported yet"))
}

pub fn sembench(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("sembench: not ported yet"))
}

