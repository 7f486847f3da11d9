//! Reading the log at session start, once: the causal model's own pass
//! over every block (`trace_causal::stop_points::scan`) also gathers what
//! the session needs beside it — where each process can stop
//! ([`StopPoints`]), and every write to standard output.

use crate::cut::StopPoints;
use trace_causal::Model;
use trace_format::{EventRef, LogReader};

/// What a session keeps of its log besides the log itself.
pub(crate) struct Scanned {
    pub model: Model,
    pub stops: StopPoints,
    /// Every write to standard output: `(seq, slot, index)`, by `seq`.
    pub writes: Vec<(u64, usize, u64)>,
}

/// One block's writes to standard output: `(seq, index)`.
#[derive(Default)]
struct Writes(Vec<(u64, u64)>);

impl trace_causal::EventVisitor for Writes {
    fn event(&mut self, index: u64, e: &EventRef<'_>) {
        if let EventRef::Output { seq, .. } = e {
            self.0.push((*seq, index));
        }
    }
}

/// Reads `log` once: its model, where processes can stop, its writes.
pub(crate) fn scan(log: &LogReader) -> Scanned {
    let scanned = trace_causal::stop_points::scan(log, |_| Writes::default());
    let mut writes: Vec<(u64, usize, u64)> = scanned
        .blocks
        .into_iter()
        .flat_map(|(slot, w)| w.0.into_iter().map(move |(seq, i)| (seq, slot, i)))
        .filter(|&(_, slot, i)| i < scanned.kinds[slot].len() as u64)
        .collect();
    writes.sort_unstable();
    Scanned {
        stops: StopPoints::of_kinds(&scanned.kinds),
        model: scanned.model,
        writes,
    }
}
