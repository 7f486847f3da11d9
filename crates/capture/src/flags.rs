//! What a log keeps beyond the choices replay needs, and the options of a
//! run its header records so that a replay runs alike.

use trace_runtime::{EndRule, RunOptions};

/// What to record beyond the choices.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RecordFlags {
    /// Message payloads and exit reasons (needed to read, diff and check the
    /// log without the program; replay does not need them).
    pub payloads: bool,
    /// Mailbox arrivals (`deliver` events).
    pub deliveries: bool,
    /// The bytes each process wrote to standard output.
    pub output: bool,
}

impl Default for RecordFlags {
    fn default() -> Self {
        RecordFlags {
            payloads: true,
            deliveries: false,
            output: false,
        }
    }
}

impl RecordFlags {
    /// Whether a log recorded with these flags holds the engine's event
    /// `ev` (every event but a mailbox arrival, unless deliveries are
    /// recorded): the rule the recorder writes by, which whoever counts a
    /// process's log events beside it follows too.
    pub fn logs(&self, ev: &trace_runtime::hooks::Event<'_>) -> bool {
        self.deliveries || !matches!(ev, trace_runtime::hooks::Event::Deliver { .. })
    }

    /// The flags a log was recorded with, from its header.
    pub fn of_header(h: &trace_format::Header) -> RecordFlags {
        RecordFlags {
            payloads: h.options.payloads,
            deliveries: h.options.deliveries,
            output: h.options.output,
        }
    }
}

/// The header option (`options.other`) that says a run's end was judged
/// with [`EndRule::Strict`]: every process left waiting a deadlock.
const END_RULE: &str = "end_rule";

/// The run options a header records beside its fixed fields.
pub fn other_options(run: &RunOptions) -> Vec<(String, String)> {
    match run.end_rule {
        EndRule::Strict => vec![(END_RULE.into(), "strict".into())],
        EndRule::Settled => Vec::new(),
    }
}

/// How the recorded run's end was judged.
pub fn end_rule(h: &trace_format::Header) -> EndRule {
    if h.options
        .other
        .iter()
        .any(|(k, v)| k == END_RULE && v == "strict")
    {
        EndRule::Strict
    } else {
        EndRule::Settled
    }
}
