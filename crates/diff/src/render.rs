//! A [`Diff`] as text (colour optional) or as one JSON document.

use crate::report::{Diff, ExitDiff, ProcessDiff, Root, Row, RUNS};
use crate::show::Shown;
use crate::Kind;
use serde_json::{json, Value};
use std::fmt::Write;
use trace_format::text::pid_text;

/// How text is written.
#[derive(Copy, Clone, Debug)]
pub struct Style {
    /// ANSI colours: run a in red, run b in green, as diff tools do.
    pub color: bool,
    /// Differences listed in text (the rest are counted).
    pub limit: usize,
    /// Width a context column is cut to.
    pub width: usize,
}

impl Default for Style {
    fn default() -> Self {
        Style {
            color: false,
            limit: 100,
            width: 60,
        }
    }
}

impl Style {
    fn paint(&self, code: &str, s: &str) -> String {
        if self.color && !s.is_empty() {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }

    fn side(&self, x: usize, s: &str) -> String {
        self.paint(if x == 0 { "31" } else { "32" }, s)
    }

    fn bold(&self, s: &str) -> String {
        self.paint("1", s)
    }
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// What was compared, in words.
pub fn level_text(d: &Diff) -> String {
    let l = &d.level;
    let mut s = if !l.observe.is_empty() {
        let names: Vec<String> = l.observe.iter().map(|n| n.to_string()).collect();
        format!(
            "what {} consumed and sent, in order (--observe)",
            names.join(", ")
        )
    } else {
        "every event of every process".to_string()
    };
    if l.ignore_payloads {
        s.push_str(", without payloads");
    } else if !l.abstractions.is_empty() {
        let a: Vec<String> = l.abstractions.iter().map(|a| format!("'{a}'")).collect();
        let _ = write!(s, ", payloads abstracted by {}", a.join(", "));
    } else {
        s.push_str(", with payloads");
    }
    s
}

/// Where a root is: `P.2#3`, or `P.2 (a #3, b #4)` when the indices differ.
pub fn root_place(r: &Root) -> String {
    match r.at {
        [Some(a), Some(b)] if a == b => format!("{}#{a}", r.name),
        [Some(a), None] => format!("{}#{a} (in a)", r.name),
        [None, Some(b)] => format!("{}#{b} (in b)", r.name),
        [Some(a), Some(b)] => format!("{} (a #{a}, b #{b})", r.name),
        [None, None] => r.name.to_string(),
    }
}

/// The verdict line.
pub fn verdict(d: &Diff) -> String {
    let observers = if d.level.observe.is_empty() {
        String::new()
    } else {
        " for the observers".to_string()
    };
    if d.equivalent() {
        let events = if d.events[0] == d.events[1] {
            plural(d.events[0], "event", "events")
        } else {
            format!("{} and {} events", d.events[0], d.events[1])
        };
        return format!(
            "equivalent{observers}: {} and {events} compared",
            plural(d.processes, "process", "processes")
        );
    }
    let mut parts = Vec::new();
    if !d.differences.is_empty() {
        parts.push(format!(
            "{} of {} {}",
            d.differences.len(),
            plural(d.processes, "process", "processes"),
            if d.differences.len() == 1 {
                "differs"
            } else {
                "differ"
            }
        ));
    }
    for (x, run) in RUNS.iter().enumerate() {
        let n = d.only_in.iter().filter(|o| o.run == x).count() as u64;
        if n > 0 {
            parts.push(format!(
                "{} only in {run}",
                plural(n, "process", "processes"),
            ));
        }
    }
    let roots: Vec<String> = d.roots.iter().take(5).map(root_place).collect();
    let more = if d.roots.len() > 5 { ", ..." } else { "" };
    format!(
        "different{observers}: {}; {}: {}{more}",
        parts.join(", "),
        plural(d.roots.len() as u64, "root divergence", "root divergences"),
        roots.join(", ")
    )
}

fn kind_text(k: Kind) -> &'static str {
    match k {
        Kind::Event => "different event",
        Kind::Payload => "different payload",
        Kind::ExitReason => "different exit reason",
        Kind::Missing => "one log ends",
    }
}

fn cell(s: &Option<Shown>) -> String {
    match s {
        Some(e) => format!("#{} {}", e.index, e.text),
        None => "(no event)".into(),
    }
}

fn cut(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(width.saturating_sub(3)).collect();
        t.push_str("...");
        t
    }
}

