//! `trace record`: an Observer that streams every event of a run into the
//! log writer, and the driver that runs a program under it — once, or again
//! and again until a run fails (`--until-failure`, optionally with chaos
//! scheduling).
//!
//! Data flow: engine event (per process, on the thread running it) →
//! [`observer::ProcessRecorder`] (translated to log identities, payloads
//! encoded as ETF, buffered without locks for the slice) → at the end of the
//! slice, one hand-over to the format crate's `ProcessWriter` → blocks →
//! file. (Encoding on the scheduler threads was measured against handing
//! terms to an encoder thread: moving terms across threads cost three times
//! more than encoding them where they are.) [`session`] wires a run to a log; [`hunt`] repeats runs and
//! [`failure`] decides which ones failed.

pub mod failure;
pub mod hunt;
pub mod observer;
pub mod pidmap;
pub mod session;
pub mod translate;

pub use failure::{Expectations, Failure};
pub use hunt::{hunt, HuntConfig, HuntResult};
pub use observer::{RecordFlags, Recorder};
pub use session::{record, RecordConfig, Recording};
