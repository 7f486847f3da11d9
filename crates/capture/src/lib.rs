//! The capture layer: the one vocabulary between the engine and the log.
//!
//! Recording and replay are siblings over this crate, as rr's record and
//! replay sessions are over its trace stream: the recorder writes what
//! [`mapping`] makes of each engine event, and the replayer compares each
//! engine event, mapped the same way, with the logged one. Nothing here runs
//! a program or reads a whole log.
//!
//! ```text
//! engine event (raw pids, terms) ──mapping──► log event (dense ids, ETF)
//!                                   ▲
//!              pidmap: raw pid → dense id      flags: what a log keeps
//! log process table ──names──► symbolic names (P, P.2, P.2.1), printed by
//!                              trace_format::text for every command
//! ```
//!
//! - [`flags`]: which optional parts of a run a log keeps.
//! - [`pidmap`]: engine pid → the process's dense id in the log.
//! - [`mapping`]: engine event → log event, and the names of the
//!   nondeterministic built-ins a header lists.
//! - [`names`]: symbolic process names from the spawn tree, the one namer
//!   of every command; [`event_spec`]: the EVENT syntax users name
//!   processes, messages and events with (docs/events.md).

mod cursor;
pub mod event_spec;
pub mod flags;
pub mod mapping;
pub mod names;
pub mod pidmap;

pub use cursor::SyntaxError;
pub use event_spec::{EventSpec, MsgRef, ProcRef};
pub use flags::RecordFlags;
pub use mapping::{Translator, OTHER_NONDET};
pub use names::{LookupError, Namer, Names, SymbolicName, TableRow, NO_ROW};
pub use pidmap::PidMap;
