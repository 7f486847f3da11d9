//! The export checks of `cargo xtask view`: the Perfetto trace against the
//! trace-event format, the ShiViz log against the regular expression
//! `trace export` prints (run by the browser's RegExp, as ShiViz runs it)
//! and its vector clocks against the causal pasts `trace replay --until`
//! counts, the CSV's rows against the log's events.

use super::cdp::Browser;
use super::pages::{s, Ctx};
use super::Failures;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// Events whose clocks are compared with `trace replay --until` per log.
const CLOCKS: usize = 25;

pub fn check(
    ctx: &Ctx<'_>,
    b: &mut Browser,
    log: &Path,
    what: &str,
    fails: &mut Failures,
) -> Result<(), String> {
    let before = fails.count();
    let flows = perfetto(ctx, log, what, fails)?;
    let arrows = b.eval("traceView.arrows(0).total")?.as_u64().unwrap_or(0);
    fails.check(flows == arrows, || {
        format!("{what}: {flows} Perfetto flows, {arrows} arrows on the page")
    });
    let lines = shiviz(ctx, b, log, what, fails)?;
    let rows = csv(ctx, log, what, fails)?;
    println!(
        "{} {what} exports: {flows} Perfetto flows, {lines} ShiViz lines, {rows} CSV rows",
        fails.tag(before)
    );
    Ok(())
}

/// Validates the trace-event JSON; returns its number of flows.
fn perfetto(ctx: &Ctx<'_>, log: &Path, what: &str, fails: &mut Failures) -> Result<u64, String> {
    let out = log.with_extension("json");
    ctx.trace(&["export", "--perfetto", s(&out), s(log)])?;
    let text = std::fs::read_to_string(&out).map_err(|e| e.to_string())?;
    let v: Value =
        serde_json::from_str(&text).map_err(|e| format!("{what}: Perfetto JSON: {e}"))?;
    let events = v["traceEvents"].as_array().ok_or("no traceEvents")?;
    let mut slices: HashMap<(u64, u64), Vec<(f64, f64)>> = HashMap::new();
    let mut flows: BTreeMap<u64, Vec<&Value>> = BTreeMap::new();
    for e in events {
        let num = |k: &str| e[k].as_f64();
        let ok = match e["ph"].as_str() {
            Some("M") => e["name"].is_string() && e["args"].is_object() && num("pid").is_some(),
            Some("X") => {
                let ok = e["name"].is_string() && num("ts").is_some() && num("dur").is_some();
                if let (Some(p), Some(t), Some(ts), Some(d)) =
                    (e["pid"].as_u64(), e["tid"].as_u64(), num("ts"), num("dur"))
                {
                    slices.entry((p, t)).or_default().push((ts, ts + d));
                }
                ok
            }
            Some("s" | "f") => {
                if let Some(id) = e["id"].as_u64() {
                    flows.entry(id).or_default().push(e);
                }
                e["id"].is_u64() && num("ts").is_some() && e["tid"].is_u64()
            }
            _ => false,
        };
        fails.check(ok, || format!("{what}: not a trace event: {e}"));
    }
    let inside = |e: &Value| {
        let key = (
            e["pid"].as_u64().unwrap_or(0),
            e["tid"].as_u64().unwrap_or(0),
        );
        let ts = e["ts"].as_f64().unwrap_or(-1.0);
        slices
            .get(&key)
            .is_some_and(|v| v.iter().any(|&(a, z)| a <= ts && ts <= z))
    };
    for (id, ends) in &flows {
        let start = ends.iter().filter(|e| e["ph"] == "s").count();
        let finish: Vec<_> = ends.iter().filter(|e| e["ph"] == "f").collect();
        let ok = start == 1
            && finish.len() == 1
            && finish[0]["bp"] == "e"
            && ends.iter().all(|e| inside(e))
            && finish[0]["ts"].as_f64()
                >= ends
                    .iter()
                    .find(|e| e["ph"] == "s")
                    .and_then(|e| e["ts"].as_f64());
        fails.check(ok, || {
            format!("{what}: flow {id} is not one start and one later end inside slices: {ends:?}")
        });
    }
    Ok(flows.len() as u64)
}

