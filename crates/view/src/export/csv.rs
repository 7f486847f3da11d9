//! One row per event, in a derivation (RFC 4180: a header row, fields
//! with commas, quotes or line breaks quoted):
//!
//! ```text
//! step,process,pid,index,kind,event,row,time_ns,cause,vector_clock
//! 3,P.1,<0.81.0>,0,receive,receive P:0,2,,P#1,"{""P"":2,""P.1"":1}"
//! ```
//!
//! `event` is the event as the one printer writes it, `row` its row in the
//! diagram, `cause` the event it received (in the EVENT syntax), and
//! `vector_clock` the size of its causal past in each process, as JSON.

use super::{each, printer, ClockJson, ExportError, Written};
use std::io::Write;
use trace_capture::Namer;
use trace_causal::Model;
use trace_format::text::pid_text;
use trace_format::LogReader;

pub const HEADER: &str = "step,process,pid,index,kind,event,row,time_ns,cause,vector_clock";

/// Writes the rows of the whole run.
pub fn write(
    model: &Model,
    reader: &LogReader,
    out: &mut dyn Write,
) -> Result<Written, ExportError> {
    let namer = Namer::new(model.names());
    let printer = printer(reader, &namer);
    let clocks = ClockJson::new(model, &namer);
    writeln!(out, "{HEADER}")?;
    each(model, reader, true, |item| {
        let step = item.step;
        let e = step.event;
        let ev = step.as_event_ref();
        let clock = clocks.of(item.clock, &namer);
        let cause = item
            .placed
            .cause
            .map(|(c, _)| namer.event_name(c.proc, c.index))
            .unwrap_or_default();
        let fields = [
            step.number.to_string(),
            namer.proc(e.proc).to_string(),
            model.names().pid(e.proc).map(pid_text).unwrap_or_default(),
            e.index.to_string(),
            ev.kind().name().to_string(),
            printer.event(&ev),
            item.placed.row.to_string(),
            step.time.map(|t| t.to_string()).unwrap_or_default(),
            cause,
            clock.to_string(),
        ];
        let line: Vec<String> = fields.iter().map(|f| field(f)).collect();
        writeln!(out, "{}", line.join(","))
    })
}

/// A field, quoted when it must be.
pub fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::field;

    #[test]
    fn fields_are_quoted_only_when_they_must_be() {
        assert_eq!(field("receive P:0"), "receive P:0");
        assert_eq!(field("{a,b}"), "\"{a,b}\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(field("a\nb"), "\"a\nb\"");
    }
}
