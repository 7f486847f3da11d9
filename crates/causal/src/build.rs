//! Building the model from a log: every block is decoded in parallel into
//! the facts it holds ([`BlockFacts`]), then each process's blocks are
//! stitched together in order. A block that does not decode ends its
//! process's log there (with a warning): the intact part stays usable.

use crate::facts::{
    AllFacts, EventId, Facts, ProcFacts, ReceiptFact, ReceiptKind, SignalClass, SignalFact,
    SpawnFact, TableRow, DEST_FOREIGN, DEST_UNKNOWN, NO_ROW,
};
use crate::inconsistency::{Inconsistency, Unverifiable};
use crate::model::Model;
use crate::shared::SharedFact;
use rayon::prelude::*;
use trace_capture::Names;
use trace_format::Loss;
use trace_format::{
    BlockInfo, Dest, EventRef, Events, FormatError, LogReader, MsgId, ProcId, ProcessInfo, RunEnd,
    SignalKindRef, Warning,
};

/// Longest process log the model takes (event indices are `u32`).
pub(crate) const MAX_EVENTS: u64 = u32::MAX as u64 - 1;

/// An event that may not follow an exit, by index and kind.
type Active = (u32, &'static str);

/// What one block contributes.
#[derive(Default)]
pub(crate) struct BlockFacts {
    pub signals: Vec<SignalFact>,
    pub receipts: Vec<ReceiptFact>,
    pub spawns: Vec<SpawnFact>,
    shared: Vec<SharedFact>,
    blocked: Option<bool>,
    first_exit: Option<u32>,
    /// The first event not allowed after an exit that follows `first_exit`.
    active_after_exit: Option<Active>,
    first_active: Option<Active>,
    problems: Vec<Inconsistency>,
    unverifiable: Vec<Unverifiable>,
}

type Buffers = (Vec<SignalFact>, Vec<ReceiptFact>, Vec<SpawnFact>);

thread_local! {
    static SCRATCH: std::cell::Cell<Buffers> = const { std::cell::Cell::new((Vec::new(), Vec::new(), Vec::new())) };
}

fn clear(mut b: Buffers) -> Buffers {
    b.0.clear();
    b.1.clear();
    b.2.clear();
    b
}

/// The log's run ended normally and the log has its footer.
pub(crate) fn is_complete(reader: &LogReader) -> bool {
    matches!(reader.outcome(), Some((o, _)) if o.end == RunEnd::Completed)
}

/// Maps process ids to rows (positions in the reader's table).
pub(crate) struct Slots<'a> {
    table: &'a [ProcessInfo],
    /// Every process's id is its position (a log that lost no process):
    /// the map is then the identity, and every send and receipt of the log
    /// is mapped without reading the table.
    dense: bool,
}

impl<'a> Slots<'a> {
    pub fn new(table: &'a [ProcessInfo]) -> Self {
        let dense = table.iter().enumerate().all(|(i, p)| p.id.0 as usize == i);
        Slots { table, dense }
    }

    #[inline]
    pub fn of(&self, id: ProcId) -> TableRow {
        if self.dense {
            return if (id.0 as usize) < self.table.len() {
                id.0
            } else {
                NO_ROW
            };
        }
        match self.table.get(id.0 as usize) {
            Some(p) if p.id == id => id.0,
            _ => self
                .table
                .binary_search_by_key(&id, |p| p.id)
                .map_or(NO_ROW, |s| s as TableRow),
        }
    }
}

fn class(kind: &SignalKindRef<'_>) -> SignalClass {
    match *kind {
        SignalKindRef::Link => SignalClass::Link,
        SignalKindRef::Unlink => SignalClass::Unlink,
        SignalKindRef::Exit { linked, .. } => SignalClass::Exit { linked },
        SignalKindRef::Monitor => SignalClass::Monitor,
        SignalKindRef::Demonitor => SignalClass::Demonitor,
        SignalKindRef::Down { .. } => SignalClass::Down,
    }
}

