//! `show P`: a live process as the engine's inspection API gives it — the
//! place it stands at with its source line, its variables as `~p` prints
//! them, its stack, mailbox, links and monitors.

use crate::words::{plural, pretty, short_path};
use std::fmt::Write;
use trace_format::text::pid_text;
use trace_runtime::inspect::{Activity, FrameState, ProcessState};

/// Writes the live part of `show P` (its history follows).
pub fn process_state(out: &mut String, s: &ProcessState) {
    let Some(f) = s.user_frame() else { return };
    let doing = match s.activity {
        Activity::Receiving => "waiting in receive",
        Activity::Stopped => "before its next event",
        Activity::Ending => "ending",
    };
    let _ = writeln!(
        out,
        "  at {}:{}/{} ({}:{}), {doing}",
        f.place.module.name(),
        f.place.function.name(),
        f.place.arity,
        short_path(&f.place.file),
        f.place.line
    );
    if let Some(text) = source_line(&f.place.file, f.place.line) {
        let _ = writeln!(out, "    {:>4} | {text}", f.place.line);
    }
    bindings(out, f);
    stack(out, s);
    let n = s.mailbox.len() as u64;
    let _ = writeln!(out, "  mailbox ({n} message{}):", plural(n));
    for m in &s.mailbox {
        let _ = writeln!(out, "    {}", indent(&pretty(m)));
    }
    relations(out, s);
}

fn bindings(out: &mut String, f: &FrameState) {
    if f.bindings.is_empty() {
        let _ = writeln!(out, "  bindings: none");
        return;
    }
    let _ = writeln!(out, "  bindings:");
    for (name, v) in &f.bindings {
        let _ = writeln!(out, "    {name} = {}", indent(&pretty(v)));
    }
}

/// The frames below the one shown (callers), when there are any.
fn stack(out: &mut String, s: &ProcessState) {
    if s.frames.len() < 2 {
        return;
    }
    let _ = writeln!(out, "  stack (innermost first):");
    for f in &s.frames {
        let p = &f.place;
        let lib = if p.library { " (library)" } else { "" };
        let _ = writeln!(
            out,
            "    {}:{}/{} at {}:{}{lib}",
            p.module.name(),
            p.function.name(),
            p.arity,
            short_path(&p.file),
            p.line
        );
    }
}

fn relations(out: &mut String, s: &ProcessState) {
    let pids = |v: &[trace_term::Pid]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.iter()
                .map(|p| pid_text(p.number()))
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    let monitors: Vec<trace_term::Pid> = s.monitors.iter().map(|(_, p)| *p).collect();
    let _ = writeln!(out, "  links: {}", pids(&s.links));
    let _ = writeln!(out, "  monitors: {}", pids(&monitors));
    let _ = writeln!(out, "  monitored by: {}", pids(&s.monitored_by));
    if s.trap_exit {
        let _ = writeln!(out, "  traps exits");
    }
    if let Some(n) = s.registered {
        let _ = writeln!(out, "  registered as {}", n.name());
    }
}

/// Continuation lines of a multi-line term, indented under the first.
fn indent(text: &str) -> String {
    text.replace('\n', "\n      ")
}

/// Line `line` of `file` (from 1), if it can be read.
pub fn source_line(file: &str, line: u32) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    let l = text.lines().nth((line as usize).checked_sub(1)?)?;
    Some(l.trim_end().to_string())
}
