//! What the engine did against what the log says, as a divergence report
//! shows it: both sides rendered as `trace replay` prints events, with the
//! one namer's symbolic names.

use trace_capture::Names;
use trace_format::text::Printer;
use trace_format::{Event, EventRef, Header, MsgId};

/// `event` as `trace replay` prints it, without the process and index
/// prefix (the report names the process itself); `signal` is the identity
/// a `Send` or `Signal` takes.
pub fn describe(header: &Header, names: &Names, signal: MsgId, e: &Event) -> String {
    Printer { header, names }.event(&EventRef::of(e, signal))
}