impl BlockFacts {
    /// A receipt; one naming a process the log does not hold is reported
    /// here, where the id is at hand, and orders nothing.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn receipt(
        &mut self,
        at: u32,
        msg: MsgId,
        kind: ReceiptKind,
        me: ProcId,
        slots: &Slots<'_>,
        complete: bool,
    ) {
        let sender = slots.of(msg.sender);
        if sender == NO_ROW {
            let receipt = EventId::new(me, at as u64);
            if complete {
                self.problems.push(Inconsistency::NoSuchSignal {
                    receipt,
                    kind,
                    msg,
                    sent: None,
                });
            } else {
                self.unverifiable
                    .push(Unverifiable::Receipt { receipt, kind, msg });
            }
        }
        self.receipts.push(ReceiptFact {
            at,
            sender,
            index: u32::try_from(msg.index).unwrap_or(u32::MAX),
            kind,
        });
    }

    // Inlined into its caller, which the decoder is inlined into as well: a
    // call per event for the decoder's iterator cost 60 instructions an event.
    #[inline(always)]
    pub fn collect(
        ev: &mut Events<'_>,
        slots: &Slots<'_>,
        complete: bool,
        visit: &mut impl EventVisitor,
    ) -> BlockFacts {
        let info = *ev.info();
        let me = info.process;
        // Facts are gathered in this thread's reused buffers, then copied out
        // at their exact size: no reallocation while a block grows.
        let (signals, receipts, spawns) = SCRATCH.take();
        let mut f = BlockFacts {
            signals,
            receipts,
            spawns,
            ..BlockFacts::default()
        };
        let dest = |to: Dest| match to {
            Dest::Proc(p) => match slots.of(p) {
                NO_ROW => DEST_FOREIGN,
                s => s,
            },
            Dest::Foreign(_) => DEST_FOREIGN,
            Dest::Unknown => DEST_UNKNOWN,
        };
        for (index, e) in (info.first_event..).zip(ev.by_ref()) {
            visit.event(index, &e);
            // Indices past MAX_EVENTS are cut when stitching; saturate here.
            let at = u32::try_from(index).unwrap_or(u32::MAX);
            let mut active = true;
            match e {
                EventRef::Spawn { child, pid, .. } => {
                    let c = slots.of(child);
                    f.spawns.push(SpawnFact { at, child: c });
                    let spawn = EventId::new(me, at as u64);
                    if c == NO_ROW {
                        // In an incomplete log the child's blocks may never have been written.
                        if complete {
                            f.problems
                                .push(Inconsistency::SpawnUnknown { spawn, child, pid });
                        }
                    } else if slots.table[c as usize].pid != pid {
                        f.problems.push(Inconsistency::SpawnPid {
                            spawn,
                            child,
                            logged: pid,
                            table: slots.table[c as usize].pid,
                        });
                    }
                }
                EventRef::Send { to, .. } => f.signals.push(SignalFact {
                    at,
                    dest: dest(to),
                    class: SignalClass::Message,
                }),
                EventRef::Signal { to, kind, .. } => {
                    let class = class(&kind);
                    // A death sends exit signals to links and 'DOWN' to monitors after the exit.
                    active = !matches!(
                        class,
                        SignalClass::Exit { linked: true } | SignalClass::Down
                    );
                    f.signals.push(SignalFact {
                        at,
                        dest: dest(to),
                        class,
                    });
                }
                EventRef::Deliver { msg } => {
                    f.receipt(at, msg, ReceiptKind::Deliver, me, slots, complete)
                }
                EventRef::Receive { msg } => {
                    f.receipt(at, msg, ReceiptKind::Receive, me, slots, complete)
                }
                EventRef::SignalTaken { signal, effect } => {
                    f.receipt(at, signal, ReceiptKind::Taken(effect), me, slots, complete)
                }
                EventRef::Exit { .. } => {
                    if f.first_exit.is_none() {
                        f.first_exit = Some(at);
                        // The exit itself is allowed; what follows is checked.
                        active = false;
                    }
                }
                EventRef::Timeout | EventRef::Nondet { .. } | EventRef::Output { .. } => {}
                EventRef::Shared {
                    object,
                    seq,
                    access,
                    ..
                } => {
                    f.shared.push(SharedFact {
                        at,
                        object,
                        seq,
                        access,
                    });
                    // A process's end releases the tables it owns (deletes
                    // them or hands them to their heir) after its exit event.
                    active = false;
                }
                EventRef::Blocked { stuck } => {
                    f.blocked = Some(stuck);
                    active = false;
                }
            }
            // Only the first active event, and the first after an exit, matter.
            if active
                && (f.first_active.is_none()
                    || f.first_exit.is_some() && f.active_after_exit.is_none())
            {
                let a = (at, e.kind().name());
                if f.first_exit.is_some() && f.active_after_exit.is_none() {
                    f.active_after_exit = Some(a);
                }
                f.first_active.get_or_insert(a);
            }
        }
        let exact = (f.signals.to_vec(), f.receipts.to_vec(), f.spawns.to_vec());
        let signals = std::mem::replace(&mut f.signals, exact.0);
        let receipts = std::mem::replace(&mut f.receipts, exact.1);
        let spawns = std::mem::replace(&mut f.spawns, exact.2);
        SCRATCH.set(clear((signals, receipts, spawns)));
        f
    }
}

