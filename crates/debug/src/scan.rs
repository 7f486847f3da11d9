//! Reading the log at session start, once: the causal model's own pass
//! over every block (`Model::build_visiting`) also gathers what the
//! session needs beside it — what each event is to the rules of where a
//! process can stop ([`StopPoints`]), and every write to standard output.

use crate::cut::{slot_of, Kind, StopPoints};
use trace_causal::Model;
use trace_format::{EventRef, LogReader, ProcId};

/// What a session keeps of its log besides the log itself.
pub(crate) struct Scanned {
    pub model: Model,
    pub stops: StopPoints,
    /// Every write to standard output: `(seq, slot, index)`, by `seq`.
    pub writes: Vec<(u64, usize, u64)>,
}

/// What one block of a process log holds for the session.
struct BlockScan {
    process: ProcId,
    /// Index of the block's first event in its process log.
    first: Option<u64>,
    kinds: Vec<Kind>,
    /// Writes to standard output: `(seq, index)`.
    writes: Vec<(u64, u64)>,
    exit_fn: u16,
    give_fn: u16,
}

impl trace_causal::EventVisitor for BlockScan {
    fn event(&mut self, index: u64, e: &EventRef<'_>) {
        self.first.get_or_insert(index);
        self.kinds
            .push(Kind::of(e, self.process, self.exit_fn, self.give_fn));
        if let EventRef::Output { seq, .. } = e {
            self.writes.push((*seq, index));
        }
    }
}

/// Reads `log` once: its model, where processes can stop, its writes.
pub(crate) fn scan(log: &LogReader) -> Scanned {
    let (exit_fn, give_fn) = trace_causal::stop_points::glue_functions(log);
    let (model, blocks) = Model::build_visiting(log, |info| BlockScan {
        process: info.process,
        first: None,
        kinds: Vec::new(),
        writes: Vec::new(),
        exit_fn,
        give_fn,
    });
    let mut blocks: Vec<(usize, BlockScan)> = blocks
        .into_iter()
        .flatten()
        .filter_map(|b| Some((slot_of(&model, b.process)?, b)))
        .collect();
    blocks.sort_by_key(|(slot, b)| (*slot, b.first));
    let mut kinds: Vec<Vec<Kind>> = vec![Vec::new(); model.processes().len()];
    let mut writes = Vec::new();
    for (slot, b) in blocks {
        let k = &mut kinds[slot];
        // A block that does not follow on: the model ends the log before it.
        if b.first.is_some_and(|f| f != k.len() as u64) {
            continue;
        }
        k.extend(b.kinds);
        writes.extend(b.writes.into_iter().map(|(seq, i)| (seq, slot, i)));
    }
    for (k, p) in kinds.iter_mut().zip(model.processes()) {
        k.truncate(p.events as usize);
    }
    writes.retain(|&(_, slot, i)| i < kinds[slot].len() as u64);
    writes.sort_unstable();
    let stops = StopPoints::of_kinds(&kinds);
    Scanned {
        model,
        stops,
        writes,
    }
}
