//! `trace record`: an Observer that streams every event of a run into the
//! log writer, and the driver that runs a program under it — once, or again
//! and again until a run fails (`--until-failure`, optionally with chaos
//! scheduling).
//!
//! Data flow: engine event (per process, on the thread running it) →
//! [`observer::ProcessRecorder`] (translated to log identities, staged
//! without locks for the slice, payloads still terms) → at the end of the
//! slice, one batch to the [`encoder`] thread (ETF, block codec, into the
//! format crate's `ProcessWriter`) → blocks → file. [`session`] wires a run to a log; [`hunt`] repeats runs and
//! [`failure`] decides which ones failed.

pub mod encoder;
pub mod failure;
pub mod hunt;
pub mod observer;
mod pidmap;
pub mod session;
pub mod staged;
pub mod translate;

pub use failure::{Expectations, Failure};
pub use hunt::{hunt, HuntConfig, HuntResult};
pub use observer::{RecordFlags, Recorder};
pub use session::{record, RecordConfig, Recording};
