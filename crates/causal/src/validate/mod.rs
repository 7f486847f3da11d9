//! Checking that a log is causally consistent: that it describes a run that
//! could have happened. Each kind of inconsistency names the events
//! involved; what a consistent log may still hold (messages never received,
//! processes that never exited) is listed beside the verdict.
//!
//! ```text
//! Model ──► receipts (parallel, per receiver): each receipt matches a signal sent to it,
//!           │         of the right kind, taken once, in FIFO order per sender when arrivals are logged
//!           ├► tree: the spawn tree is well formed (facts gathered while building)
//!           ├► after exit (found while building)
//!           ├► reach (parallel, per process): happened-before has no cycle (each process
//!           │         acts after its spawn, ...); derive names the cycles when there are any
//!           └► leftovers (parallel, per sender): signals never received, processes never exited
//! ```

mod leftovers;
mod receipts;
mod tree;

use crate::derive::DeriveOutcome;
use crate::inconsistency::{Inconsistency, Overtaken, Unverifiable};
use crate::model::Model;
use trace_format::{LogReader, ProcId};

pub use leftovers::{Arrival, Unreceived};

/// The outcome of checking a log.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub processes: u64,
    pub events: u64,
    /// Events placed in the rebuilt derivation (all of them unless
    /// happened-before has a cycle).
    pub ordered: u64,
    pub inconsistencies: Vec<Inconsistency>,
    pub unverifiable: Vec<Unverifiable>,
    /// Processes stuck only behind a happened-before cycle.
    pub behind_cycles: Vec<ProcId>,
    /// Messages delivered after a later message of the same sender (with
    /// deliveries in the log). Not an inconsistency: a message of
    /// `erlang:send_after` or `erlang:start_timer` is sent (and named) when
    /// the timer starts but arrives when it fires, and the log does not mark
    /// such messages.
    pub overtaken: Vec<Overtaken>,
    /// Signals sent to a process of the log and never received.
    pub unreceived: Vec<Unreceived>,
    /// Signals sent to pids that no process of the log had.
    pub to_foreign: u64,
    /// Processes without an exit event (blocked at the end, or the run was
    /// cut); empty when the log does not record exits.
    pub never_exited: Vec<ProcId>,
    /// The log records exits (CauDEr's logs do not).
    pub exits_recorded: bool,
    /// The log is complete (footer present, run not interrupted).
    pub complete: bool,
}

impl Report {
    pub fn is_consistent(&self) -> bool {
        self.inconsistencies.is_empty()
    }
}

/// Checks the log's causal consistency. The checks of receipts and the
/// listing of leftovers run in parallel (rayon's pool), beside the search
/// for happened-before cycles.
pub fn validate(model: &Model) -> Report {
    let (outcome, checked) = rayon::join(|| cycles(model), || checks(model));
    report(model, outcome, checked)
}

/// Builds the model of a log and checks it, as [`Model::build`] and
/// [`validate`] do, with the rebuild of the derivation beside the
/// decoding ([`crate::stream`]), and only where it cannot tell alone (a
/// log damaged or with a happened-before cycle, ...) on the model after.
/// On any number of threads: by the instructions each thread runs, the
/// rebuild on one thread while the others decode ends sooner than the
/// decoding followed by the search without the order, whose threads wait
/// for each other (docs/replay.md: reasoned from 1 and 2 threads and the
/// 16-core figures of the build before, not timed beyond 2 cores).
pub fn build_and_validate(reader: &LogReader) -> (Model, Report) {
    let (model, ordered) = crate::stream::build_deriving(reader);
    let report = match ordered {
        Some(ordered) => {
            let outcome = DeriveOutcome {
                ordered,
                ..DeriveOutcome::default()
            };
            report(&model, outcome, checks(&model))
        }
        None => validate(&model),
    };
    (model, report)
}

type Checked = (receipts::Checked, (Vec<Unreceived>, u64));

/// The checks of receipts, and what was never received.
fn checks(model: &Model) -> Checked {
    let checked = receipts::check(model);
    let left = leftovers::unreceived(model, &checked.marks);
    (checked, left)
}

fn report(model: &Model, outcome: DeriveOutcome, checked: Checked) -> Report {
    let (checked, (unreceived, to_foreign)) = checked;
    let mut inconsistencies = checked.problems;
    let mut unverifiable = checked.unverifiable;
    inconsistencies.extend(model.early.iter().cloned());
    unverifiable.extend(model.early_unverifiable.iter().cloned());
    tree::check(model, &mut inconsistencies, &mut unverifiable);
    for waits in outcome.cycles {
        inconsistencies.push(Inconsistency::Cycle { waits });
    }
    inconsistencies.sort_by_key(|i| (i.event(), i.code()));
    Report {
        processes: model.procs.len() as u64,
        events: model.event_count(),
        ordered: outcome.ordered,
        inconsistencies,
        unverifiable,
        behind_cycles: outcome.behind,
        overtaken: checked.overtaken,
        unreceived,
        to_foreign,
        never_exited: model
            .procs
            .iter()
            .filter(|p| p.exit.is_none() && model.records_exits)
            .map(|p| p.id)
            .collect(),
        exits_recorded: model.records_exits,
        complete: model.complete,
    }
}

/// Threads from which the search without the order pays, for a model
/// already built (`validate`; `build_and_validate` rebuilds beside the
/// decoding on any number of threads). It parks and
/// wakes processes across threads, so it spends more CPU time than the
/// rebuild in order, which already runs beside the receipt checks: on the
/// 50M-event synthetic log, 2 threads were 8% slower with it (here and on a
/// 16-core machine), 4 the same, 8 and 16 36% and 46% faster.
const REACH_FROM_THREADS: usize = 4;

/// The happened-before cycles of the log, found without the derivation's
/// order when enough threads can look ([`crate::reach`]): the rebuild in
/// order, one sequential pass over receipts, names them when there are any.
fn cycles(model: &Model) -> DeriveOutcome {
    if rayon::current_num_threads() >= REACH_FROM_THREADS && crate::reach::places_every_event(model)
    {
        return DeriveOutcome {
            ordered: model.event_count(),
            ..DeriveOutcome::default()
        };
    }
    crate::derive::derive_slots(model, None, |_, _, _| {})
}
