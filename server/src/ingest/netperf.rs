// SPDX-License-Identifier: GPL-3.0-or-later
//! netperf 2.x output: classic and `MIGRATED` banner tests (STREAM, MAERTS, RR, CRR, UDP_STREAM),
//! `-P 0` bare result lines, the `netperf ... | tail -n1` sweep form, `Interim result:` lines
//! (`-D`), the `!!! WARNING` confidence block, and omni output (`-O` columns, `-o` CSV,
//! `-k` KEY=value). Several outputs concatenated in one file are several samples.
//!
//! Throughput is normalised to `10^6bits/s` so that runs recorded with `-f m` and `-f K`
//! compare; the unit netperf printed is kept as a run fact (and the raw file is kept).

use app::label::Direction;

use super::{resolve_key, Budget, IngestError, ParsedRun, Row, RunBuilder, UploadMeta};

const NORMAL_UNIT: &str = "10^6bits/s";

pub fn detect(text: &str) -> bool {
    if text.lines().any(is_banner) {
        return true;
    }
    // Bare `-P 0` or sweep lines: every non-empty line is 5 numbers (recv send msg secs tput),
    // or omni's `value,unit`.
    let mut lines = text.lines().filter(|l| !l.trim().is_empty()).peekable();
    lines.peek().is_some()
        && lines.all(|l| bare_fields(l).is_some() || value_unit(l.trim()).is_some())
}

fn is_banner(line: &str) -> bool {
    let l = line.trim_start();
    l.contains(" TEST ")
        && (l.contains(" from ") || l.contains(" to "))
        && (l.starts_with("MIGRATED ")
            || l.starts_with("TCP ")
            || l.starts_with("UDP ")
            || l.starts_with("SCTP ")
            || l.starts_with("OMNI "))
}

/// `17022.96,10^6bits/s`: a throughput and its unit, as omni `-o` prints them with `-P 0`.
fn value_unit(line: &str) -> Option<(f64, &str)> {
    let (v, unit) = line.split_once(',')?;
    let unit = unit.trim();
    unit_factor(unit)?;
    Some((v.trim().parse().ok()?, unit))
}

/// `recv send msgsize secs throughput` as numbers.
fn bare_fields(line: &str) -> Option<[f64; 5]> {
    let f: Vec<f64> = line
        .split_whitespace()
        .map(|w| w.parse::<f64>().ok())
        .collect::<Option<Vec<_>>>()?;
    (f.len() == 5).then(|| [f[0], f[1], f[2], f[3], f[4]])
}

/// The factor that turns a netperf throughput unit into 10^6 bits/s. netperf's `K`, `M`, `G`
/// bytes are powers of 1024; its `k`, `m`, `g` bits are powers of 1000.
fn unit_factor(unit: &str) -> Option<f64> {
    let u = unit.replace(' ', "");
    let u = u.trim_end_matches("/sec").trim_end_matches("/s");
    Some(match u {
        "10^6bits" | "Mbits" | "mbits" => 1.0,
        "10^3bits" | "Kbits" | "kbits" => 1e-3,
        "10^9bits" | "Gbits" | "gbits" => 1e3,
        "bits" => 1e-6,
        "Bytes" => 8.0 / 1e6,
        "KBytes" => 8.0 * 1024.0 / 1e6,
        "MBytes" => 8.0 * 1024.0 * 1024.0 / 1e6,
        "GBytes" => 8.0 * 1024.0 * 1024.0 * 1024.0 / 1e6,
        _ => return None,
    })
}

/// The test name netperf's `-t` takes, from a banner's words.
fn test_name(banner: &str) -> String {
    let b = banner.trim_start().trim_start_matches("MIGRATED ");
    let kind = b.split(" TEST").next().unwrap_or("").trim();
    match kind {
        "TCP STREAM" => "TCP_STREAM".into(),
        "TCP MAERTS" => "TCP_MAERTS".into(),
        "UDP STREAM" => "UDP_STREAM".into(),
        "TCP REQUEST/RESPONSE" => "TCP_RR".into(),
        "UDP REQUEST/RESPONSE" => "UDP_RR".into(),
        "TCP Connect/Request/Response" => "TCP_CRR".into(),
        other => other.replace([' ', '/'], "_"),
    }
}

