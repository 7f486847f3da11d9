//! The `trace` log format (docs/format.md): a versioned, compressed,
//! crash-safe, random-access container of per-process event logs.

pub mod codec;
pub mod event;
pub mod varint;
pub mod view;

pub use event::{
    Dest, Event, MsgId, NondetKind, Payload, ProcId, ProcessLog, SignalEffect, SignalKind,
};
pub use view::{EventRef, SignalKindRef};