/// What [`Model::build_visiting`] hands each event of a block to.
pub trait EventVisitor: Send {
    /// The event at `index` of the block's process log.
    fn event(&mut self, index: u64, e: &EventRef<'_>);
}

impl<F: FnMut(u64, &EventRef<'_>) + Send> EventVisitor for F {
    #[inline]
    fn event(&mut self, index: u64, e: &EventRef<'_>) {
        self(index, e)
    }
}

/// Per-process accumulation while stitching blocks.
struct Stitch {
    facts: ProcFacts,
    expected_event: u64,
    expected_signal: u64,
    first_exit: Option<u32>,
    after_exit: Option<Active>,
    stopped: bool,
}

impl Model {
    /// Builds the causal model of an open log: decodes every block in
    /// parallel (rayon's pool) and gathers the facts of happened-before.
    pub fn build(reader: &LogReader) -> Model {
        Model::build_visiting(reader, |_| |_: u64, _: &EventRef<'_>| {}).0
    }

    /// As [`build`](Self::build), and hands every event to a visitor made
    /// for its block by `start`, on the thread decoding the block: an
    /// analysis that needs the events' contents reads the log in the same
    /// pass. Returns each block's visitor, in the order of
    /// [`LogReader::blocks`] (`None` for a block that did not decode).
    /// Events past the point where the model ends a process's log (at a
    /// block that did not decode or follow on) are visited too; a visitor's
    /// owner ignores indices at or beyond [`ProcFacts::events`].
    pub fn build_visiting<V, F>(reader: &LogReader, start: F) -> (Model, Vec<Option<V>>)
    where
        V: EventVisitor,
        F: Fn(&BlockInfo) -> V + Sync,
    {
        let table = reader.processes();
        let slots = Slots::new(table);
        let complete = is_complete(reader);
        let both = reader.par_map_each_block(|ev| {
            let mut v = start(ev.info());
            let f = BlockFacts::collect(ev, &slots, complete, &mut v);
            (f, v)
        });
        let mut visitors = Vec::with_capacity(both.len());
        let per_block: Vec<Result<BlockFacts, FormatError>> = both
            .into_iter()
            .map(|r| match r {
                Ok((f, v)) => {
                    visitors.push(Some(v));
                    Ok(f)
                }
                Err(e) => {
                    visitors.push(None);
                    Err(e)
                }
            })
            .collect();
        (Model::stitch(reader, per_block), visitors)
    }

    /// The model of a log from its blocks' facts, in the order of
    /// [`LogReader::blocks`]: each process's blocks joined in order, up to
    /// the first that did not decode or does not follow on (a warning).
    pub(crate) fn stitch(
        reader: &LogReader,
        per_block: Vec<Result<BlockFacts, FormatError>>,
    ) -> Model {
        let table = reader.processes();
        let slots = Slots::new(table);
        let complete = is_complete(reader);
        let infos: Vec<_> = reader.blocks().collect();

        let mut per_block = per_block;
        let mut warnings = Vec::new();
        let mut early = Vec::new();
        let mut early_unverifiable = Vec::new();
        let mut stitches: Vec<Stitch> = table.iter().map(Stitch::new).collect();

        // Which blocks make each process's log. Blocks come grouped by
        // process in table order, each group in event order.
        let mut groups: Vec<Vec<BlockFacts>> = Vec::with_capacity(table.len());
        let mut lens = [0usize; 2];
        let mut blocks = infos.iter().zip(per_block.iter_mut()).peekable();
        for (slot, st) in stitches.iter_mut().enumerate() {
            let mut group = Vec::new();
            while let Some((info, result)) =
                blocks.next_if(|(i, _)| slots.of(i.process) as usize <= slot)
            {
                if slots.of(info.process) as usize != slot || st.stopped {
                    continue;
                }
                if let Some(block) = st.take(info, result, &mut warnings) {
                    early.append(&mut block.problems);
                    early_unverifiable.append(&mut block.unverifiable);
                    group.push(std::mem::take(block));
                }
            }
            let (signals, receipts) = group.iter().fold((0, 0), |(s, r), b| {
                (s + b.signals.len(), r + b.receipts.len())
            });
            st.facts.signals = lens[0]..lens[0] + signals;
            st.facts.receipts = lens[1]..lens[1] + receipts;
            lens[0] += signals;
            lens[1] += receipts;
            groups.push(group);
        }
        drop(per_block);
        let shared: Vec<Vec<SharedFact>> = groups
            .iter_mut()
            .map(|g| {
                g.iter_mut()
                    .flat_map(|b| std::mem::take(&mut b.shared))
                    .collect()
            })
            .collect();
        // A process written in one block keeps that block's arrays; longer
        // ones are concatenated, in parallel.
        let facts: AllFacts = groups
            .into_par_iter()
            .map(concat)
            .collect::<Vec<Facts>>()
            .into_iter()
            .collect();

        let mut procs = Vec::with_capacity(stitches.len());
        for st in stitches {
            let mut facts = st.facts;
            facts.exit = st.first_exit.map(u64::from);
            if let (Some(x), Some((at, kind))) = (st.first_exit, st.after_exit) {
                early.push(Inconsistency::AfterExit {
                    exit: EventId::new(facts.id, x as u64),
                    event: EventId::new(facts.id, at as u64),
                    kind,
                });
            }
            procs.push(facts);
        }

        let spawned_by = spawned_by(&facts);
        let slot_ids: Vec<ProcId> = procs.iter().map(|p| p.id).collect();
        let (deps, clashes) = crate::shared::dependencies(&shared, &slot_ids);
        early.extend(clashes.into_iter().map(Inconsistency::SameTurn));
        let sent = procs.iter().map(|p| p.signals.len() as u32).collect();
        let ids = procs.iter().map(|p| p.id).collect();
        let pids = procs.iter().map(|p| p.pid).collect();
        let names = Names::of_spawns(
            procs.iter().map(|p| (p.id, p.pid)),
            facts.spawns.iter().map(|s| s.iter().map(|f| f.child)),
        );
        let mut all_warnings: Vec<Warning> = reader.warnings().to_vec();
        all_warnings.extend(warnings);
        let cauder = reader.header().options.imported_from_cauder();
        Model {
            procs,
            facts,
            sent,
            ids,
            pids,
            spawned_by,
            names,
            deliveries: reader.header().options.deliveries,
            // CauDEr's tracer logs spawns, sends and receives only.
            records_exits: !cauder,
            // Version 2 writes how each process that never exited ended.
            records_blocked: !cauder && reader.version() >= 2,
            complete,
            warnings: all_warnings,
            early,
            early_unverifiable,
            positions: Default::default(),
            receipts_of: Default::default(),
            shared,
            deps,
            dependents: Default::default(),
        }
    }
}

impl Stitch {
    fn new(p: &ProcessInfo) -> Stitch {
        Stitch {
            facts: ProcFacts {
                id: p.id,
                pid: p.pid,
                parent: p.parent,
                events: 0,
                recorded: p.recorded,
                exit: None,
                cut_short: false,
                blocked: None,
                signals: 0..0,
                receipts: 0..0,
            },
            expected_event: 0,
            expected_signal: 0,
            first_exit: None,
            after_exit: None,
            stopped: false,
        }
    }

