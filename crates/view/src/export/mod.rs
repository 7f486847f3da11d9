//! A run for the viewers people already use, written as a derivation goes
//! (the whole log, in an order that respects happened-before; memory grows
//! with the processes and signals, not the events):
//!
//! - [`perfetto`]: Chrome's trace-event JSON, which ui.perfetto.dev and
//!   chrome://tracing open: a track per process and per shared object, a
//!   slice per event, a flow per message and signal received.
//! - [`shiviz`]: ShiViz's text log, an event and its vector clock per line,
//!   with the regular expression that parses it.
//! - [`csv`]: one row per event with its vector clock, for other tools.
//!
//! Time in the Perfetto trace is the diagram's row (a Lamport clock, one
//! row a microsecond), so that every arrow points forward; the recorded
//! time, when the log has it, is among each slice's arguments.

mod clocks;
pub mod csv;
pub mod perfetto;
pub mod shiviz;

pub use clocks::Clock;

use crate::layout::{Layout, Placed};
use clocks::Clocks;
use std::fmt;
use std::io;
use trace_capture::Namer;
use trace_causal::{Model, Step};
use trace_format::text::Printer;
use trace_format::{FormatError, LogReader, ProcId};

/// What an export wrote.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Written {
    pub processes: u64,
    pub events: u64,
    /// Arrows: flows in a Perfetto trace, receipts elsewhere.
    pub arrows: u64,
    /// Events a happened-before cycle (an inconsistent log) kept out.
    pub left_out: u64,
}

/// Why an export stopped.
#[derive(Debug)]
pub enum ExportError {
    Io(io::Error),
    Format(FormatError),
    /// The vector clocks would hold more than [`clocks::HELD_ENTRIES`]
    /// entries at once.
    TooLarge,
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportError::Io(e) => e.fmt(f),
            ExportError::Format(e) => e.fmt(f),
            ExportError::TooLarge => write!(
                f,
                "the vector clocks of this run would hold more than {} entries at once \
                 (many processes that hear of each other, many signals in flight); \
                 --perfetto needs none",
                clocks::HELD_ENTRIES
            ),
        }
    }
}

impl std::error::Error for ExportError {}

impl From<io::Error> for ExportError {
    fn from(e: io::Error) -> Self {
        ExportError::Io(e)
    }
}

/// One event as an export sees it.
pub struct Item<'s, 'e> {
    pub step: &'s Step<'e>,
    pub placed: Placed,
    /// Its vector clock, when asked for.
    pub clock: Option<&'s Clock>,
}

/// Hands `f` every event of the log in a derivation, placed, with its
/// vector clock when `clocks` is set; stops at `f`'s first error.
pub(crate) fn each(
    model: &Model,
    reader: &LogReader,
    clocks: bool,
    mut f: impl FnMut(Item<'_, '_>) -> io::Result<()>,
) -> Result<Written, ExportError> {
    let mut layout = Layout::new(model);
    let mut vc = Clocks::new(model);
    let mut failed = None;
    let mut too_large = false;
    let mut written = Written {
        processes: model.processes().len() as u64,
        ..Written::default()
    };
    let outcome = trace_causal::for_each_step(model, reader, None, |step| {
        let placed = layout.place(step);
        let clock = match clocks.then(|| vc.tick(step, &placed)).transpose() {
            Ok(c) => c,
            Err(clocks::TooLarge) => {
                too_large = true;
                return false;
            }
        };
        written.events += 1;
        written.arrows += u64::from(placed.cause.is_some());
        match f(Item {
            step,
            placed,
            clock: clock.as_deref().map(Vec::as_slice),
        }) {
            Ok(()) => true,
            Err(e) => {
                failed = Some(e);
                false
            }
        }
    })
    .map_err(ExportError::Format)?;
    if let Some(e) = failed {
        return Err(ExportError::Io(e));
    }
    if too_large {
        return Err(ExportError::TooLarge);
    }
    written.left_out = model.event_count().saturating_sub(outcome.ordered);
    Ok(written)
}

/// Vector clocks as JSON objects keyed by symbolic name, each process's
/// name made once rather than per clock entry.
pub(crate) struct ClockJson(std::collections::HashMap<ProcId, String>);

impl ClockJson {
    pub fn new(model: &Model, namer: &Namer<'_>) -> ClockJson {
        let names = model
            .processes()
            .iter()
            .map(|p| (p.id, namer.proc(p.id).to_string()));
        ClockJson(names.collect())
    }

    /// `{"P": 3, "P.1": 2}`.
    pub fn of(&self, clock: Option<&Clock>, namer: &Namer<'_>) -> serde_json::Value {
        let mut out = serde_json::Map::new();
        for &(p, n) in clock.unwrap_or_default() {
            let name = self.0.get(&p).cloned();
            out.insert(name.unwrap_or_else(|| namer.proc(p).to_string()), n.into());
        }
        serde_json::Value::Object(out)
    }
}

/// The one printer, with the one namer.
pub(crate) fn printer<'a>(reader: &'a LogReader, namer: &'a Namer<'a>) -> Printer<'a> {
    Printer {
        header: reader.header(),
        names: namer,
    }
}
