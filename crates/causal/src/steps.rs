//! A rebuilt derivation with its events decoded, one step at a time, for
//! printing. Each process keeps one decoded block at a time, so memory is a
//! block per process that has not finished, whatever the log's size.

use crate::derive::DeriveOutcome;
use crate::model::{EventId, Model, Slot};
use std::collections::VecDeque;
use std::ops::Range;
use trace_format::{Event, EventRef, FormatError, LogReader, MsgId, ProcId};

/// One step of a derivation.
#[derive(Clone, Debug)]
pub struct Step<'a> {
    /// From 1.
    pub number: u64,
    pub event: EventId,
    /// Time since the run started (ns), when the log has timestamps.
    pub time: Option<u64>,
    pub data: &'a Event,
    /// For a send or signal: its identity.
    pub msg: Option<MsgId>,
}

impl Step<'_> {
    /// The borrowed view `trace_format::text` renders.
    pub fn as_event_ref(&self) -> EventRef<'_> {
        let none = MsgId {
            sender: ProcId(0),
            index: 0,
        };
        EventRef::of(self.data, self.msg.unwrap_or(none))
    }
}

/// Decoded events the derivation holds at most (about 80 bytes each):
/// beyond, the buffers decoded longest ago are dropped, and decoded again if
/// their process still needs them.
const HELD_EVENTS: usize = 2 << 20;

/// The current block of one process, decoded from the next event it needs.
#[derive(Default)]
struct Cursor {
    /// Its blocks, by position in the reader's list.
    blocks: Range<usize>,
    /// The block `buf` comes from, and the event index of `buf[0]`.
    block: usize,
    first: u64,
    buf: Vec<(Option<u64>, Event)>,
    signals: u64,
}

/// The processes' decoded blocks, within [`HELD_EVENTS`].
struct Decoded<'r> {
    reader: &'r LogReader,
    budget: usize,
    infos: Vec<trace_format::BlockInfo>,
    cursors: Vec<Cursor>,
    held: usize,
    /// Processes in the order their buffers were filled: the eviction order.
    filled: VecDeque<Slot>,
}

impl Decoded<'_> {
    /// Event `i` of process `s`; events of a process are asked in order.
    fn take(&mut self, s: Slot, i: u64) -> Result<Option<(Option<u64>, Event)>, FormatError> {
        let c = &mut self.cursors[s as usize];
        if c.buf.is_empty() || i < c.first || i - c.first >= c.buf.len() as u64 {
            self.held -= c.buf.len();
            c.buf = Vec::new();
            // The block holding `i`: the current one (evicted) or a later one.
            let info = &self.infos;
            let ends_before = |b: usize| info[b].first_event + info[b].events as u64 <= i;
            if c.blocks.is_empty() && (c.block >= info.len() || ends_before(c.block)) {
                return Ok(None);
            }
            if c.block >= info.len() || ends_before(c.block) || i < info[c.block].first_event {
                for b in c.blocks.by_ref() {
                    c.block = b;
                    if !ends_before(b) {
                        break;
                    }
                }
            }
            let buf = &mut c.buf;
            self.reader.for_each_event_in_block(c.block, |j, t, e| {
                if j >= i {
                    buf.push((t, e.to_owned()));
                }
            })?;
            c.first = i;
            self.held += c.buf.len();
            self.filled.push_back(s);
            self.evict(s);
        }
        let c = &mut self.cursors[s as usize];
        let k = (i - c.first) as usize;
        let Some(slot) = c.buf.get_mut(k) else {
            return Ok(None);
        };
        let got = std::mem::replace(slot, (None, Event::Timeout));
        if k + 1 == c.buf.len() {
            // The block is consumed: free it now.
            self.held -= c.buf.len();
            c.buf = Vec::new();
            c.first = i + 1;
        }
        Ok(Some(got))
    }

    /// Drops the oldest buffers (not `keep`'s) until within the budget.
    fn evict(&mut self, keep: Slot) {
        let mut tries = self.filled.len();
        while self.held > self.budget && tries > 0 {
            tries -= 1;
            let Some(q) = self.filled.pop_front() else {
                return;
            };
            if q == keep {
                self.filled.push_back(q);
                continue;
            }
            let c = &mut self.cursors[q as usize];
            self.held -= c.buf.len();
            c.buf = Vec::new();
        }
    }
}