    /// Appends a block to the process's log, or stops the log before it
    /// when it did not decode or does not follow on (with a warning).
    fn take<'b>(
        &mut self,
        info: &BlockInfo,
        result: &'b mut Result<BlockFacts, FormatError>,
        warnings: &mut Vec<Warning>,
    ) -> Option<&'b mut BlockFacts> {
        let mut stop = |offset: u64, why: String, loss: Loss| {
            let mut w = Warning::at(
                offset,
                format!(
                    "process {} {}: {why}; its log is read up to event {}",
                    info.process.0,
                    trace_format::text::pid_text(info.pid),
                    info.first_event
                ),
            );
            w.loss = loss;
            warnings.push(w);
            self.facts.cut_short = true;
            self.stopped = true;
            None
        };
        let block = match result {
            Ok(b) => b,
            Err(e) => {
                return stop(
                    e.offset().unwrap_or(info.offset),
                    e.to_string(),
                    Loss::Damage,
                )
            }
        };
        let end = info.first_event + info.events as u64;
        if info.first_event != self.expected_event || info.first_signal != self.expected_signal {
            return stop(
                info.offset,
                format!(
                    "a block starts at event {} and signal {} where event {} and signal {} were due",
                    info.first_event, info.first_signal, self.expected_event, self.expected_signal
                ),
                Loss::Damage,
            );
        }
        if end > MAX_EVENTS {
            return stop(
                info.offset,
                format!("more than {MAX_EVENTS} events, more than the causal model takes"),
                Loss::Limit,
            );
        }
        self.expected_event = end;
        self.expected_signal += block.signals.len() as u64;
        self.facts.blocked = block.blocked.or(self.facts.blocked);
        self.facts.events = end;
        if self.first_exit.is_none() {
            self.first_exit = block.first_exit;
            self.after_exit = block.active_after_exit;
        } else if self.after_exit.is_none() {
            self.after_exit = block.first_active;
        }
        Some(block)
    }
}

