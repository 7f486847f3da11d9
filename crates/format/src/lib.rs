//! The `trace` log format (docs/format.md): a versioned, compressed,
//! crash-safe, random-access container of per-process event logs.

pub mod cauder;
pub mod codec;
pub mod container;
pub mod error;
pub mod event;
pub mod meta;
pub mod reader;
mod sniff;
pub mod stats;
pub mod text;
pub mod varint;
pub mod view;
pub mod writer;

pub use error::{FormatError, Warning};
pub use event::{
    Dest, Event, MsgId, NondetKind, Payload, ProcId, ProcessLog, SignalEffect, SignalKind,
};
pub use meta::{BlockEntry, Footer, Header, ModuleInfo, Outcome, ProcessEntry, RunEnd, RunOptions};
pub use reader::{BlockInfo, Events, LogReader, ProcessInfo};
pub use view::{EventRef, SignalKindRef};
pub use writer::{LogWriter, ProcessWriter, Slice, Summary, WriterOptions};
