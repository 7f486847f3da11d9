//! How this crate's reports name things: processes, messages and events
//! through the one namer, and the small words of its sentences.

use crate::facts::{Destination, EventId};
use crate::model::Model;
use trace_format::text::Printer;
use trace_format::Header;

/// Names processes, messages and events in this crate's reports: the one
/// namer (cached, see [`trace_capture::Namer`]) beside the model a report
/// looks facts up in.
pub struct Namer<'a> {
    pub model: &'a Model,
    names: trace_capture::Namer<'a>,
}

impl<'a> std::ops::Deref for Namer<'a> {
    type Target = trace_capture::Namer<'a>;

    fn deref(&self) -> &Self::Target {
        &self.names
    }
}

impl<'a> Namer<'a> {
    pub fn new(model: &'a Model) -> Self {
        Namer {
            model,
            names: trace_capture::Namer::new(model.names()),
        }
    }

    /// `P.1#3`.
    pub fn event(&self, e: EventId) -> String {
        self.names.event_name(e.proc, e.index)
    }

    /// `P.1#3 <0.81.0>`: the event and its process's raw pid, for the event a
    /// finding is about.
    pub fn event_at(&self, e: EventId) -> String {
        self.names.event_at(e.proc, e.index)
    }

    pub(crate) fn destination(&self, d: Destination) -> String {
        match d {
            Destination::Proc(p) => self.label(p).to_string(),
            Destination::Foreign => "a pid outside this log".into(),
            Destination::Unknown => "an unrecorded destination".into(),
        }
    }

    /// The printer of events, with these names.
    pub fn printer<'p>(&'p self, header: &'p Header) -> Printer<'p> {
        Printer {
            header,
            names: &self.names,
        }
    }
}

/// "a link signal", "an exit signal".
pub(crate) fn a(what: &str) -> String {
    let vowel = what.starts_with(['a', 'e', 'i', 'o', 'u']);
    format!("{} {what}", if vowel { "an" } else { "a" })
}

pub(crate) fn count(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}
