//! What the same events take in the formats users have today, computed in
//! the benchmark's run: CauDEr's text logs (written for real by `trace export
//! --cauder`'s code into byte counters) and OTP dbg trace-port files (each
//! event encoded for real as the record a trace port writes, `<<0, Len:32,
//! term_to_binary(TraceMessage)>>`).
//!
//! Both formats leave some events out (CauDEr keeps spawns, sends and
//! receives; dbg has no record for a taken link or exit signal, a built-in's
//! result, or a dropped signal), which only makes them look smaller. Per-event
//! figures are over all events of the run.

use super::synth::{pid, Step, SynthEvent, SynthSignal};
use rayon::prelude::*;
use std::cell::Cell;
use std::io::{self, Write};
use trace_format::{cauder, LogReader, SignalEffect};
use trace_term::{Pid, Term};

/// A writer that only counts bytes.
struct Count<'a>(&'a Cell<u64>);

impl Write for Count<'_> {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.0.set(self.0.get() + b.len() as u64);
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Bytes of the log exported as a CauDEr (v3) log directory, and how many
/// events that export holds.
pub fn cauder_bytes(log: &LogReader) -> Result<(u64, u64), String> {
    let total = Cell::new(0u64);
    let report = cauder::export_with(log, |_| Ok(Count(&total)))
        .map_err(|(file, e)| format!("CauDEr export, {file}: {e}"))?;
    Ok((total.get(), report.written))
}

/// The payload term of each message, by sender and signal index (`None` for
/// non-message signals), so a receive record can carry its message.
fn message_payloads(steps: &[Step], processes: usize) -> Vec<Vec<Option<u16>>> {
    let mut sent = vec![Vec::new(); processes];
    for s in steps {
        match s.ev {
            SynthEvent::Send { payload, .. } => sent[s.process as usize].push(Some(payload)),
            SynthEvent::Signal { .. } => sent[s.process as usize].push(None),
            _ => {}
        }
    }
    sent
}

/// The terms a trace port would record, built from the synthetic payloads.
struct Terms<'a> {
    messages: &'a [Term],
    reasons: &'a [Term],
    sent: &'a [Vec<Option<u16>>],
}

fn p(id: u32) -> Term {
    Term::Pid(Pid(pid(id)))
}

fn trace(who: u32, tag: &str, rest: Vec<Term>) -> Term {
    let mut v = vec![Term::atom("trace"), p(who), Term::atom(tag)];
    v.extend(rest);
    Term::tuple(v)
}

impl Terms<'_> {
    fn message(&self, sender: u32, index: u32) -> Term {
        match self.sent[sender as usize].get(index as usize) {
            Some(Some(m)) => self.messages[*m as usize % self.messages.len()].clone(),
            _ => Term::Nil,
        }
    }

    fn reason(&self, r: u16) -> Term {
        self.reasons[r as usize % self.reasons.len()].clone()
    }

    /// The trace message BEAM's `procs`, `send` and `'receive'` flags produce
    /// for this step, if any.
    fn record(&self, s: &Step, reason_of: impl Fn(u32, u32) -> u16) -> Option<Term> {
        let me = s.process;
        Some(match s.ev {
            SynthEvent::Spawn { child, .. } => trace(
                me,
                "spawn",
                vec![
                    p(child),
                    Term::tuple(vec![
                        Term::atom("synth"),
                        Term::atom("worker"),
                        Term::list(vec![]),
                    ]),
                ],
            ),
            SynthEvent::Send { to, index, .. } => {
                trace(me, "send", vec![self.message(me, index), p(to)])
            }
            SynthEvent::Receive { sender, index } => {
                trace(me, "receive", vec![self.message(sender, index)])
            }
            SynthEvent::Timeout => trace(me, "receive", vec![Term::atom("timeout")]),
            SynthEvent::Signal {
                to,
                kind: SynthSignal::Link,
                ..
            } => trace(me, "link", vec![p(to)]),
            SynthEvent::SignalTaken {
                sender,
                index,
                effect: SignalEffect::Converted,
            } => {
                // An 'EXIT' or 'DOWN' message entering the mailbox.
                let r = self.reason(reason_of(sender, index));
                trace(
                    me,
                    "receive",
                    vec![Term::tuple(vec![Term::atom("EXIT"), p(sender), r])],
                )
            }
            SynthEvent::Output { payload, .. } => trace(
                me,
                "send",
                vec![
                    Term::tuple(vec![
                        Term::atom("io_request"),
                        p(me),
                        p(0),
                        Term::tuple(vec![
                            Term::atom("put_chars"),
                            Term::atom("unicode"),
                            self.messages[payload as usize % self.messages.len()].clone(),
                        ]),
                    ]),
                    p(0),
                ],
            ),
            SynthEvent::Exit { reason } => trace(me, "exit", vec![self.reason(reason)]),
            SynthEvent::Signal { .. }
            | SynthEvent::SignalTaken { .. }
            | SynthEvent::Nondet { .. } => return None,
        })
    }
}

/// Bytes of the run as a dbg trace-port file, and the number of records.
/// With `payloads`, messages and reasons are the synthetic terms; without,
/// each is `[]` (the smallest term: dbg cannot leave them out).
pub fn dbg_bytes(
    steps: &[Step],
    processes: usize,
    payloads: Option<&super::synth::Payloads>,
) -> (u64, u64) {
    let sent = message_payloads(steps, processes);
    // Reasons of exit/'DOWN' signals, for the 'EXIT' messages they become.
    let mut reasons: std::collections::HashMap<(u32, u32), u16> = Default::default();
    for s in steps {
        if let SynthEvent::Signal { index, reason, .. } = s.ev {
            reasons.insert((s.process, index), reason);
        }
    }
    let (messages, reason_terms) = match payloads {
        Some(pl) => (pl.message_terms(), pl.reason_terms()),
        None => (vec![Term::Nil], vec![Term::Nil]),
    };
    let terms = Terms {
        messages: &messages,
        reasons: &reason_terms,
        sent: &sent,
    };
    let chunks: Vec<(u64, u64)> = steps
        .par_chunks(1 << 16)
        .map(|chunk| {
            let mut buf = Vec::with_capacity(256);
            let (mut bytes, mut records) = (0u64, 0u64);
            for s in chunk {
                let Some(t) = terms.record(s, |a, b| reasons.get(&(a, b)).copied().unwrap_or(0))
                else {
                    continue;
                };
                buf.clear();
                trace_term::etf::encode(&t, &mut buf);
                bytes += 5 + buf.len() as u64;
                records += 1;
            }
            (bytes, records)
        })
        .collect();
    chunks
        .into_iter()
        .fold((0, 0), |(b, r), (cb, cr)| (b + cb, r + cr))
}