/// Rebuilds a derivation and hands `f` each step with its event decoded,
/// in order. `limit` restricts it as in [`Model::derive_within`]. `f`
/// returns false to stop early (e.g. the output was closed). Memory: at
/// most about [`HELD_EVENTS`] decoded events, whatever the log's size.
pub fn for_each_step(
    model: &Model,
    reader: &LogReader,
    limit: Option<&[u64]>,
    f: impl FnMut(&Step<'_>) -> bool,
) -> Result<DeriveOutcome, FormatError> {
    steps_within(model, reader, limit, HELD_EVENTS, f)
}

fn steps_within(
    model: &Model,
    reader: &LogReader,
    limit: Option<&[u64]>,
    budget: usize,
    mut f: impl FnMut(&Step<'_>) -> bool,
) -> Result<DeriveOutcome, FormatError> {
    let infos: Vec<_> = reader.blocks().collect();
    let mut cursors: Vec<Cursor> = model.procs.iter().map(|_| Cursor::default()).collect();
    // Blocks are grouped by process in table order.
    let mut at = 0usize;
    for (s, p) in model.procs.iter().enumerate() {
        while at < infos.len() && infos[at].process < p.id {
            at += 1;
        }
        let start = at;
        while at < infos.len() && infos[at].process == p.id {
            at += 1;
        }
        cursors[s].blocks = start..at;
        cursors[s].block = usize::MAX;
    }
    let mut decoded = Decoded {
        reader,
        budget,
        infos,
        cursors,
        held: 0,
        filled: VecDeque::new(),
    };
    let mut number = 0u64;
    let mut error: Option<FormatError> = None;
    let mut go_on = true;
    let outcome = crate::derive::derive_slots(model, limit, |s: Slot, from, to| {
        let me = model.id(s);
        for i in from as u64..to as u64 {
            if !go_on || error.is_some() {
                return;
            }
            let (time, data) = match decoded.take(s, i) {
                Ok(Some(e)) => e,
                Ok(None) => return,
                Err(e) => {
                    error = Some(e);
                    return;
                }
            };
            let c = &mut decoded.cursors[s as usize];
            let msg = data.sends_signal().then(|| {
                c.signals += 1;
                MsgId {
                    sender: me,
                    index: c.signals - 1,
                }
            });
            number += 1;
            go_on = f(&Step {
                number,
                event: EventId::new(me, i),
                time,
                data: &data,
                msg,
            });
        }
    });
    match error {
        Some(e) => Err(e),
        None => Ok(outcome),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_logs::*;
    use trace_format::WriterOptions;

    /// Blocks dropped for the budget and decoded again give the same steps.
    #[test]
    fn a_tight_budget_gives_the_same_derivation() {
        let dir = Scratch::new("steps");
        let path = dir.path("run.trace");
        let procs = random_run(11, 3000);
        // Small blocks, so that processes have several.
        let opts = WriterOptions {
            block_size: 64,
            ..WriterOptions::default()
        };
        write_with(&path, &procs, false, Ending::Complete, opts);
        let reader = LogReader::open(&path).unwrap();
        assert!(reader.blocks().len() > procs.len() * 2);
        let m = Model::build(&reader);
        let steps = |budget| {
            let mut v = Vec::new();
            steps_within(&m, &reader, None, budget, |s| {
                v.push((s.number, s.event, s.data.clone(), s.msg));
                true
            })
            .unwrap();
            v
        };
        let roomy = steps(usize::MAX);
        assert_eq!(roomy.len() as u64, m.event_count());
        assert_eq!(steps(3), roomy);
        assert_eq!(steps(0), roomy);
    }
}
