//! What a comparison is asked to do: with or without payloads, which parts
//! of them to wildcard, which processes to observe, how much context.

use crate::abstraction::Abstraction;
use trace_capture::SymbolicName;

/// How to compare.
#[derive(Clone, Debug)]
pub struct Options {
    /// Compare events without their payloads.
    pub ignore_payloads: bool,
    /// Wildcard parts of payloads before comparing them.
    pub abstractions: Vec<Abstraction>,
    /// Compare only what these processes consume and send.
    pub observe: Vec<SymbolicName>,
    /// Events shown before and after each root divergence.
    pub context: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            ignore_payloads: false,
            abstractions: Vec::new(),
            observe: Vec::new(),
            context: 2,
        }
    }
}
