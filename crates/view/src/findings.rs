//! What `trace check` and `trace diff` found, as marks on diagrams: each
//! violation at its event with its causal slice, each root divergence at
//! its event in both runs. Events a window does not show are named, so
//! that the user can ask for a window around them.

use crate::diagram::Diagram;
use serde::Serialize;
use trace_capture::Namer;
use trace_causal::{EventId, Model};
use trace_check::{Compiled, Status, Verdict};
use trace_diff::{Diff, ProcName};
use trace_format::text::render_term;
use trace_format::ProcId;

/// An event of one of the page's runs.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Mark {
    /// 0, or 1 for the second run of a diff.
    pub run: u8,
    /// Its column in that run's diagram.
    pub event: u32,
}

/// One finding, as the page lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// `violation`, `root` (a root divergence), `gave_up`.
    pub kind: &'static str,
    pub title: String,
    /// Details, one per line.
    pub lines: Vec<String>,
    /// The events it is about.
    pub at: Vec<Mark>,
    /// Events worth seeing with them (a violation's causal slice and
    /// related events).
    pub slice: Vec<Mark>,
    /// Events it names that the windows do not show, in the EVENT syntax.
    pub outside: Vec<String>,
}

/// Places events in one run's diagram, naming those it does not show.
struct Marker<'a> {
    run: u8,
    diagram: &'a Diagram,
    namer: Namer<'a>,
}

impl Marker<'_> {
    fn mark(&self, e: EventId, into: &mut Vec<Mark>, outside: &mut Vec<String>) {
        match self.diagram.position(e) {
            Some(event) => into.push(Mark {
                run: self.run,
                event,
            }),
            None => outside.push(self.namer.event_name(e.proc, e.index)),
        }
    }
}

/// The violations of a check, on the run's diagram.
pub fn violations(
    spec: &Compiled,
    verdicts: &[Verdict],
    model: &Model,
    diagram: &Diagram,
) -> Vec<Finding> {
    let m = Marker {
        run: 0,
        diagram,
        namer: Namer::new(model.names()),
    };
    let mut out = Vec::new();
    for v in verdicts {
        let Some(prop) = spec.properties.get(v.property) else {
            continue;
        };
        if let Status::GaveUp(why) = &v.status {
            out.push(Finding {
                kind: "gave_up",
                title: format!("{}: gave up", prop.name),
                lines: vec![why.clone()],
                at: Vec::new(),
                slice: Vec::new(),
                outside: Vec::new(),
            });
        }
        for (k, x) in v.violations.iter().enumerate() {
            let mut f = Finding {
                kind: "violation",
                title: format!("{} ({} of {}): {}", prop.name, k + 1, v.total, x.what),
                lines: vec![prop.text.clone()],
                at: Vec::new(),
                slice: Vec::new(),
                outside: Vec::new(),
            };
            if let Some(e) = x.event {
                f.lines
                    .push(format!("at {}", m.namer.event_at(e.proc, e.index)));
                m.mark(e, &mut f.at, &mut f.outside);
            }
            for (name, value) in &x.bindings {
                f.lines.push(format!("{name} = {}", render_term(value)));
            }
            for (what, e) in &x.related {
                f.lines
                    .push(format!("{what}: {}", m.namer.event_name(e.proc, e.index)));
                m.mark(*e, &mut f.slice, &mut f.outside);
            }
            for &e in &x.slice {
                m.mark(e, &mut f.slice, &mut f.outside);
            }
            if x.slice_omitted > 0 {
                f.lines.push(format!(
                    "{} earlier events of the slice left out",
                    x.slice_omitted
                ));
            }
            out.push(f);
        }
    }
    out
}

/// The process a diff names, in one run.
fn proc_in(model: &Model, name: &ProcName) -> Option<ProcId> {
    match name {
        ProcName::Symbolic(n) => model.names().lookup(n).ok(),
        ProcName::Pid(p) => model.names().lookup_pid(*p).ok(),
    }
}

/// The root divergences of a diff, on both runs' diagrams.
pub fn roots(diff: &Diff, models: [&Model; 2], diagrams: [&Diagram; 2]) -> Vec<Finding> {
    let markers = [0u8, 1].map(|x| Marker {
        run: x,
        diagram: diagrams[x as usize],
        namer: Namer::new(models[x as usize].names()),
    });
    let mut out = Vec::new();
    for (k, root) in diff.roots.iter().enumerate() {
        let mut f = Finding {
            kind: "root",
            title: format!(
                "root divergence {} of {}: {}",
                k + 1,
                diff.roots.len(),
                root.name
            ),
            lines: Vec::new(),
            at: Vec::new(),
            slice: Vec::new(),
            outside: Vec::new(),
        };
        for (x, m) in markers.iter().enumerate() {
            let run = trace_diff::RUNS[x];
            let p = proc_in(models[x], &root.name);
            match (p, root.at[x]) {
                (Some(p), Some(i)) => {
                    let cell = root
                        .context
                        .iter()
                        .find_map(|r| r.cells[x].as_ref().filter(|c| c.index == i));
                    let text = cell.map_or(String::new(), |c| format!(": {}", c.text));
                    f.lines
                        .push(format!("{run}: {}{text}", m.namer.event_name(p, i)));
                    m.mark(EventId::new(p, i), &mut f.at, &mut f.outside);
                }
                _ => f.lines.push(format!("{run}: no event there")),
            }
            if root.root_in[x] {
                f.lines
                    .push(format!("{run}: no other difference in its causal past"));
            }
        }
        out.push(f);
    }
    out
}
