//! The event codec: how one block's events become bytes (before zstd) and back.
//! docs/format.md §5 is the byte-level description; this module is its
//! implementation.
//!
//! Every event starts with a tag byte: the high 3 bits are an opcode, the low
//! 5 bits an operand. For the frequent events the operand is a slot of a
//! move-to-front predictor ([`cache`]), so a send to a recent destination or a
//! receive of the message expected next from a recent sender is one byte.
//! Everything else is LEB128 varints ([`crate::varint`]). The predictors start
//! empty at each block, so every block decodes on its own.

pub mod cache;
mod decode;
mod encode;
mod evicted;

pub use decode::{BlockDecoder, CodecError, DecoderState};
pub use encode::{BlockEncoder, SharedOp};

use crate::event::{Access, NondetKind, ObjectKind};

/// Tag opcodes (high 3 bits).
pub mod op {
    /// Send without payload; operand = destination slot, or [`super::EXPLICIT`].
    pub const SEND: u8 = 0;
    /// Send with payload (varint length + ETF bytes after the destination).
    pub const SEND_PAYLOAD: u8 = 1;
    /// Receive of the index expected from the sender; operand = sender slot or explicit.
    pub const RECEIVE: u8 = 2;
    /// Receive at expected index + zigzag varint delta.
    pub const RECEIVE_DELTA: u8 = 3;
    /// As RECEIVE, for deliveries (own predictor).
    pub const DELIVER: u8 = 4;
    pub const DELIVER_DELTA: u8 = 5;
    /// The rarer events; operand = [`super::sub`] code.
    pub const OTHER: u8 = 6;
    /// An operation on shared state (version 2); operand = object slot, or
    /// [`super::cache::OBJECT_NONE`], or [`super::EXPLICIT`].
    pub const SHARED: u8 = 7;
}

/// Operand meaning "the value follows explicitly".
pub const EXPLICIT: u8 = 31;

/// Sub-operations of [`op::OTHER`].
pub mod sub {
    pub const TIMEOUT: u8 = 0;
    pub const EXIT: u8 = 1;
    pub const EXIT_REASON: u8 = 2;
    /// 3..=6: spawn; +1 if linked, +2 if monitored.
    pub const SPAWN: u8 = 3;
    pub const LINK: u8 = 7;
    pub const UNLINK: u8 = 8;
    pub const MONITOR: u8 = 9;
    pub const DEMONITOR: u8 = 10;
    /// 11..=14: exit signal; +1 if it carries a reason, +2 if link-triggered.
    pub const EXIT_SIGNAL: u8 = 11;
    pub const DOWN: u8 = 15;
    pub const DOWN_REASON: u8 = 16;
    /// 17..=20: signal taken; + effect (applied, ignored, converted, killed).
    pub const SIGNAL_TAKEN: u8 = 17;
    pub const NONDET: u8 = 21;
    pub const OUTPUT: u8 = 22;
    pub const OUTPUT_BYTES: u8 = 23;
    /// The run ended with the process idle in `receive` (version 2).
    pub const BLOCKED_IDLE: u8 = 24;
    /// The run ended with the process stuck in `receive` (version 2).
    pub const BLOCKED_STUCK: u8 = 25;
    /// First unused code; 26..=31 are reserved.
    pub const END: u8 = 26;
}

/// The head varint of a SHARED event: the function (an index into the
/// header's `shared_functions`), the access, and whether a name and a key
/// follow.
pub fn shared_head(function: u16, access: Access, name: bool, key: bool) -> u64 {
    ((function as u64) << 5) | ((access as u64) << 2) | ((name as u64) << 1) | key as u64
}

/// [`shared_head`] read back: `None` for an access code no version defines.
pub fn shared_head_parts(head: u64) -> Option<(u16, Access, bool, bool)> {
    let function = u16::try_from(head >> 5).ok()?;
    let access = *Access::ALL.get(((head >> 2) & 7) as usize)?;
    Some((function, access, head & 2 != 0, head & 1 != 0))
}

/// The number a shared object's kind is written as.
pub fn object_kind_code(k: ObjectKind) -> u64 {
    k as u64
}

pub fn object_kind(code: u64) -> Option<ObjectKind> {
    ObjectKind::ALL.get(usize::try_from(code).ok()?).copied()
}

#[inline]
pub fn tag(op: u8, operand: u8) -> u8 {
    (op << 5) | operand
}

/// The number a `Nondet` event stores for its kind.
pub fn nondet_code(kind: NondetKind) -> u64 {
    match kind {
        NondetKind::MonotonicTime => 0,
        NondetKind::SystemTime => 1,
        NondetKind::Timestamp => 2,
        NondetKind::UniqueInteger => 3,
        NondetKind::Random => 4,
        NondetKind::Whereis => 5,
        NondetKind::Register => 6,
        NondetKind::Registered => 7,
        NondetKind::IsProcessAlive => 8,
        NondetKind::Processes => 9,
        NondetKind::ProcessInfo => 10,
        NondetKind::Other(n) => 11 + n as u64,
    }
}

pub fn nondet_kind(code: u64) -> Option<NondetKind> {
    Some(match code {
        0 => NondetKind::MonotonicTime,
        1 => NondetKind::SystemTime,
        2 => NondetKind::Timestamp,
        3 => NondetKind::UniqueInteger,
        4 => NondetKind::Random,
        5 => NondetKind::Whereis,
        6 => NondetKind::Register,
        7 => NondetKind::Registered,
        8 => NondetKind::IsProcessAlive,
        9 => NondetKind::Processes,
        10 => NondetKind::ProcessInfo,
        n => NondetKind::Other(u16::try_from(n - 11).ok()?),
    })
}

/// Destination codes (explicit destinations): low 2 bits are the kind.
pub mod dest {
    pub const PROC: u64 = 0;
    pub const FOREIGN: u64 = 1;
    pub const UNKNOWN: u64 = 2;
    /// A foreign pid number too large for the short form; a second varint holds it.
    pub const FOREIGN_WIDE: u64 = 3;
}

#[cfg(test)]
mod tests;
