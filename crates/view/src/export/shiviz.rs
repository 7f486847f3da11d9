//! ShiViz's log: one line per event, in a derivation,
//!
//! ```text
//! P.1 "send P.1:0 to P <0.80.0>: {ping,1}" {"P":2,"P.1":1}
//! ```
//!
//! the process (its symbolic name, or raw pid), the event as the one
//! printer writes it, and its vector clock as a JSON object (the process's
//! own entry counts its events so far, from 1, as ShiViz requires). ShiViz
//! reads it with [`REGEX`], which `trace export` prints.

use super::{each, printer, ClockJson, ExportError, Written};
use std::io::Write;
use trace_capture::Namer;
use trace_causal::Model;
use trace_format::LogReader;

/// The parser regular expression to give ShiViz (JavaScript syntax, named
/// groups `host`, `event`, `clock`). The event is everything between the
/// first `"` and the last `" {` of the line: the clock holds no `" {`.
pub const REGEX: &str = r#"(?<host>\S+) "(?<event>.*)" (?<clock>\{.*\})"#;

/// Writes the log of the whole run.
pub fn write(
    model: &Model,
    reader: &LogReader,
    out: &mut dyn Write,
) -> Result<Written, ExportError> {
    let namer = Namer::new(model.names());
    let printer = printer(reader, &namer);
    let clocks = ClockJson::new(model, &namer);
    each(model, reader, true, |item| {
        let e = item.step.event;
        let text = one_line(&printer.event(&item.step.as_event_ref()));
        writeln!(
            out,
            "{} \"{text}\" {}",
            namer.proc(e.proc),
            clocks.of(item.clock, &namer)
        )
    })
}

/// The text on one line (the printer writes one line; a payload's control
/// characters are escaped by `~p`, but a name could still hold a newline).
fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}
