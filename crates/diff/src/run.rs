//! One log as diff reads it: its processes by slot (position in the
//! reader's process table), where each process's blocks are, raw pids, and
//! the spawn tree that gives symbolic names.
//!
//! The spawn tree is read from the process table, without decoding: the
//! writer registers a child when its parent spawns it, so a parent's
//! children in table order are its spawns in program order and the `k`-th
//! is `Parent.k` — the symbolic names of trace-causal. The comparison checks
//! this as it decodes spawns ([`Run::child`]); a log where it does not hold
//! is named from its spawn events instead ([`Run::name_from_model`]).

use std::collections::HashMap;
use trace_causal::Model;
use trace_format::{LogReader, ProcId, ProcessInfo};

pub(crate) type Slot = u32;
pub(crate) const NO_SLOT: Slot = u32::MAX;

pub(crate) struct Run<'r> {
    pub reader: &'r LogReader,
    pub procs: &'r [ProcessInfo],
    /// Per slot, its blocks: positions `block_start[s]..block_start[s + 1]`
    /// in [`LogReader::blocks`].
    block_start: Vec<usize>,
    /// Per block position: its first event and first signal index.
    block_first: Vec<(u64, u64)>,
    /// Per slot: the parent's slot and the child's number (from 1), or
    /// (`NO_SLOT`, 0) for a process no spawn names.
    pub birth: Vec<(Slot, u32)>,
    /// Per slot: its children in spawn order, as `children[child_start[s]..child_start[s + 1]]`.
    child_start: Vec<usize>,
    children: Vec<Slot>,
    /// Raw pid number → slot.
    by_pid: HashMap<u64, Slot>,
}

impl<'r> Run<'r> {
    pub fn new(reader: &'r LogReader) -> Run<'r> {
        let procs = reader.processes();
        let mut block_start = vec![0usize; procs.len() + 1];
        let mut block_first = Vec::with_capacity(reader.blocks().len());
        // Blocks come grouped by process, in table order.
        let mut slot = 0usize;
        for (k, b) in reader.blocks().enumerate() {
            while slot < procs.len() && procs[slot].id != b.process {
                slot += 1;
                block_start[slot] = k;
            }
            block_first.push((b.first_event, b.first_signal));
        }
        // (A block of a process the table lacks would end up here; the
        // reader serves none.)
        let done = (slot + 1).min(procs.len());
        block_start[done..].fill(block_first.len());
        let mut run = Run {
            reader,
            procs,
            block_start,
            block_first,
            birth: Vec::new(),
            child_start: Vec::new(),
            children: Vec::new(),
            by_pid: procs
                .iter()
                .enumerate()
                .map(|(s, p)| (p.pid, s as Slot))
                .collect(),
        };
        let parents: Vec<Slot> = procs
            .iter()
            .map(|p| p.parent.and_then(|q| run.slot(q)).unwrap_or(NO_SLOT))
            .collect();
        run.set_tree(&parents);
        run
    }

    /// Sets children lists and numbers from each slot's parent (children in slot order).
    fn set_tree(&mut self, parents: &[Slot]) {
        let n = self.procs.len();
        let mut count = vec![0usize; n + 1];
        for &p in parents {
            if p != NO_SLOT {
                count[p as usize + 1] += 1;
            }
        }
        for i in 1..=n {
            count[i] += count[i - 1];
        }
        self.child_start = count.clone();
        self.children = vec![NO_SLOT; count[n]];
        self.birth = vec![(NO_SLOT, 0); n];
        for (s, &p) in parents.iter().enumerate() {
            if p != NO_SLOT {
                let at = &mut count[p as usize];
                self.children[*at] = s as Slot;
                self.birth[s] = (p, (*at - self.child_start[p as usize]) as u32 + 1);
                *at += 1;
            }
        }
    }

    /// Names processes from their spawn events (trace-causal's names), for a
    /// log whose process table does not list children in spawn order.
    pub fn name_from_model(&mut self) {
        let model = Model::build(self.reader);
        let names = model.names();
        let n = self.procs.len();
        self.birth = vec![(NO_SLOT, 0); n];
        let mut kids: Vec<Vec<(u32, Slot)>> = vec![Vec::new(); n];
        for s in 0..n {
            let Some((parent, k)) = names.birth(self.procs[s].id) else {
                continue;
            };
            if let Some(ps) = self.slot(parent) {
                self.birth[s] = (ps, k);
                kids[ps as usize].push((k, s as Slot));
            }
        }
        self.child_start.clear();
        self.children.clear();
        for mut k in kids {
            self.child_start.push(self.children.len());
            k.sort_unstable();
            // Numbers may skip (a spawn whose child has no log): keep the slots by number.
            for (num, s) in k {
                let Some(i) = (num as usize).checked_sub(1) else {
                    continue;
                };
                let at = self.child_start.last().copied().unwrap_or(0) + i;
                if self.children.len() <= at {
                    self.children.resize(at + 1, NO_SLOT);
                }
                self.children[at] = s;
            }
        }
        self.child_start.push(self.children.len());
    }

    pub fn slot(&self, id: ProcId) -> Option<Slot> {
        id.position_in(self.procs, |p| p.id).map(|s| s as Slot)
    }

    pub fn slot_of_pid(&self, pid: u64) -> Option<Slot> {
        self.by_pid.get(&pid).copied()
    }

    pub fn id(&self, s: Slot) -> ProcId {
        self.procs[s as usize].id
    }

    pub fn pid(&self, s: Slot) -> u64 {
        self.procs[s as usize].pid
    }

    pub fn events(&self, s: Slot) -> u64 {
        self.procs[s as usize].events
    }

    /// The root of the spawn tree: the entry process.
    pub fn root(&self) -> Option<Slot> {
        self.slot(ProcId(0))
    }

    /// The children of `s`, in spawn order (`NO_SLOT` where a numbered child has no log).
    pub fn children(&self, s: Slot) -> &[Slot] {
        &self.children[self.child_start[s as usize]..self.child_start[s as usize + 1]]
    }

    /// The `k`-th child (from 1) of `s` the names say, if any.
    pub fn child(&self, s: Slot, k: u64) -> Option<Slot> {
        let c = *self.children(s).get((k as usize).checked_sub(1)?)?;
        (c != NO_SLOT).then_some(c)
    }

    /// Block positions of `s`.
    pub fn blocks(&self, s: Slot) -> std::ops::Range<usize> {
        self.block_start[s as usize]..self.block_start[s as usize + 1]
    }

    /// The block of `s` holding event `index` (the last one when beyond).
    pub fn block_of_event(&self, s: Slot, index: u64) -> usize {
        let r = self.blocks(s);
        let k = self.block_first[r.clone()].partition_point(|b| b.0 <= index);
        r.start + k.saturating_sub(1)
    }

    /// The block of `s` holding its signal `index` (the last one when beyond).
    pub fn block_of_signal(&self, s: Slot, index: u64) -> usize {
        let r = self.blocks(s);
        let k = self.block_first[r.clone()].partition_point(|b| b.1 <= index);
        r.start + k.saturating_sub(1)
    }

    /// Index of the first event of block position `k`.
    pub fn block_first_event(&self, k: usize) -> u64 {
        self.block_first[k].0
    }

    /// Signal index of the first signal of block position `k`.
    pub fn block_first_signal(&self, k: usize) -> u64 {
        self.block_first[k].1
    }

    /// Nondeterministic built-in `Other(n)`'s name in this log.
    pub fn nondet_name(&self, n: u16) -> Option<&str> {
        self.reader
            .header()
            .nondet_names
            .get(n as usize)
            .map(String::as_str)
    }
}