fn process_text(st: &Style, p: &ProcessDiff, out: &mut Vec<String>) {
    let at = match (&p.first[0], &p.first[1]) {
        (Some(a), Some(b)) if a.index == b.index => format!("#{}", a.index),
        _ => format!("position {}", p.position),
    };
    out.push(format!(
        "{} (a {}, b {}): {} at {at}; {} of {} positions differ",
        st.bold(&p.name.to_string()),
        pid_text(p.pids[0]),
        pid_text(p.pids[1]),
        kind_text(p.kind),
        p.differing,
        p.events[0].max(p.events[1]),
    ));
    for (x, run) in RUNS.iter().enumerate() {
        let line = match &p.first[x] {
            Some(_) => cell(&p.first[x]),
            None => format!("(its log ends after {} events)", p.events[x]),
        };
        out.push(format!("  {} {}", st.side(x, run), st.side(x, &line)));
    }
    if let Some(ExitDiff { a, b }) = &p.exit {
        out.push("  exits differ:".into());
        for (x, e) in [(0, a), (1, b)] {
            let line = match e {
                Some(e) => cell(&Some(e.clone())),
                None => "never exited".into(),
            };
            out.push(format!("    {} {}", st.side(x, RUNS[x]), st.side(x, &line)));
        }
    }
}

fn root_text(st: &Style, r: &Root, out: &mut Vec<String>) {
    let where_ = match r.root_in {
        [true, true] => String::new(),
        [true, false] => " (its past is clean in a only)".into(),
        _ => " (its past is clean in b only)".into(),
    };
    out.push(format!(
        "root divergence {}{where_}:",
        st.bold(&root_place(r))
    ));
    let cells: Vec<[String; 2]> = r
        .context
        .iter()
        .map(|row| [0, 1].map(|x| cut(&cell(&row.cells[x]), st.width)))
        .collect();
    let w = cells
        .iter()
        .map(|c| c[0].chars().count())
        .max()
        .unwrap_or(0)
        .max(1);
    // Padded by hand: a format width must fit in 16 bits, and a cell holding
    // a name from a long spawn chain does not.
    let head_pad = " ".repeat(w.saturating_sub(RUNS[0].chars().count()));
    out.push(format!("    {}{head_pad}   {}", RUNS[0], RUNS[1]));
    for (row, c) in r.context.iter().zip(&cells) {
        let pad = " ".repeat(w - c[0].chars().count());
        let (mark, left, right) = if row.differs {
            ("! ", st.side(0, &c[0]), st.side(1, &c[1]))
        } else {
            ("  ", c[0].clone(), c[1].clone())
        };
        out.push(format!("  {mark}{left}{pad} | {right}"));
    }
}