/// A process's facts from its blocks, in order.
fn concat(mut group: Vec<BlockFacts>) -> Facts {
    if group.len() <= 1 {
        let b = group.pop().unwrap_or_default();
        return Facts {
            signals: b.signals,
            receipts: b.receipts,
            spawns: b.spawns,
        };
    }
    let mut f = Facts {
        signals: Vec::with_capacity(group.iter().map(|b| b.signals.len()).sum()),
        receipts: Vec::with_capacity(group.iter().map(|b| b.receipts.len()).sum()),
        spawns: Vec::with_capacity(group.iter().map(|b| b.spawns.len()).sum()),
    };
    for b in group {
        f.signals.extend_from_slice(&b.signals);
        f.receipts.extend_from_slice(&b.receipts);
        f.spawns.extend_from_slice(&b.spawns);
    }
    f
}

/// For each process, the first spawn event naming it.
fn spawned_by(facts: &AllFacts) -> Vec<Option<(TableRow, u32)>> {
    let mut by = vec![None; facts.spawns.len()];
    for (parent, spawns) in facts.spawns.iter().enumerate() {
        for s in spawns {
            if s.child != NO_ROW && by[s.child as usize].is_none() {
                by[s.child as usize] = Some((parent as TableRow, s.at));
            }
        }
    }
    by
}
