//! A rebuilt derivation with its events decoded, one step at a time, for
//! printing. Each process keeps a window of its events decoded from its
//! open block, all within a budget, so memory is bounded whatever the
//! log's size and whatever one block holds (a block may decode to millions
//! of one-byte events).

use crate::derive::DeriveOutcome;
use crate::facts::{EventId, TableRow};
use crate::model::Model;
use std::collections::VecDeque;
use std::ops::Range;
use trace_format::{BlockCursor, Event, EventRef, FormatError, LogReader, MsgId, ProcId};

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

/// Decoded events the derivation holds at most (about 80 bytes each), and
/// decoded bytes of open blocks counted as one event per 64 bytes: beyond,
/// the buffers filled longest ago are dropped, and decoded again if their
/// process still needs them.
const HELD_EVENTS: usize = 2 << 20;

/// Events decoded at a time from a process's open block: a block may hold
/// millions (one byte each), and only a window of them is held.
const WINDOW: usize = 4096;

/// Where one process stands: its open block, and a window of its events
/// decoded from the next one it needs.
#[derive(Default)]
struct Cursor {
    /// Its blocks, by position in the reader's list.
    blocks: Range<usize>,
    /// The block `open` reads, and the event index of `buf[0]`.
    block: usize,
    first: u64,
    buf: Vec<(Option<u64>, Event)>,
    /// The block being read, positioned after the last event of `buf`.
    open: Option<BlockCursor>,
    signals: u64,
}

impl Cursor {
    /// What this cursor holds, in events (see [`HELD_EVENTS`]).
    fn weight(&self) -> usize {
        self.buf.len()
            + self
                .open
                .as_ref()
                .map_or(0, |b| b.info().raw_len as usize / 64)
    }

    fn drop_all(&mut self) {
        self.buf = Vec::new();
        self.open = None;
    }
}

/// The processes' decoded windows, within [`HELD_EVENTS`].
struct Decoded<'r> {
    reader: &'r LogReader,
    budget: usize,
    infos: Vec<trace_format::BlockInfo>,
    cursors: Vec<Cursor>,
    held: usize,
    /// Processes in the order their buffers were filled: the eviction order.
    filled: VecDeque<TableRow>,
    /// The most `held` reached (for tests of the bound).
    peak: usize,
}

impl Decoded<'_> {
    /// Event `i` of process `s`; events of a process are asked in order.
    fn take(&mut self, s: TableRow, i: u64) -> Result<Option<(Option<u64>, Event)>, FormatError> {
        let c = &self.cursors[s as usize];
        let missing = c.buf.is_empty() || i < c.first || i - c.first >= c.buf.len() as u64;
        if missing && !self.fill(s, i)? {
            return Ok(None);
        }
        let c = &mut self.cursors[s as usize];
        let k = (i - c.first) as usize;
        let Some(slot) = c.buf.get_mut(k) else {
            return Ok(None);
        };
        let got = std::mem::replace(slot, (None, Event::Timeout));
        if k + 1 == c.buf.len() {
            // The window is consumed: free it now (the block stays open).
            self.held -= c.buf.len();
            c.buf = Vec::new();
            c.first = i + 1;
        }
        Ok(Some(got))
    }

    /// Decodes a window of process `s`'s events from event `i`: on from the
    /// open block when it stands there, else from the block holding `i`.
    /// False when the process has no event `i`.
    fn fill(&mut self, s: TableRow, i: u64) -> Result<bool, FormatError> {
        let c = &mut self.cursors[s as usize];
        self.held -= c.weight();
        c.buf = Vec::new();
        let info = &self.infos;
        let ends_before = |b: usize| info[b].first_event + info[b].events as u64 <= i;
        let resumes = c.open.is_some() && c.first == i && !ends_before(c.block);
        if !resumes {
            c.open = None;
            if c.blocks.is_empty() && (c.block >= info.len() || ends_before(c.block)) {
                return Ok(false);
            }
            if c.block >= info.len() || ends_before(c.block) || i < info[c.block].first_event {
                for b in c.blocks.by_ref() {
                    c.block = b;
                    if !ends_before(b) {
                        break;
                    }
                }
            }
            c.open = match self.reader.block_cursor(c.block) {
                Some(opened) => Some(opened?),
                None => return Ok(false),
            };
        }
        let (buf, open) = (&mut c.buf, c.open.as_mut().expect("opened above"));
        // Events before `i` (a block entered in its middle) are skipped.
        while buf.len() < WINDOW {
            let more = open.next_timed_events(WINDOW, |j, t, e| {
                if j >= i {
                    buf.push((t, e.to_owned()));
                }
            })?;
            if !more {
                c.open = None;
                break;
            }
        }
        c.first = i;
        self.held += c.weight();
        self.peak = self.peak.max(self.held);
        self.filled.push_back(s);
        self.evict(s);
        Ok(!self.cursors[s as usize].buf.is_empty())
    }

    /// Drops the oldest windows and open blocks (not `keep`'s) until within
    /// the budget.
    fn evict(&mut self, keep: TableRow) {
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
            self.held -= c.weight();
            c.drop_all();
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
    steps_within(model, reader, limit, HELD_EVENTS, f).map(|(outcome, _)| outcome)
}

fn steps_within(
    model: &Model,
    reader: &LogReader,
    limit: Option<&[u64]>,
    budget: usize,
    mut f: impl FnMut(&Step<'_>) -> bool,
) -> Result<(DeriveOutcome, usize), FormatError> {
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
        peak: 0,
    };
    let mut number = 0u64;
    let mut error: Option<FormatError> = None;
    let mut go_on = true;
    let outcome = crate::derive::derive_slots(model, limit, |s: TableRow, from, to| {
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
        None => Ok((outcome, decoded.peak)),
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

    /// One block of many one-byte events (what a 1024:1 block holds) is
    /// read a window at a time: what the derivation holds stays within its
    /// budget plus a window and the open block, not the block's events.
    #[test]
    fn a_block_of_many_events_is_held_a_window_at_a_time() {
        let dir = Scratch::new("steps-window");
        let path = dir.path("run.trace");
        let n = 20 * WINDOW;
        let mut events = vec![Event::Timeout; n];
        events.push(exit());
        let opts = WriterOptions {
            block_size: 1 << 20,
            ..WriterOptions::default()
        };
        write_with(
            &path,
            &[proc(0, None, events)],
            false,
            Ending::Complete,
            opts,
        );
        let reader = LogReader::open(&path).unwrap();
        assert_eq!(reader.blocks().len(), 1);
        let raw = reader.blocks().next().unwrap().raw_len as usize;
        let m = Model::build(&reader);
        let mut count = 0u64;
        let (_, peak) = steps_within(&m, &reader, None, 100, |s| {
            count += 1;
            assert_eq!(s.number, count);
            true
        })
        .unwrap();
        assert_eq!(count, n as u64 + 1);
        assert!(peak <= 100 + WINDOW + raw / 64, "held {peak} events");
    }
}
