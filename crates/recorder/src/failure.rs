//! What makes a recorded run a failure, for `--until-failure`.

use trace_pattern::Pattern;
use trace_runtime::{EntryOutcome, RunOutcome};

/// Extra conditions a run must meet to count as a success.
#[derive(Clone, Debug, Default)]
pub struct Expectations {
    /// The entry's result must match this pattern (`--expect`).
    pub result: Option<Pattern>,
    /// Standard output must be exactly this (`--expect-stdout`).
    pub stdout: Option<Vec<u8>>,
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
    Deadlock { blocked: Vec<String> },
    /// The entry's result did not match `--expect`.
    Result { got: String },
    /// The entry did not return (it crashed or was killed), so no result matched.
    NoResult,
    /// Standard output differed from `--expect-stdout`, first at this line (1-based).
    Stdout { line: usize },
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
                write!(f, "deadlock: {} blocked forever", blocked.join(", "))
            }
            Failure::Result { got } => {
                write!(f, "the entry returned {got}, which does not match --expect")
            }
            Failure::NoResult => write!(f, "the entry did not return a result to match --expect"),
            Failure::Stdout { line } => write!(
                f,
                "standard output differs from --expect-stdout at line {line}"
            ),
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

/// The first reason this run counts as a failure, if any.
pub fn classify(o: &RunOutcome, stdout: &[u8], exp: &Expectations) -> Option<Failure> {
    if let Some(c) = o.crashes.first() {
        return Some(Failure::Crash {
            pid: c.pid.to_string(),
            symbolic: c.symbolic.clone(),
            reason: trace_term::pretty(&c.reason, &Default::default()),
        });
    }
    if !o.blocked.is_empty() {
        return Some(Failure::Deadlock {
            blocked: o
                .blocked
                .iter()
                .map(|b| format!("{} ({})", b.pid, b.symbolic))
                .collect(),
        });
    }
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
