//! Statistics over stored samples, computed with polars.
//!
//! polars may call `tokio::task::block_in_place`; callers run these functions inside
//! `spawn_blocking`.

use std::collections::HashMap;

use app::types::{compare_params, CompareQuery, CompareRow, CompareTable, MeanCell};
use polars::prelude::*;

use crate::store::CompareSample;

/// The mean and count of the samples of each kernel at each (metric, param), one row per
/// (metric, param) in natural order, one cell per kernel in the query's order.
pub fn compare_means(
    query: CompareQuery,
    samples: Vec<CompareSample>,
) -> anyhow::Result<CompareTable> {
    if samples.is_empty() {
        return Ok(CompareTable {
            query,
            rows: Vec::new(),
        });
    }
    let mut meta: HashMap<(String, String), (Option<String>, app::label::Direction)> =
        HashMap::new();
    let n = samples.len();
    let (mut kernel, mut metric, mut param, mut value) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    for s in samples {
        meta.entry((s.metric.clone(), s.param.clone()))
            .or_insert((s.unit, s.direction));
        kernel.push(s.kernel);
        metric.push(s.metric);
        param.push(s.param);
        value.push(s.value);
    }
    let df = df!("kernel" => kernel, "metric" => metric, "param" => param, "value" => value)?;
    let out = df
        .lazy()
        .group_by([col("metric"), col("param"), col("kernel")])
        .agg([
            col("value").mean().alias("mean"),
            col("value").count().cast(DataType::Int64).alias("n"),
        ])
        .collect()
        .map_err(|e| anyhow::anyhow!("polars group_by: {e}"))?;
    let metrics = out.column("metric")?.str()?;
    let params = out.column("param")?.str()?;
    let kernels = out.column("kernel")?.str()?;
    let means = out.column("mean")?.f64()?;
    let counts = out.column("n")?.i64()?;

    let position: HashMap<&str, usize> = query
        .kernels
        .iter()
        .enumerate()
        .map(|(i, k)| (k.as_str(), i))
        .collect();
    let mut rows: HashMap<(String, String), Vec<Option<MeanCell>>> = HashMap::new();
    for i in 0..out.height() {
        let (Some(m), Some(p), Some(k)) = (metrics.get(i), params.get(i), kernels.get(i)) else {
            continue;
        };
        let Some(&col_idx) = position.get(k) else {
            continue;
        };
        let cells = rows
            .entry((m.to_owned(), p.to_owned()))
            .or_insert_with(|| vec![None; query.kernels.len()]);
        cells[col_idx] = Some(MeanCell {
            mean: means.get(i).unwrap_or(f64::NAN),
            n: counts.get(i).unwrap_or(0),
        });
    }
    let mut rows: Vec<CompareRow> = rows
        .into_iter()
        .map(|((metric, param), cells)| {
            let (unit, direction) = meta
                .remove(&(metric.clone(), param.clone()))
                .unwrap_or_default();
            CompareRow {
                metric,
                param,
                unit,
                direction,
                cells,
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        a.metric
            .cmp(&b.metric)
            .then_with(|| compare_params(&a.param, &b.param))
    });
    Ok(CompareTable { query, rows })
}

#[cfg(test)]
mod tests {
    use super::*;
    use app::label::Direction;

    fn s(kernel: &str, param: &str, value: f64) -> CompareSample {
        CompareSample {
            kernel: kernel.into(),
            metric: "tput".into(),
            param: param.into(),
            unit: None,
            direction: Direction::Higher,
            value,
        }
    }

    #[test]
    fn means_per_param_and_kernel_in_query_order() {
        let q = CompareQuery {
            benchmark: "b".into(),
            machine: "m".into(),
            kernels: vec!["5.5.0".into(), "5.4.0".into()],
            metric: None,
        };
        let t = compare_means(
            q,
            vec![
                s("5.4.0", "1024", 10.0),
                s("5.4.0", "1024", 20.0),
                s("5.5.0", "64", 3.0),
                s("5.4.0", "64", 1.0),
            ],
        )
        .unwrap();
        let rendered: Vec<String> = t
            .rows
            .iter()
            .map(|r| {
                format!(
                    "{} {:?}",
                    r.param,
                    r.cells
                        .iter()
                        .map(|c| c.as_ref().map(|c| (c.mean, c.n)))
                        .collect::<Vec<_>>()
                )
            })
            .collect();
        assert_eq!(
            rendered,
            vec![
                "64 [Some((3.0, 1)), Some((1.0, 1))]",
                "1024 [None, Some((15.0, 2))]"
            ]
        );
    }
}