/// Parses the ShiViz log with the printed regex in the browser and compares
/// its clocks with the causal pasts `trace replay --until` counts.
fn shiviz(
    ctx: &Ctx<'_>,
    b: &mut Browser,
    log: &Path,
    what: &str,
    fails: &mut Failures,
) -> Result<usize, String> {
    let out = log.with_extension("shiviz");
    let said = ctx.trace(&["export", "--shiviz", s(&out), s(log)])?;
    let regex = said
        .lines()
        .find_map(|l| l.trim().strip_prefix("ShiViz parser regex: "))
        .ok_or_else(|| format!("{what}: export --shiviz printed no regex: {said}"))?;
    let text = std::fs::read_to_string(&out).map_err(|e| e.to_string())?;
    let parsed = b.eval(&format!(
        "(() => {{ const re = new RegExp({}, 'g'); const out = [];
           for (const m of {}.matchAll(re)) out.push([m.groups.host, m.groups.event, JSON.parse(m.groups.clock)]);
           return out; }})()",
        json!(regex),
        json!(text)
    ))?;
    let parsed = parsed.as_array().cloned().unwrap_or_default();
    let lines = text.lines().count();
    fails.check(parsed.len() == lines, || {
        format!(
            "{what}: the regex matched {} of {lines} ShiViz lines",
            parsed.len()
        )
    });
    let step = parsed.len().div_ceil(CLOCKS).max(1);
    for m in parsed.iter().step_by(step) {
        let host = m[0].as_str().unwrap_or("?");
        let own = m[2][host].as_u64().unwrap_or(0);
        let event = format!("{host}#{}", own.saturating_sub(1));
        let past = ctx.trace(&["replay", s(log), "--until", &event, "--json"])?;
        let counts: BTreeMap<String, u64> = past
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|v| v["type"] == "causal_past")
            .and_then(|v| v["processes"].as_array().cloned())
            .unwrap_or_default()
            .iter()
            .map(|p| {
                (
                    p["name"].as_str().unwrap_or("").to_string(),
                    p["events"].as_u64().unwrap_or(0),
                )
            })
            .collect();
        let clock: BTreeMap<String, u64> = m[2]
            .as_object()
            .map(|o| {
                o.iter()
                    .map(|(k, v)| (k.clone(), v.as_u64().unwrap_or(0)))
                    .collect()
            })
            .unwrap_or_default();
        fails.check(clock == counts, || {
            format!("{what}: ShiViz clock of {event} is {clock:?}, its causal past {counts:?}")
        });
    }
    Ok(lines)
}

/// One CSV row per event of the log, each with the header's fields.
fn csv(ctx: &Ctx<'_>, log: &Path, what: &str, fails: &mut Failures) -> Result<usize, String> {
    let out = log.with_extension("csv");
    ctx.trace(&["export", "--csv", s(&out), s(log)])?;
    let text = std::fs::read_to_string(&out).map_err(|e| e.to_string())?;
    let events = ctx.trace(&["dump", s(log)])?.lines().count();
    let records = split_csv(&text);
    let width = records.first().map_or(0, Vec::len);
    fails.check(width == 10, || {
        format!("{what}: CSV header {:?}", records.first())
    });
    fails.check(records.iter().all(|r| r.len() == width), || {
        format!("{what}: CSV rows of different widths")
    });
    fails.check(records.len() == events + 1, || {
        format!(
            "{what}: {} CSV rows for {events} events",
            records.len().saturating_sub(1)
        )
    });
    Ok(records.len().saturating_sub(1))
}

/// RFC 4180 records.
fn split_csv(text: &str) -> Vec<Vec<String>> {
    let mut records = Vec::new();
    let (mut record, mut field, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => record.push(std::mem::take(&mut field)),
            ('\n', false) => {
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            (c, _) => field.push(c),
        }
    }
    records
}