/// One sample found in the file, before grouping.
struct Found {
    line: u64,
    metric: &'static str,
    param: String,
    unit: String,
    direction: Direction,
    value: f64,
}

#[derive(Default)]
struct Collected {
    found: Vec<Found>,
    facts: Vec<(String, String)>,
}

impl Collected {
    fn fact(&mut self, k: &str, v: impl Into<String>) {
        let v = v.into();
        match self.facts.iter_mut().find(|(key, _)| key == k) {
            Some((_, old)) => *old = v,
            None => self.facts.push((k.to_owned(), v)),
        }
    }

    /// Records a throughput in the unit netperf printed, normalised.
    fn throughput(
        &mut self,
        line: u64,
        metric: &'static str,
        param: &str,
        value: f64,
        unit: &str,
    ) -> Result<(), IngestError> {
        let factor = unit_factor(unit).ok_or_else(|| {
            IngestError::at_line(line, format!("unknown netperf throughput unit '{unit}'"))
        })?;
        self.fact("throughput_unit", unit.replace(' ', ""));
        self.found.push(Found {
            line,
            metric,
            param: param.to_owned(),
            unit: NORMAL_UNIT.into(),
            direction: Direction::Higher,
            value: value * factor,
        });
        Ok(())
    }

    fn other(
        &mut self,
        line: u64,
        metric: &'static str,
        param: &str,
        unit: &str,
        direction: Direction,
        value: f64,
    ) {
        self.found.push(Found {
            line,
            metric,
            param: param.to_owned(),
            unit: unit.to_owned(),
            direction,
            value,
        });
    }
}

fn num(line: u64, what: &str, s: &str) -> Result<f64, IngestError> {
    s.parse::<f64>()
        .map_err(|_| IngestError::at_line(line, format!("netperf {what} '{s}' is not a number")))
}

/// The numeric fields of a data row, or `None` if the line is not one.
fn data_fields(line: &str) -> Option<Vec<&str>> {
    let f: Vec<&str> = line.split_whitespace().collect();
    (!f.is_empty() && f[0].parse::<f64>().is_ok()).then_some(f)
}

pub fn parse(
    text: &str,
    meta: &UploadMeta,
    budget: &Budget,
) -> Result<Vec<ParsedRun>, IngestError> {
    let c = collect(text)?;
    let mut m = meta.clone();
    if m.benchmark.is_none() {
        m.set("benchmark", "netperf")?;
    }
    let mut builder = RunBuilder::within(budget);
    let run = builder.run(resolve_key(1, &m, None, None, None, None)?, &meta.tags);
    for f in &c.found {
        builder.push(Row {
            line: f.line,
            run,
            metric: f.metric,
            param: &f.param,
            unit: Some(&f.unit),
            direction: Some(f.direction),
            iteration: None,
            value: f.value,
        })?;
    }
    let mut runs = builder.finish()?;
    for r in &mut runs {
        r.facts.extend(c.facts.iter().cloned());
    }
    Ok(runs)
}