/// The report as lines of text, the verdict last; `files` name the two logs.
pub fn text(d: &Diff, st: &Style, files: [&str; 2]) -> Vec<String> {
    let mut out = Vec::new();
    for x in 0..2 {
        let r = &d.runs[x];
        out.push(format!(
            "{}: {} ({}, {}, {}{})",
            st.side(x, RUNS[x]),
            files[x],
            r.entry,
            plural(r.processes, "process", "processes"),
            plural(r.events, "event", "events"),
            if r.complete { "" } else { " (incomplete)" }
        ));
    }
    out.push(format!("compared: {}", level_text(d)));
    out.push(String::new());
    let shown = d.differences.len().min(st.limit);
    for p in &d.differences[..shown] {
        process_text(st, p, &mut out);
    }
    if d.differences.len() > shown {
        out.push(format!(
            "... and {} more processes differ (--all lists them, --json too)",
            d.differences.len() - shown
        ));
    }
    let limit = st.limit;
    for (x, run) in RUNS.iter().enumerate() {
        let only: Vec<String> = d
            .only_in
            .iter()
            .filter(|o| o.run == x)
            .map(|o| {
                format!(
                    "{} {} ({})",
                    o.name,
                    pid_text(o.pid),
                    plural(o.events, "event", "events")
                )
            })
            .collect();
        if !only.is_empty() {
            let more = if only.len() > limit {
                format!(", ... and {} more", only.len() - limit)
            } else {
                String::new()
            };
            out.push(format!(
                "only in {}: {}{more}",
                st.side(x, run),
                only[..only.len().min(limit)].join(", ")
            ));
        }
    }
    if !d.differences.is_empty() || !d.only_in.is_empty() {
        out.push(String::new());
    }
    for r in d.roots.iter().take(st.limit) {
        root_text(st, r, &mut out);
        out.push(String::new());
    }
    for n in &d.notes {
        out.push(format!("note: {n}"));
    }
    let v = verdict(d);
    out.push(if d.equivalent() {
        st.paint("1;32", &v)
    } else {
        st.paint("1;31", &v)
    });
    out
}

fn shown_json(s: &Option<Shown>) -> Value {
    match s {
        Some(e) => json!({"index": e.index, "kind": e.kind, "event": e.text}),
        None => Value::Null,
    }
}

fn row_json(r: &Row) -> Value {
    json!({"a": shown_json(&r.cells[0]), "b": shown_json(&r.cells[1]), "differs": r.differs})
}

/// The report as one JSON document; `files` name the two logs.
/// The report as JSON, one object per line, each with a `"type"`: `run`
/// (a and b), `only_in`, `difference`, `root`, and last `verdict`.
pub fn json(d: &Diff, files: [&str; 2]) -> Vec<Value> {
    let mut lines: Vec<Value> = (0..2)
        .map(|x| {
            let r = &d.runs[x];
            json!({"type": "run", "run": RUNS[x], "file": files[x], "entry": r.entry,
                   "processes": r.processes, "events": r.events, "complete": r.complete})
        })
        .collect();
    let payloads = if d.level.ignore_payloads {
        "ignored"
    } else if !d.level.abstractions.is_empty() {
        "abstracted"
    } else {
        "full"
    };
    lines.extend(d.only_in.iter().map(|o| {
        json!({"type": "only_in", "run": RUNS[o.run], "name": o.name.to_string(),
               "pid": pid_text(o.pid), "events": o.events})
    }));
    lines.extend(d.differences.iter().map(|p| {
        json!({
            "type": "difference",
            "name": p.name.to_string(),
            "pids": {"a": pid_text(p.pids[0]), "b": pid_text(p.pids[1])},
            "events": {"a": p.events[0], "b": p.events[1]},
            "kind": p.kind.name(),
            "position": p.position,
            "a": shown_json(&p.first[0]),
            "b": shown_json(&p.first[1]),
            "differing": p.differing,
            "exit": p.exit.as_ref().map(|e| json!({"a": shown_json(&e.a), "b": shown_json(&e.b)})),
        })
    }));
    lines.extend(d.roots.iter().map(|r| {
        json!({
            "type": "root",
            "name": r.name.to_string(),
            "event": root_place(r),
            "at": {"a": r.at[0], "b": r.at[1]},
            "root_in": (0..2).filter(|&x| r.root_in[x]).map(|x| RUNS[x]).collect::<Vec<_>>(),
            "context": r.context.iter().map(row_json).collect::<Vec<_>>(),
        })
    }));
    lines.push(json!({
        "type": "verdict",
        "verdict": if d.equivalent() { "equivalent" } else { "different" },
        "level": {
            "payloads": payloads,
            "abstract": d.level.abstractions,
            "observe": d.level.observe.iter().map(|n| n.to_string()).collect::<Vec<_>>(),
        },
        "compared": {"processes": d.processes, "events": {"a": d.events[0], "b": d.events[1]}},
        "notes": d.notes,
        "text": verdict(d),
    }));
    lines
}
