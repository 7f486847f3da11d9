//! What the engine did against what the log says, as a divergence report
//! shows it: both sides rendered as `trace replay` prints events, with the
//! one namer's symbolic names.

use trace_capture::Names;
use trace_format::text::{self, Context};
use trace_format::{Event, EventRef, Header, MsgId, ProcId};

/// `event` as process `proc`'s event number `index`, as `trace replay`
/// prints it, without the process and index prefix (the report names the
/// process itself).
pub fn describe(
    header: &Header,
    names: &Names,
    proc: ProcId,
    index: u64,
    signal: MsgId,
    e: &Event,
) -> String {
    let pid_of = |p: ProcId| names.pid(p);
    let cx = Context {
        header,
        pid_of: &pid_of,
    };
    let line = text::line_named(&cx, names, proc, index, None, &EventRef::of(e, signal));
    match line.split_once(&format!("#{index} ")) {
        Some((_, rest)) => rest.to_string(),
        None => line,
    }
}