fn collect(text: &str) -> Result<Collected, IngestError> {
    let lines: Vec<&str> = text.lines().collect();
    let mut c = Collected::default();
    let mut test: Option<String> = None;
    let mut tests: Vec<String> = Vec::new();
    let mut i = 0;
    let mut interim: Vec<(u64, f64, String)> = Vec::new();
    while i < lines.len() {
        let line_no = i as u64 + 1;
        let t = lines[i].trim();
        if is_banner(t) {
            let name = test_name(t);
            if !tests.contains(&name) {
                tests.push(name.clone());
            }
            test = Some(name);
            if let Some(conf) = t.split(" : ").find(|p| p.contains("conf.")) {
                c.fact("confidence_requested", conf.trim());
            }
            i += 1;
            continue;
        }
        if let Some(rest) = t.strip_prefix("!!! Confidence intervals:") {
            // "!!! Confidence intervals: Throughput      : 179.699%"
            if let Some((_, v)) = rest.split_once(':') {
                c.fact("confidence_achieved_throughput", v.trim());
            }
            c.fact("confidence_warning", "desired confidence was not achieved");
            i += 1;
            continue;
        }
        if let Some(rest) = t.strip_prefix("Interim result:") {
            // "Interim result: 13923.90 10^6bits/s over 1.005 seconds ending at ..."
            let w: Vec<&str> = rest.split_whitespace().collect();
            let v = num(line_no, "interim result", w.first().copied().unwrap_or(""))?;
            interim.push((
                line_no,
                v,
                w.get(1).copied().unwrap_or(NORMAL_UNIT).to_owned(),
            ));
            i += 1;
            continue;
        }
        if let Some((k, v)) = t.split_once('=').filter(|(k, _)| {
            !k.is_empty()
                && k.chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        }) {
            // omni -k: collect the block of KEY=value lines.
            let mut kv: Vec<(String, String, u64)> =
                vec![(k.to_owned(), v.trim().to_owned(), line_no)];
            i += 1;
            while i < lines.len() {
                match lines[i].trim().split_once('=') {
                    Some((k, v))
                        if k.chars()
                            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_') =>
                    {
                        kv.push((k.to_owned(), v.trim().to_owned(), i as u64 + 1));
                        i += 1;
                    }
                    _ => break,
                }
            }
            omni_keyed(&mut c, &kv)?;
            continue;
        }
        if t.contains(',') && t.split(',').any(|h| h.trim() == "Throughput") && i + 1 < lines.len()
        {
            // omni -o: a CSV header and one line of values.
            let header: Vec<&str> = t.split(',').map(str::trim).collect();
            let values: Vec<&str> = lines[i + 1].split(',').map(str::trim).collect();
            let kv: Vec<(String, String, u64)> = header
                .iter()
                .zip(values.iter())
                .map(|(h, v)| (omni_key(h), v.to_string(), line_no + 1))
                .collect();
            omni_keyed(&mut c, &kv)?;
            i += 2;
            continue;
        }
        if t.starts_with("Throughput ") && !t.contains(',') {
            // omni -O: header rows, then one row of values.
            let header_line = i;
            let mut j = i + 1;
            while j < lines.len() && data_fields(lines[j]).is_none() {
                j += 1;
            }
            let Some(values) = lines.get(j).and_then(|l| data_fields(l)) else {
                return Err(IngestError::at_line(
                    header_line as u64 + 1,
                    "netperf omni header with no data row",
                ));
            };
            let names: Vec<&str> = t.split_whitespace().collect();
            let mut kv = Vec::new();
            let mut seen_throughput = false;
            for (name, value) in names.iter().zip(values.iter()) {
                let key = match *name {
                    "Throughput" if !seen_throughput => {
                        seen_throughput = true;
                        "THROUGHPUT".to_owned()
                    }
                    "Throughput" => "THROUGHPUT_UNITS".to_owned(),
                    "Elapsed" => "ELAPSED_TIME".to_owned(),
                    "Local" if value.parse::<f64>().is_ok() => "LOCAL_SEND_SIZE".to_owned(),
                    other => other.to_ascii_uppercase(),
                };
                kv.push((key, value.to_string(), j as u64 + 1));
            }
            omni_keyed(&mut c, &kv)?;
            i = j + 1;
            continue;
        }
        if t.starts_with("bytes") || t.starts_with("Bytes") {
            // The units row of a classic header; the data row follows. Pasted into a mail, the
            // header may be wrapped at ~72 columns (seed 003): lines of words only continue it.
            let mut units = t.to_owned();
            let mut j = i + 1;
            while j < lines.len() {
                let l = lines[j].trim();
                if l.is_empty() {
                    j += 1;
                } else if data_fields(l).is_none() && !is_banner(l) {
                    units.push(' ');
                    units.push_str(l);
                    j += 1;
                } else {
                    break;
                }
            }
            let units = units.as_str();
            let Some(mut fields) = lines.get(j).and_then(|l| data_fields(l)) else {
                return Err(IngestError::at_line(
                    line_no,
                    "netperf header with no data row",
                ));
            };
            // A wrapped data row: a stream row with CPU columns has 9 fields; the ones the
            // wrap moved come alone on the next line.
            if (6..9).contains(&fields.len()) {
                if let Some(rest) = lines.get(j + 1).and_then(|l| data_fields(l)) {
                    if fields.len() + rest.len() == 9
                        && rest.iter().all(|w| w.parse::<f64>().is_ok())
                    {
                        fields.extend(rest);
                        j += 1;
                    }
                }
            }
            let data_line = j as u64 + 1;
            let name = test.clone().unwrap_or_else(|| "TCP_STREAM".into());
            match name.as_str() {
                "UDP_STREAM" => {
                    // send row: socket msg elapsed okay errors throughput; receive row: socket elapsed okay throughput
                    if fields.len() < 6 {
                        return Err(IngestError::at_line(
                            data_line,
                            format!(
                                "netperf UDP_STREAM send row has {} fields, not 6",
                                fields.len()
                            ),
                        ));
                    }
                    // The throughput unit is the first word of the units row netperf knows as one.
                    let unit = units
                        .split_whitespace()
                        .find(|w| unit_factor(w).is_some())
                        .unwrap_or(NORMAL_UNIT)
                        .to_owned();
                    let sd_unit = units
                        .split_whitespace()
                        .last()
                        .filter(|w| w.starts_with("us/"))
                        .unwrap_or("us/KB")
                        .to_owned();
                    let param = fields[1].to_owned();
                    c.throughput(
                        data_line,
                        "Throughput-send",
                        &param,
                        num(data_line, "throughput", fields[5])?,
                        &unit,
                    )?;
                    c.fact("socket_size", fields[0]);
                    if fields.len() >= 8 {
                        c.other(
                            data_line,
                            "CPU-local",
                            &param,
                            "%",
                            Direction::Lower,
                            num(data_line, "local CPU", fields[6])?,
                        );
                        c.other(
                            data_line,
                            "ServiceDemand-local",
                            &param,
                            &sd_unit,
                            Direction::Lower,
                            num(data_line, "local service demand", fields[7])?,
                        );
                    }
                    if let Some(recv) = lines
                        .get(j + 1)
                        .and_then(|l| data_fields(l))
                        .filter(|f| f.len() >= 4)
                    {
                        c.throughput(
                            data_line + 1,
                            "Throughput-recv",
                            &param,
                            num(data_line + 1, "throughput", recv[3])?,
                            &unit,
                        )?;
                        if recv.len() >= 6 {
                            c.other(
                                data_line + 1,
                                "CPU-remote",
                                &param,
                                "%",
                                Direction::Lower,
                                num(data_line + 1, "remote CPU", recv[4])?,
                            );
                            c.other(
                                data_line + 1,
                                "ServiceDemand-remote",
                                &param,
                                &sd_unit,
                                Direction::Lower,
                                num(data_line + 1, "remote service demand", recv[5])?,
                            );
                        }
                        j += 1;
                    }
                }
                "TCP_RR" | "UDP_RR" | "TCP_CRR" => {
                    if fields.len() < 6 {
                        return Err(IngestError::at_line(
                            data_line,
                            format!("netperf {name} row has {} fields, not 6", fields.len()),
                        ));
                    }
                    let param = fields[2].to_string();
                    c.other(
                        data_line,
                        "Trans/s",
                        &param,
                        "trans/s",
                        Direction::Higher,
                        num(data_line, "transaction rate", fields[5])?,
                    );
                    c.fact("socket_size_send", fields[0]);
                    c.fact("socket_size_recv", fields[1]);
                    c.fact("response_size", fields[3]);
                    cpu_columns(&mut c, data_line, &param, &fields[6..], units)?;
                    // The remote socket sizes line follows; skip it.
                    if lines
                        .get(j + 1)
                        .and_then(|l| data_fields(l))
                        .is_some_and(|f| f.len() == 2)
                    {
                        j += 1;
                    }
                }
                _ => {
                    if fields.len() < 5 {
                        return Err(IngestError::at_line(
                            data_line,
                            format!("netperf data row has {} fields, not 5", fields.len()),
                        ));
                    }
                    let unit = stream_unit(units);
                    let param = fields[2].to_owned();
                    c.throughput(
                        data_line,
                        "Throughput",
                        &param,
                        num(data_line, "throughput", fields[4])?,
                        &unit,
                    )?;
                    c.fact("socket_size_recv", fields[0]);
                    c.fact("socket_size_send", fields[1]);
                    cpu_columns(&mut c, data_line, &param, &fields[5..], units)?;
                    flush_interim(&mut c, &mut interim, &param)?;
                }
            }
            i = j + 1;
            continue;
        }
        if let Some((v, unit)) = value_unit(t) {
            // omni `-o throughput,throughput_units -P 0`: `value,unit` lines without a header.
            c.throughput(line_no, "Throughput", "", v, unit)?;
            i += 1;
            continue;
        }
        if let Some(f) = bare_fields(t) {
            // `-P 0` or a sweep line: recv send msgsize secs throughput, in 10^6bits/s by default.
            let _ = f;
            let fields: Vec<&str> = t.split_whitespace().collect();
            c.throughput(
                line_no,
                "Throughput",
                fields[2],
                num(line_no, "throughput", fields[4])?,
                "10^6bits/sec",
            )?;
            i += 1;
            continue;
        }
        i += 1;
    }
    if c.found.is_empty() {
        return Err(IngestError::new(
            "no netperf result found (a banner, header and data row, or bare result lines)",
        ));
    }
    if !tests.is_empty() {
        c.fact("test", tests.join(","));
    }
    Ok(c)
}

