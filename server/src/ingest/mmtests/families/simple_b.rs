//! Ports of `parse-results` for: sqlite, sysbenchcpu, sysbenchmutex, xsbench, wis, stockfish, unixbenchd, stutterp, perffutexwake, stream, io_uring.

use super::prelude::*;

pub fn sqlite(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("sqlite: not ported yet"))
}

pub fn sysbenchcpu(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("sysbenchcpu: not ported yet"))
}

pub fn sysbenchmutex(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("sysbenchmutex: not ported yet"))
}

pub fn xsbench(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("xsbench: not ported yet"))
}

pub fn wis(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("wis: not ported yet"))
}

pub fn stockfish(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("stockfish: not ported yet"))
}

pub fn unixbenchd(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("unixbenchd: not ported yet"))
}

pub fn stutterp(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("stutterp: not ported yet"))
}

pub fn perffutexwake(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("perffutexwake: not ported yet"))
}

pub fn stream(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("stream: not ported yet"))
}

pub fn io_uring(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("io_uring: not ported yet"))
}

