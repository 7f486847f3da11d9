//! `trace replay prog.erl ... LOG`: re-execute the recorded run with the
//! program, every logged choice forced (trace-replayer), and say how it went.

use super::Args;
use crate::exit;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use trace_capture::Names;
use trace_causal_replay::{Config, Outcome, UntilReport};
use trace_format::text::pid_text;
use trace_format::LogReader;
use trace_runtime::{RunOptions, Verdict};

pub fn run(args: &Args, sources: &[PathBuf], log: &Path) -> u8 {
    let reader = match LogReader::open(log) {
        Ok(r) => Arc::new(r),
        Err(e) => {
            eprintln!("trace replay: {}: {e}", log.display());
            return exit::TROUBLE;
        }
    };
    crate::report::print_warnings("replay", log, reader.warnings());
    let entry = reader.header().entry.clone();
    let loaded = match crate::cmd::run::load_program(sources, &args.include, Some(&entry)) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let interrupt = crate::cmd::interrupt_flag();
    let mut run = RunOptions {
        interrupt: Some(interrupt),
        ..RunOptions::default()
    };
    if let Some(n) = args.schedulers {
        run.schedulers = n;
    }
    let cfg = Config {
        run,
        force: args.force,
        until: args.until.clone(),
    };
    let result = match trace_causal_replay::replay(
        &loaded,
        reader.clone(),
        &cfg,
        Box::new(std::io::stdout()),
    ) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("trace replay: {}: {e}", log.display());
            return exit::TROUBLE;
        }
    };
    report(&reader, &result);
    let status = match (result.verdict(), reader.outcome()) {
        // A halted run (erlang:halt/1, or --halt) replayed as far as its log
        // goes ends with the status it was recorded with.
        (Verdict::Ok, Some((o, _))) if o.end == trace_format::RunEnd::Halted => {
            o.exit_status.map_or(exit::OK, |s| (s & 0xff) as u8)
        }
        (v, _) => exit::of_verdict(v),
    };
    crate::report::unless_damaged("replay", log, reader.warnings(), status)
}

/// `P.2 <0.83.0>` for the process that had raw pid `pid` in the log.
fn label(names: &Names, pid: u64) -> String {
    match names.lookup_pid(pid) {
        Ok(id) => names.label(id),
        Err(_) => pid_text(pid),
    }
}

fn report(reader: &LogReader, o: &Outcome) {
    let r = &o.replay;
    let names = Names::of_table(reader.processes());
    if let Some(d) = &r.outcome.divergence {
        let at = match d.location.as_str() {
            "" => String::new(),
            l => format!(" ({l})"),
        };
        eprintln!(
            "trace replay: the run departed from the log at {}, event #{}{at}:",
            label(&names, d.pid.number()),
            d.event_index,
        );
        eprintln!("  the log has: {}", d.expected);
        match d.location.as_str() {
            "" => eprintln!(
                "  the run did: {} (in a receive that did not wait: the engine cannot say which)",
                d.happened
            ),
            l => eprintln!("  the run did: {} at {l}", d.happened),
        }
        // Where the log's event was due: after the last one the run agreed
        // with (the edit that made them part lies between there and here).
        match (d.event_index, d.agreed.as_str()) {
            (0, _) => eprintln!("  the log expected it as the process's first event"),
            (n, "") => eprintln!("  the log expected it after event #{}", n - 1),
            (n, l) => eprintln!(
                "  the log expected it after event #{}; the run last agreed with the log at {l}",
                n - 1
            ),
        }
        return;
    }
    if !r.stuck.is_empty() {
        let left: usize = r.stuck.iter().map(|s| s.total - s.replayed).sum();
        eprintln!(
            "trace replay: no process can go on, but the log has {left} more event{}; these cannot happen:",
            if left == 1 { "" } else { "s" }
        );
        for s in &r.stuck {
            eprintln!(
                "  {} after {} of its {} events: {}",
                label(&names, s.pid),
                s.replayed,
                s.total,
                s.next
            );
        }
        for (_, pid) in &r.never_started {
            eprintln!("  {} never started", label(&names, *pid));
        }
        return;
    }
    if r.outcome.interrupted {
        eprintln!("trace replay: interrupted");
        return;
    }
    if let Some(u) = &o.until {
        until_report(u);
        return;
    }
    if o.cut_short {
        let halted =
            matches!(reader.outcome(), Some((x, _)) if x.end == trace_format::RunEnd::Halted);
        eprintln!(
            "trace replay: {}; every process was replayed to where its log ends{}",
            if halted {
                "the recording halted (erlang:halt, or its entry ended under --halt)"
            } else {
                "the recording was cut short"
            },
            match o.beyond_cut {
                0 => String::new(),
                n => format!(
                    " ({n} event{} left out: a cause of theirs was lost with the end of the run)",
                    if n == 1 { "" } else { "s" }
                ),
            }
        );
    }
}

/// Widest participant label the `--until` report aligns the others to.
const MAX_LABEL_WIDTH: usize = 60;

fn until_report(u: &UntilReport) {
    let procs = u.participants.len();
    eprintln!(
        "trace replay: replayed the causal past of {}: {} event{} of {procs} process{}",
        u.spec,
        u.events,
        if u.events == 1 { "" } else { "s" },
        if procs == 1 { "" } else { "es" }
    );
    // Labels are aligned up to a width; longer ones (a deep spawn chain's
    // names) go unpadded.
    let width = u
        .participants
        .iter()
        .map(|p| p.label.chars().count())
        .filter(|&n| n <= MAX_LABEL_WIDTH)
        .max()
        .unwrap_or(0);
    for p in &u.participants {
        let pad = " ".repeat(width.saturating_sub(p.label.chars().count()));
        eprintln!(
            "  {}{pad}  {} event{}",
            p.label,
            p.events,
            if p.events == 1 { "" } else { "s" }
        );
    }
    match &u.state {
        Some(s) => {
            // The process went on past the event to its next one: say both
            // places when they differ.
            let at = match &s.event_at {
                Some(e) if *e != s.location => {
                    format!(
                        "did {} at {e}, then stopped in {} at {}",
                        u.spec, s.function, s.location
                    )
                }
                _ => format!("stopped in {} at {}", s.function, s.location),
            };
            eprintln!(
                "{} {at}, {} message{} in its mailbox{}",
                u.process,
                s.mailbox_len,
                if s.mailbox_len == 1 { "" } else { "s" },
                if s.mailbox_len > 0 { ":" } else { "" }
            );
            for m in &s.mailbox {
                eprintln!("  {}", trace_term::print::write_term(m));
            }
            if s.mailbox_len > s.mailbox.len() {
                eprintln!("  ... and {} more", s.mailbox_len - s.mailbox.len());
            }
        }
        None => eprintln!("{} has ended", u.process),
    }
}