/// The throughput unit of a classic stream header's units row: `10^6bits/sec`, or `KBytes  /s`.
fn stream_unit(units: &str) -> String {
    let w: Vec<&str> = units.split_whitespace().collect();
    let Some(pos) = w.iter().position(|x| x.starts_with("secs")) else {
        return NORMAL_UNIT.into();
    };
    match (w.get(pos + 1), w.get(pos + 2)) {
        (Some(u), Some(&"/s")) => format!("{u}/s"),
        (Some(u), _) => u.to_string(),
        _ => NORMAL_UNIT.into(),
    }
}

/// `-c/-C` columns after the result: local and remote CPU %, local and remote service demand.
fn cpu_columns(
    c: &mut Collected,
    line: u64,
    param: &str,
    rest: &[&str],
    units: &str,
) -> Result<(), IngestError> {
    if rest.len() < 4 {
        return Ok(());
    }
    let sd_unit = units
        .split_whitespace()
        .last()
        .unwrap_or("us/KB")
        .to_owned();
    c.other(
        line,
        "CPU-local",
        param,
        "%",
        Direction::Lower,
        num(line, "local CPU", rest[0])?,
    );
    c.other(
        line,
        "CPU-remote",
        param,
        "%",
        Direction::Lower,
        num(line, "remote CPU", rest[1])?,
    );
    c.other(
        line,
        "ServiceDemand-local",
        param,
        &sd_unit,
        Direction::Lower,
        num(line, "local service demand", rest[2])?,
    );
    c.other(
        line,
        "ServiceDemand-remote",
        param,
        &sd_unit,
        Direction::Lower,
        num(line, "remote service demand", rest[3])?,
    );
    Ok(())
}

