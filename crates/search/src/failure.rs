//! What makes a recorded run a failure, for `--until-failure`.

use std::path::Path;
use trace_pattern::Pattern;
use trace_runtime::{EntryOutcome, RunOutcome};

/// Extra conditions a run must meet to count as a success.
#[derive(Clone, Debug, Default)]
pub struct Expectations {
    /// The entry's result must match this pattern (`--expect`).
    pub result: Option<Pattern>,
    /// Standard output must be exactly this (`--expect-stdout`).
    pub stdout: Option<Vec<u8>>,
    /// The run's log must satisfy these properties (`--check`). They replace
    /// crashes and deadlocks as what makes a run fail (the built-ins
    /// `no_abnormal_exit` and `no_deadlock` bring those back).
    pub check: Option<trace_check::Compiled>,
}

/// A process a deadlock left blocked: its raw pid and symbolic name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockedProcess {
    pub pid: String,
    pub symbolic: String,
}

/// Why a run failed.
#[derive(Clone, Debug)]
pub enum Failure {
    /// A process ended with an abnormal reason.
    Crash {
        pid: String,
        symbolic: String,
        reason: String,
    },
    /// Processes were left blocked forever.
    Deadlock { blocked: Vec<BlockedProcess> },
    /// The entry's result did not match `--expect`.
    Result { got: String },
    /// The entry did not return (it crashed or was killed), so no result matched.
    NoResult,
    /// Standard output differed from `--expect-stdout`, first at this line (1-based).
    Stdout { line: usize },
    /// The log violates a property of `--check`.
    Violation {
        property: String,
        /// The first violating event (EVENT syntax), if the violation has one.
        event: Option<String>,
        what: String,
    },
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Crash {
                pid,
                symbolic,
                reason,
            } => write!(f, "process {pid} ({symbolic}) crashed: {reason}"),
            Failure::Deadlock { blocked } => {
                let who: Vec<String> = blocked
                    .iter()
                    .map(|b| format!("{} ({})", b.pid, b.symbolic))
                    .collect();
                write!(f, "deadlock: {} blocked forever", who.join(", "))
            }
            Failure::Result { got } => {
                write!(f, "the entry returned {got}, which does not match --expect")
            }
            Failure::NoResult => write!(f, "the entry did not return a result to match --expect"),
            Failure::Stdout { line } => write!(
                f,
                "standard output differs from --expect-stdout at line {line}"
            ),
            Failure::Violation {
                property,
                event,
                what,
            } => match event {
                Some(e) => write!(f, "the run violates {property} at {e}: {what}"),
                None => write!(f, "the run violates {property}: {what}"),
            },
        }
    }
}

fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    if a == b {
        return None;
    }
    let mut line = 1;
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return Some(line);
        }
        if *x == b'\n' {
            line += 1;
        }
    }
    Some(line)
}

/// The first reason this run counts as a failure, if any (besides the
/// properties of `--check`, which [`check_log`] decides on the log).
pub fn classify(o: &RunOutcome, stdout: &[u8], exp: &Expectations) -> Option<Failure> {
    if exp.check.is_some() {
        return expected(o, stdout, exp);
    }
    // shutdown and {shutdown, _} are how OTP's supervisors stop their
    // children: an application that stops its supervision tree has not
    // failed (OTP writes no crash report for them either).
    if let Some(c) = o
        .crashes
        .iter()
        .find(|c| trace_term::exit_reason::is_abnormal(&c.reason))
    {
        return Some(Failure::Crash {
            pid: c.pid.to_string(),
            symbolic: c.symbolic.clone(),
            reason: trace_term::pretty(&c.reason, &Default::default()),
        });
    }
    let deadlocked: Vec<BlockedProcess> = o
        .deadlocked()
        .map(|b| BlockedProcess {
            pid: b.pid.to_string(),
            symbolic: b.symbolic.clone(),
        })
        .collect();
    if !deadlocked.is_empty() {
        return Some(Failure::Deadlock {
            blocked: deadlocked,
        });
    }
    expected(o, stdout, exp)
}

/// `--expect` and `--expect-stdout`.
fn expected(o: &RunOutcome, stdout: &[u8], exp: &Expectations) -> Option<Failure> {
    if let Some(p) = &exp.result {
        match &o.entry {
            EntryOutcome::Returned(v) => {
                if p.matches(v).is_none() {
                    return Some(Failure::Result {
                        got: trace_term::pretty(v, &Default::default()),
                    });
                }
            }
            _ => return Some(Failure::NoResult),
        }
    }
    if let Some(want) = &exp.stdout {
        if let Some(line) = first_difference(stdout, want) {
            return Some(Failure::Stdout { line });
        }
    }
    None
}

/// The first property of `--check` the log at `path` violates, if any. An
/// error says why the log could not be checked.
pub fn check_log(path: &Path, exp: &Expectations) -> Result<Option<Failure>, String> {
    match &exp.check {
        Some(spec) => first_violation(path, spec),
        None => Ok(None),
    }
}

/// The first property of `spec` the log at `path` violates, if any.
pub fn first_violation(
    path: &Path,
    spec: &trace_check::Compiled,
) -> Result<Option<Failure>, String> {
    let reader = trace_format::LogReader::open(path).map_err(|e| e.to_string())?;
    // One violation described: the failure line names its event and says
    // what was wrong there.
    let opts = trace_check::eval::Options {
        detail: 1,
        ..Default::default()
    };
    let (model, verdicts) =
        trace_check::eval::check_with(spec, &reader, opts).map_err(|e| e.to_string())?;
    Ok(verdicts
        .iter()
        .find(|v| v.status == trace_check::Status::Violated)
        .map(|v| {
            let first = v.violations.first();
            Failure::Violation {
                property: spec.properties[v.property].name.clone(),
                event: first
                    .and_then(|x| x.event)
                    .map(|e| format!("{}#{}", model.names().short(e.proc), e.index)),
                what: first.map_or_else(String::new, |x| x.what.clone()),
            }
        }))
}
