//! The rebuild of a derivation beside the decoding: the threads decode
//! the log's records in file order into their blocks' facts, and one of
//! them rebuilds the derivation from those facts as they come, taking a
//! process's next block when its run reaches it (and decoding the next
//! records itself while that block is not there). The order is the one
//! [`crate::derive`] gives on the whole model: the same first-in,
//! first-out runs, each going on across its process's blocks.
//!
//! ```text
//! records (file order) ──► decode_next (every thread) ──► blocks' facts ──► stitch ──► Model
//!                                                          └─► rebuild (one thread, FIFO)
//! ```
//!
//! The rebuild here assumes what a log as written gives: every block
//! decodes and follows on, no operation on shared state orders processes,
//! each process is started by the one spawn its table's parent names (or
//! by none, the entry process), and every receipt's signal is sent. What
//! it finds is kept only when the model built after agrees on all of it
//! and every event was placed ([`build_deriving`]); otherwise the checks
//! rebuild on the model, as without it, and name the cycles.

use crate::build::{is_complete, BlockFacts, Slots, MAX_EVENTS};
use crate::derive::{self, Chunk, Layout, Progress, Rare};
use crate::facts::{SpawnFact, TableRow, NO_ROW};
use crate::model::Model;
use crate::shared::DepFact;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use trace_format::{BlockInfo, EventRef, FormatError, LogReader, RecordScratch};

/// The log's blocks, decoded into facts by whichever thread takes their
/// record first.
struct Decoded<'r> {
    reader: &'r LogReader,
    slots: Slots<'r>,
    complete: bool,
    /// By position in [`LogReader::blocks`].
    blocks: Vec<OnceLock<Result<BlockFacts, FormatError>>>,
    /// The next record (in file order) nobody has taken.
    next: AtomicUsize,
    records: usize,
}

impl<'r> Decoded<'r> {
    fn new(reader: &'r LogReader) -> Self {
        Decoded {
            reader,
            slots: Slots::new(reader.processes()),
            complete: is_complete(reader),
            blocks: (0..reader.blocks().len())
                .map(|_| OnceLock::new())
                .collect(),
            next: AtomicUsize::new(0),
            records: reader.records_in_file(),
        }
    }

    /// Takes the next record and decodes its blocks; `false` when none is left.
    fn decode_next(&self, scratch: &mut RecordScratch) -> bool {
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        if i >= self.records {
            return false;
        }
        let (slots, complete) = (&self.slots, self.complete);
        self.reader.map_record_in_file(
            i,
            scratch,
            |ev| BlockFacts::collect(ev, slots, complete, &mut |_: u64, _: &EventRef<'_>| {}),
            |k, r| {
                if let Some(b) = self.blocks.get(k) {
                    let _ = b.set(r);
                }
            },
        );
        true
    }

    /// Block `k`'s facts, decoding records until it is there (or waiting
    /// for the thread that took its record).
    fn wait(&self, k: usize, scratch: &mut RecordScratch) -> &Result<BlockFacts, FormatError> {
        loop {
            if let Some(b) = self.blocks[k].get() {
                return b;
            }
            if !self.decode_next(scratch) {
                std::thread::yield_now();
            }
        }
    }

    fn into_blocks(self) -> Vec<Result<BlockFacts, FormatError>> {
        self.blocks
            .into_iter()
            .map(|b| b.into_inner().expect("every record was decoded"))
            .collect()
    }
}

/// The rebuild's view of the blocks: each process's blocks in order, one
/// chunk each.
struct Stream<'d> {
    decoded: &'d Decoded<'d>,
    scratch: RecordScratch,
    infos: Vec<BlockInfo>,
    /// Per row: its blocks' positions, and how many the rebuild took.
    of: Vec<Range<usize>>,
    taken: Vec<u32>,
}

impl<'d> Stream<'d> {
    fn new(decoded: &'d Decoded<'d>) -> Self {
        let infos: Vec<BlockInfo> = decoded.reader.blocks().collect();
        let n = decoded.reader.processes().len();
        let mut of = vec![0..0; n];
        // Blocks come grouped by process, in table order.
        let mut k = 0;
        while k < infos.len() {
            let p = infos[k].process;
            let from = k;
            while k < infos.len() && infos[k].process == p {
                k += 1;
            }
            if let Some(r) = of.get_mut(decoded.slots.of(p) as usize) {
                *r = from..k;
            }
        }
        Stream {
            decoded,
            scratch: RecordScratch::default(),
            infos,
            of,
            taken: vec![0; n],
        }
    }
}

impl<'d> Layout<'d> for Stream<'d> {
    fn len(&self) -> usize {
        self.of.len()
    }

    fn progress(&self, _: Option<&[u64]>) -> (Vec<Progress<'d>>, Vec<Rare<'d>>) {
        self.of
            .iter()
            .map(|r| (Progress::waiting_for_facts(!r.is_empty()), Rare::default()))
            .unzip()
    }

    fn is_root(&self, s: TableRow) -> bool {
        self.decoded.reader.processes()[s as usize].parent.is_none()
    }

    fn sent_in_all(&self, _: TableRow) -> u32 {
        u32::MAX
    }

    #[inline]
    fn starts_child(&self, _: TableRow, f: &SpawnFact) -> Option<TableRow> {
        (f.child != NO_ROW).then_some(f.child)
    }

    #[inline]
    fn deps_of(&self, _: TableRow) -> &'d [DepFact] {
        &[]
    }

    fn next_chunk(&mut self, s: TableRow, st: &Progress<'d>) -> Option<Chunk<'d>> {
        let range = self.of[s as usize].clone();
        let k = range.start + self.taken[s as usize] as usize;
        let info = self.infos.get(k).filter(|_| k < range.end)?;
        let decoded: &'d Decoded<'d> = self.decoded;
        let b = decoded.wait(k, &mut self.scratch).as_ref().ok()?;
        let (event, signal) = st.reached();
        let end = info.first_event + info.events as u64;
        if info.first_event != event as u64
            || info.first_signal != signal as u64
            || end > MAX_EVENTS
        {
            return None;
        }
        self.taken[s as usize] += 1;
        Some(Chunk {
            receipts: &b.receipts,
            signals: &b.signals,
            spawns: &b.spawns,
            end: end as u32,
            sig_base: signal,
            more: k + 1 < range.end,
        })
    }
}

