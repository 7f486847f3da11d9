//! One log as diff reads it: its processes by row (position in the
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
use trace_capture::Names;
use trace_causal::Model;
use trace_format::{LogReader, ProcId, ProcessInfo};

pub(crate) use trace_capture::{TableRow, NO_ROW};

pub(crate) struct Run<'r> {
    pub reader: &'r LogReader,
    pub procs: &'r [ProcessInfo],
    /// Per row, its blocks: positions `block_start[s]..block_start[s + 1]`
    /// in [`LogReader::blocks`].
    block_start: Vec<usize>,
    /// Per block position: its first event and first signal index.
    block_first: Vec<(u64, u64)>,
    /// The spawn tree that names the processes, by row.
    pub names: Names,
    /// The causal model, built when a shared-state operation needs it (to
    /// know which operation it follows on its object).
    model: std::sync::OnceLock<Model>,
    /// Raw pid number → row.
    by_pid: HashMap<u64, TableRow>,
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
        Run {
            reader,
            procs,
            block_start,
            block_first,
            names: Names::of_table(procs),
            model: std::sync::OnceLock::new(),
            by_pid: procs
                .iter()
                .enumerate()
                .map(|(s, p)| (p.pid, s as TableRow))
                .collect(),
        }
    }

    /// The operation of another process that event `index` of process `p`
    /// (an operation on a shared object) follows on its object.
    pub fn shared_predecessor(&self, p: ProcId, index: u64) -> Option<(ProcId, u64)> {
        let m = self.model.get_or_init(|| Model::build(self.reader));
        m.shared_predecessor(trace_causal::EventId::new(p, index))
            .map(|e| (e.proc, e.index))
    }

    /// Names processes from their spawn events (trace-causal's names), for a
    /// log whose process table does not list children in spawn order.
    pub fn name_from_model(&mut self) {
        self.names = Model::build(self.reader).names().clone();
    }

    pub fn slot(&self, id: ProcId) -> Option<TableRow> {
        id.position_in(self.procs, |p| p.id).map(|s| s as TableRow)
    }

    pub fn slot_of_pid(&self, pid: u64) -> Option<TableRow> {
        self.by_pid.get(&pid).copied()
    }

    pub fn id(&self, s: TableRow) -> ProcId {
        self.procs[s as usize].id
    }

    pub fn pid(&self, s: TableRow) -> u64 {
        self.procs[s as usize].pid
    }

    pub fn events(&self, s: TableRow) -> u64 {
        self.procs[s as usize].events
    }

    /// The root of the spawn tree: the entry process.
    pub fn root(&self) -> Option<TableRow> {
        self.names.root_slot()
    }

    /// The children of `s`, in spawn order (`NO_ROW` where a numbered child has no log).
    pub fn children(&self, s: TableRow) -> &[TableRow] {
        self.names.children_of_slot(s)
    }

    /// The parent's row and the number of `s` among its children, when a
    /// spawn names it.
    pub fn birth(&self, s: TableRow) -> Option<(TableRow, u32)> {
        self.names.birth_of_slot(s)
    }

    /// The `k`-th child (from 1) of `s` the names say, if any.
    pub fn child(&self, s: TableRow, k: u64) -> Option<TableRow> {
        let c = *self.children(s).get((k as usize).checked_sub(1)?)?;
        (c != NO_ROW).then_some(c)
    }

    /// Block positions of `s`.
    pub fn blocks(&self, s: TableRow) -> std::ops::Range<usize> {
        self.block_start[s as usize]..self.block_start[s as usize + 1]
    }

    /// The block of `s` holding event `index` (the last one when beyond).
    pub fn block_of_event(&self, s: TableRow, index: u64) -> usize {
        let r = self.blocks(s);
        let k = self.block_first[r.clone()].partition_point(|b| b.0 <= index);
        r.start + k.saturating_sub(1)
    }

    /// The block of `s` holding its signal `index` (the last one when beyond).
    pub fn block_of_signal(&self, s: TableRow, index: u64) -> usize {
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
