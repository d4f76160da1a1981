//! Ports of `parse-results` for: dbench, tbench, redis, redis-memtier, schbench, specjbb2015, sysjitter.

use super::prelude::*;

pub fn dbench(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("dbench: not ported yet"))
}

pub fn tbench(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("tbench: not ported yet"))
}

pub fn redis(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("redis: not ported yet"))
}

pub fn redis_memtier(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("redis-memtier: not ported yet"))
}

pub fn schbench(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("schbench: not ported yet"))
}

pub fn specjbb2015(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("specjbb2015: not ported yet"))
}

pub fn sysjitter(_dir: &LogDir) -> Result<Vec<Line>, Problem> {
    Err(Problem::new("sysjitter: not ported yet"))
}

