//! What the engine did against what the log says: engine events are turned
//! into log events with the recorder's own mapping and compared; both sides
//! are rendered as `trace dump` prints events, for divergence reports.

use trace_format::text::{self, Context};
use trace_format::{Event, EventRef, Header, MsgId, ProcId};

/// Renders events of one log the way `trace dump` does.
pub struct Describe<'a> {
    pub header: &'a Header,
    pub pids: &'a [u64],
}

impl Describe<'_> {
    /// `event` as process `proc`'s event number `index`, without the
    /// process and index prefix that `trace dump` puts first.
    pub fn event(&self, proc: ProcId, index: u64, signal: MsgId, e: &Event) -> String {
        let pid_of = |p: ProcId| self.pids.get(p.0 as usize).copied();
        let cx = Context {
            header: self.header,
            pid_of: &pid_of,
        };
        let line = text::line(&cx, proc, index, None, &EventRef::of(e, signal));
        // Drop "N <0.P.0> #I " — the report names the process itself.
        match line.split_once(&format!("#{index} ")) {
            Some((_, rest)) => rest.to_string(),
            None => line,
        }
    }
}
