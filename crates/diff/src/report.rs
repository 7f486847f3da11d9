//! What a comparison finds: the verdict, the differences per process, the
//! root divergences with context, and what was left out of the comparison.

pub(crate) use crate::event::Kind;
use crate::matching::ProcName;
use crate::show::Shown;
use trace_capture::SymbolicName;
use trace_format::Warning;

/// The two runs are called `a` (the first log) and `b`.
pub const RUNS: [&str; 2] = ["a", "b"];

/// The result of comparing two logs.
#[derive(Clone, Debug)]
pub struct Diff {
    pub runs: [RunSummary; 2],
    pub level: Level,
    /// Processes compared (present in both runs; under `--observe`, the
    /// observers present in both).
    pub processes: u64,
    /// Events compared in each run.
    pub events: [u64; 2],
    /// Processes present in one run only.
    pub only_in: Vec<OnlyIn>,
    /// Matched processes whose logs differ, in name order.
    pub differences: Vec<ProcessDiff>,
    /// Differences whose causal past holds no other difference.
    pub roots: Vec<Root>,
    /// What was not compared, and why (unrecorded payloads, ...).
    pub notes: Vec<String>,
    /// What could not be read, per run, with byte offsets.
    pub warnings: Vec<(usize, Warning)>,
}

impl Diff {
    /// Causally equivalent at the chosen level: same processes, same events.
    pub fn equivalent(&self) -> bool {
        self.only_in.is_empty() && self.differences.is_empty()
    }
}

/// One log, in a line.
#[derive(Clone, Debug)]
pub struct RunSummary {
    /// The entry call the run started with.
    pub entry: String,
    pub processes: u64,
    pub events: u64,
    /// The log has its footer, the run was not cut short, nothing is lost.
    pub complete: bool,
}

/// How closely events were compared.
#[derive(Clone, Debug, Default)]
pub struct Level {
    pub ignore_payloads: bool,
    /// `--abstract` patterns, as written.
    pub abstractions: Vec<String>,
    /// `--observe` processes (empty: every process is compared).
    pub observe: Vec<SymbolicName>,
}

/// A process only one run has.
#[derive(Clone, Debug)]
pub struct OnlyIn {
    /// 0 for `a`, 1 for `b`.
    pub run: usize,
    pub name: ProcName,
    pub pid: u64,
    pub events: u64,
}

/// Two matched processes whose logs differ.
#[derive(Clone, Debug)]
pub struct ProcessDiff {
    pub name: ProcName,
    pub pids: [u64; 2],
    /// Events compared on each side.
    pub events: [u64; 2],
    /// The first difference: how, at which compared position, and the two
    /// events there (`None`: that log had ended).
    pub kind: Kind,
    pub position: u64,
    pub first: [Option<Shown>; 2],
    /// Positions whose events differ.
    pub differing: u64,
    /// The exits differ (and that is not the first difference): each exit,
    /// `None` for a process that never exited.
    pub exit: Option<ExitDiff>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExitDiff {
    pub a: Option<Shown>,
    pub b: Option<Shown>,
}

/// A root divergence.
#[derive(Clone, Debug)]
pub struct Root {
    pub name: ProcName,
    /// The differing event's index in each run's process log (`None`: that
    /// log has no event there, or no such process).
    pub at: [Option<u64>; 2],
    /// In which runs its causal past holds no other difference.
    pub root_in: [bool; 2],
    /// Events around it, both runs side by side.
    pub context: Vec<Row>,
}

/// One line of context: the events at one compared position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub cells: [Option<Shown>; 2],
    pub differs: bool,
}