/// Builds the model of a log with the rebuild of a derivation beside the
/// decoding, on the threads of rayon's pool (one rebuilds, the others
/// decode). Returns the events the rebuild placed when it placed every
/// event and the model agrees with what it assumed (see the module's
/// documentation); `None` otherwise, for the checks to rebuild on the model.
pub(crate) fn build_deriving(reader: &LogReader) -> (Model, Option<u64>) {
    let decoded = Decoded::new(reader);
    let reached = derive_beside_decoding(&decoded, |_, _, _| {});
    let model = Model::stitch(reader, decoded.into_blocks());
    let ordered = reached
        .filter(|(_, reached)| agrees(&model, reached))
        .map(|(o, _)| o);
    (model, ordered)
}

/// Decodes every record on rayon's threads, one of them rebuilding the
/// derivation beside (`run` as in [`derive::rebuild`]): the events placed
/// and where each process's log ended, when every event was placed.
fn derive_beside_decoding(
    decoded: &Decoded<'_>,
    run: impl FnMut(TableRow, u32, u32) + Send,
) -> Option<(u64, Vec<(u32, u32)>)> {
    let helpers = rayon::current_num_threads().saturating_sub(1);
    rayon::scope(|scope| {
        for _ in 0..helpers {
            scope.spawn(|_| {
                let mut scratch = RecordScratch::default();
                while decoded.decode_next(&mut scratch) {}
            });
        }
        let mut stream = Stream::new(decoded);
        let out = derive::rebuild(&mut stream, None, None, run);
        let reached = out.and_then(|(ordered, prog, _)| {
            let done = !prog.iter().any(Progress::unfinished);
            done.then(|| (ordered, prog.iter().map(Progress::reached).collect()))
        });
        // A rebuild given up leaves records behind: the model needs them all.
        while decoded.decode_next(&mut stream.scratch) {}
        reached
    })
}

/// The model holds what the rebuild beside the decoding assumed: each
/// process's events and signals as far as it ran them (`reached`), no
/// operation on shared state that orders processes, the same processes
/// started at once, and every child named by one spawn only.
fn agrees(model: &Model, reached: &[(u32, u32)]) -> bool {
    let same_logs =
        model
            .procs
            .iter()
            .zip(&model.sent)
            .zip(reached)
            .all(|((p, &sent), &(events, signals))| {
                p.events == events as u64 && sent == signals && !p.cut_short
            });
    let roots = model
        .procs
        .iter()
        .zip(&model.spawned_by)
        .all(|(p, by)| p.parent.is_none() == by.is_none());
    let spawned = model.spawned_by.iter().filter(|b| b.is_some()).count();
    let spawns_of_rows = model
        .facts
        .spawns
        .iter()
        .flatten()
        .filter(|f| f.child != NO_ROW)
        .count();
    same_logs
        && reached.len() == model.procs.len()
        && model.deps.iter().all(Vec::is_empty)
        && roots
        && spawned == spawns_of_rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_logs::*;

    #[test]
    fn the_rebuild_beside_the_decoding_runs_as_the_rebuild_of_the_model() {
        let dir = Scratch::new("stream");
        for seed in 1..20 {
            for block_size in [48, 1 << 16] {
                let path = dir.path("run.trace");
                let opts = trace_format::WriterOptions {
                    block_size,
                    ..Default::default()
                };
                write_with(&path, &random_run(seed, 400), false, Ending::Complete, opts);
                let reader = LogReader::open(&path).unwrap();
                let m = Model::build(&reader);
                let mut runs = Vec::new();
                let out = derive::derive_slots(&m, None, |s, from, to| runs.push((s, from, to)));
                for threads in [1, 2, 3, 4] {
                    let decoded = Decoded::new(&reader);
                    let mut streamed = Vec::new();
                    let reached = on_threads(threads, || {
                        derive_beside_decoding(&decoded, |s, from, to| streamed.push((s, from, to)))
                    });
                    let (ordered, reached) = reached.expect("every event placed");
                    assert_eq!(streamed, runs, "seed {seed}, {threads} threads");
                    assert_eq!(ordered, out.ordered);
                    assert!(agrees(&m, &reached), "seed {seed}");
                    assert_eq!(
                        on_threads(threads, || build_deriving(&reader).1),
                        Some(ordered)
                    );
                }
            }
        }
    }

    #[test]
    fn a_cycle_leaves_the_rebuild_to_the_model() {
        // P waits for P.1's message before spawning P.1.
        let procs = vec![
            proc(0, None, vec![recv(1, 0), spawn(1), exit()]),
            proc(1, Some(0), vec![send(0), exit()]),
        ];
        let dir = Scratch::new("stream-cycle");
        let reader = open(&dir, &procs);
        for threads in [1, 2, 4] {
            assert_eq!(on_threads(threads, || build_deriving(&reader).1), None);
        }
    }
}