fn flush_interim(
    c: &mut Collected,
    interim: &mut Vec<(u64, f64, String)>,
    param: &str,
) -> Result<(), IngestError> {
    for (line, value, unit) in interim.drain(..) {
        let factor = unit_factor(&unit).ok_or_else(|| {
            IngestError::at_line(line, format!("unknown netperf throughput unit '{unit}'"))
        })?;
        c.other(
            line,
            "Throughput-interim",
            param,
            NORMAL_UNIT,
            Direction::Higher,
            value * factor,
        );
    }
    Ok(())
}

/// The omni output selector name for a human column title (`-o` prints titles).
fn omni_key(title: &str) -> String {
    match title {
        "Throughput" => "THROUGHPUT".into(),
        "Throughput Units" => "THROUGHPUT_UNITS".into(),
        "Elapsed Time (sec)" => "ELAPSED_TIME".into(),
        "Local Send Size" => "LOCAL_SEND_SIZE".into(),
        "Protocol" => "PROTOCOL".into(),
        other => other
            .to_ascii_uppercase()
            .replace(|c: char| !c.is_ascii_alphanumeric(), "_"),
    }
}

/// One omni result from `KEY=value` pairs (as `-k` prints them, or mapped from `-o`/`-O`).
fn omni_keyed(c: &mut Collected, kv: &[(String, String, u64)]) -> Result<(), IngestError> {
    let get = |k: &str| kv.iter().find(|(key, _, _)| key == k);
    let Some((_, tput, line)) = get("THROUGHPUT") else {
        return Err(IngestError::at_line(
            kv.first().map_or(1, |x| x.2),
            "netperf omni output without THROUGHPUT",
        ));
    };
    let value = num(*line, "throughput", tput)?;
    let unit = get("THROUGHPUT_UNITS").map_or(NORMAL_UNIT, |x| x.1.as_str());
    let param = get("LOCAL_SEND_SIZE")
        .or_else(|| get("REQUEST_SIZE"))
        .map(|x| x.1.clone())
        .unwrap_or_default();
    if unit.contains("Trans") {
        c.other(
            *line,
            "Trans/s",
            &param,
            "trans/s",
            Direction::Higher,
            value,
        );
    } else {
        c.throughput(*line, "Throughput", &param, value, unit)?;
    }
    for (k, v, _) in kv {
        if !matches!(k.as_str(), "THROUGHPUT" | "THROUGHPUT_UNITS") {
            c.fact(&k.to_ascii_lowercase(), v.clone());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::ingest::{check_fixture, parse_file, render, test_meta, Format};

    /// Every netperf fixture, with the samples and facts it must yield (checked by hand against
    /// the files: throughput is the 5th field of a stream data row, KBytes/s is normalised).
    #[test]
    fn fixtures() {
        for (name, expect) in [
            (
                "omni-O.txt",
                r#"
run netperf m1 6.1.0 None
  fact throughput_unit=10^6bits/s
  fact elapsed_time=2.00
  fact local_send_size=4096
  fact protocol=TCP
  fact test=TCP_STREAM
  Throughput [4096] Some("10^6bits/s") higher [(0, 13184.8)]
"#,
            ),
            (
                "omni-k.txt",
                r#"
run netperf m1 6.1.0 None
  fact throughput_unit=10^6bits/s
  fact elapsed_time=2.00
  fact local_send_size=4096
  fact protocol=TCP
  fact direction=Send
  fact test=TCP_STREAM
  Throughput [4096] Some("10^6bits/s") higher [(0, 13894.29)]
"#,
            ),
            (
                "omni-o-csv.txt",
                r#"
run netperf m1 6.1.0 None
  fact throughput_unit=10^6bits/s
  fact elapsed_time=2.00
  fact local_send_size=4096
  fact protocol=TCP
  fact test=TCP_STREAM
  Throughput [4096] Some("10^6bits/s") higher [(0, 16023.74)]
"#,
            ),
            (
                "tcp_rr.txt",
                r#"
run netperf m1 6.1.0 None
  fact socket_size_send=16384
  fact socket_size_recv=131072
  fact response_size=1
  fact test=TCP_RR
  Trans/s [1] Some("trans/s") higher [(0, 12778.55)]
"#,
            ),
            (
                "tcp_stream-P0.txt",
                r#"
run netperf m1 6.1.0 None
  fact throughput_unit=10^6bits/sec
  Throughput [1024] Some("10^6bits/s") higher [(0, 5351.69)]
"#,
            ),
            (
                "tcp_stream-confidence.txt",
                r#"
run netperf m1 6.1.0 None
  fact confidence_requested=+/-0.500% @ 99% conf.
  fact confidence_achieved_throughput=179.699%
  fact confidence_warning=desired confidence was not achieved
  fact throughput_unit=10^6bits/sec
  fact socket_size_recv=131072
  fact socket_size_send=16384
  fact test=TCP_STREAM
  Throughput [2048] Some("10^6bits/s") higher [(0, 7826.98)]
"#,
            ),
            (
                "tcp_stream-cpu-fK.txt",
                r#"
run netperf m1 6.1.0 None
  fact throughput_unit=KBytes/s
  fact socket_size_recv=131072
  fact socket_size_send=16384
  fact test=TCP_STREAM
  Throughput [16384] Some("10^6bits/s") higher [(0, 17022.95748608)]
  CPU-local [16384] Some("%") lower [(0, 71.36)]
  CPU-remote [16384] Some("%") lower [(0, 71.36)]
  ServiceDemand-local [16384] Some("us/KB") lower [(0, 0.687)]
  ServiceDemand-remote [16384] Some("us/KB") lower [(0, 0.687)]
"#,
            ),
            (
                "tcp_stream-demo.txt",
                r#"
run netperf m1 6.1.0 None
  fact throughput_unit=10^6bits/sec
  fact socket_size_recv=131072
  fact socket_size_send=16384
  fact test=TCP_STREAM
  Throughput [8192] Some("10^6bits/s") higher [(0, 16259.2)]
  Throughput-interim [8192] Some("10^6bits/s") higher [(0, 13923.9), (1, 17888.67), (2, 16932.42)]
"#,
            ),
            (
                "tcp_stream-m1024.txt",
                r#"
run netperf m1 6.1.0 None
  fact throughput_unit=10^6bits/sec
  fact socket_size_recv=131072
  fact socket_size_send=16384
  fact test=TCP_STREAM
  Throughput [1024] Some("10^6bits/s") higher [(0, 6068.48)]
"#,
            ),
            (
                "tcp_stream-m16384.txt",
                r#"
run netperf m1 6.1.0 None
  fact throughput_unit=10^6bits/sec
  fact socket_size_recv=131072
  fact socket_size_send=16384
  fact test=TCP_STREAM
  Throughput [16384] Some("10^6bits/s") higher [(0, 18425.39)]
"#,
            ),
            (
                "tcp_stream-m256.txt",
                r#"
run netperf m1 6.1.0 None
  fact throughput_unit=10^6bits/sec
  fact socket_size_recv=131072
  fact socket_size_send=16384
  fact test=TCP_STREAM
  Throughput [256] Some("10^6bits/s") higher [(0, 1892.64)]
"#,
            ),
            (
                "tcp_stream-m4096.txt",
                r#"
run netperf m1 6.1.0 None
  fact throughput_unit=10^6bits/sec
  fact socket_size_recv=131072
  fact socket_size_send=16384
  fact test=TCP_STREAM
  Throughput [4096] Some("10^6bits/s") higher [(0, 14054.26)]
"#,
            ),
            (
                "tcp_stream-m64.txt",
                r#"
run netperf m1 6.1.0 None
  fact throughput_unit=10^6bits/sec
  fact socket_size_recv=131072
  fact socket_size_send=16384
  fact test=TCP_STREAM
  Throughput [64] Some("10^6bits/s") higher [(0, 522.04)]
"#,
            ),
            (
                "udp_stream-m1024.txt",
                r#"
run netperf m1 6.1.0 None
  fact throughput_unit=10^6bits/sec
  fact socket_size=212992
  fact test=UDP_STREAM
  Throughput-send [1024] Some("10^6bits/s") higher [(0, 1673.39)]
  Throughput-recv [1024] Some("10^6bits/s") higher [(0, 1660.46)]
"#,
            ),
        ] {
            check_fixture(&format!("netperf/{name}"), Format::Netperf, expect);
        }
    }

    fn fixture(name: &str) -> String {
        std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/netperf")
                .join(name),
        )
        .unwrap()
    }

    #[test]
    fn concatenated_outputs_are_samples_of_one_run() {
        let mut all = String::new();
        for size in [64, 256, 1024, 4096, 16384, 1024] {
            all.push_str(&fixture(&format!("tcp_stream-m{size}.txt")));
        }
        let (_, runs) = parse_file(all.as_bytes(), None, &test_meta()).unwrap();
        let got: Vec<String> = runs[0]
            .series
            .iter()
            .map(|s| format!("{} {:?}", s.param, s.samples))
            .collect();
        assert_eq!(
            got,
            vec![
                "64 [(0, 522.04)]",
                "256 [(0, 1892.64)]",
                "1024 [(0, 6068.48), (1, 6068.48)]",
                "4096 [(0, 14054.26)]",
                "16384 [(0, 18425.39)]"
            ]
        );
    }

    /// Seed 003: netperf 2.3 output pasted into a mail, header and data rows wrapped at ~72
    /// columns, three `Run N:` blocks: one sample per run, KBytes/s normalised to 10^6bits/s.
    #[test]
    fn mail_wrapped_runs_are_one_sample_each() {
        let text = fixture("seed003-mail-wrapped-runs.txt");
        let (format, runs) = parse_file(text.as_bytes(), None, &test_meta()).unwrap();
        assert_eq!(format, Format::Netperf);
        let tput = runs[0]
            .series
            .iter()
            .find(|s| s.metric.as_str() == "Throughput")
            .unwrap();
        assert_eq!(tput.param.as_str(), "16384");
        let got: Vec<String> = tput
            .samples
            .iter()
            .map(|(_, v)| format!("{v:.2}"))
            .collect();
        // 410302.39 KBytes/s · 8 · 1024 / 10^6 = 3361.20 10^6bits/s.
        assert_eq!(got, ["3361.20", "3354.71", "3312.47"]);
        let sd = runs[0]
            .series
            .iter()
            .find(|s| s.metric.as_str() == "ServiceDemand-remote")
            .unwrap();
        assert_eq!(sd.samples.len(), 3, "the wrapped last column is read too");
    }

    /// omni `-o throughput,throughput_units -P 0`: `value,unit` lines only.
    #[test]
    fn omni_csv_without_its_header() {
        let text = fixture("omni-o-P0.txt");
        let (format, runs) = parse_file(text.as_bytes(), None, &test_meta()).unwrap();
        assert_eq!(format, Format::Netperf);
        let got: Vec<f64> = runs[0].series[0].samples.iter().map(|(_, v)| *v).collect();
        assert_eq!(got, [17022.96, 16950.12, 17101.40]);
        let (_, runs) = parse_file(text.as_bytes(), Some(Format::Netperf), &test_meta()).unwrap();
        assert_eq!(runs[0].series[0].samples.len(), 3);
    }

    #[test]
    fn tail_n1_sweep_lines() {
        // Seed 004: `netperf -i -2,10 -I 95,20 -- -m $s -M $s | tail -n1` for each size.
        let text = "  87380  16384      1    10.09      15.51\n  87380  16384      2    10.01      31.39\n  87380  16384      4    10.00      55.78\n";
        let (format, runs) = parse_file(text.as_bytes(), None, &test_meta()).unwrap();
        assert_eq!(format, Format::Netperf);
        let got: Vec<String> = runs[0]
            .series
            .iter()
            .map(|s| format!("{} {:?}", s.param, s.samples))
            .collect();
        assert_eq!(
            got,
            vec!["1 [(0, 15.51)]", "2 [(0, 31.39)]", "4 [(0, 55.78)]"]
        );
    }

    #[test]
    fn mbits_and_kbytes_compare_after_normalisation() {
        // 2077997.74 KBytes/s is 17022.96 10^6bits/s (netperf's K is 1024 bytes).
        let (_, runs) = parse_file(
            fixture("tcp_stream-cpu-fK.txt").as_bytes(),
            None,
            &test_meta(),
        )
        .unwrap();
        let v = runs[0].series[0].samples[0].1;
        assert!((v - 2077997.74 * 8.0 * 1024.0 / 1e6).abs() < 1e-6);
        assert!(runs[0]
            .facts
            .contains(&("throughput_unit".into(), "KBytes/s".into())));
    }

    #[test]
    fn broken_outputs_name_the_line() {
        let header_only = fixture("tcp_stream-m64.txt")
            .lines()
            .take(5)
            .collect::<Vec<_>>()
            .join("\n");
        let e = parse_file(header_only.as_bytes(), None, &test_meta()).unwrap_err();
        assert_eq!(e.to_string(), "line 5: netperf header with no data row");
        let bad = fixture("tcp_stream-m64.txt").replace("522.04", "52x.04");
        let e = parse_file(bad.as_bytes(), None, &test_meta()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 7: netperf throughput '52x.04' is not a number"
        );
        let _ = render(&[]);
    }

    #[test]
    fn maerts_is_a_stream_test() {
        let text = fixture("tcp_stream-m1024.txt").replace("TCP STREAM TEST", "TCP MAERTS TEST");
        let (_, runs) = parse_file(text.as_bytes(), None, &test_meta()).unwrap();
        assert!(runs[0]
            .facts
            .contains(&("test".into(), "TCP_MAERTS".into())));
        assert_eq!(runs[0].series[0].samples, vec![(0, 6068.48)]);
    }
}
