//! `trace record`: an Observer that streams every event of a run into the
//! log writer, and the session that runs a program under it.
//!
//! Data flow: engine event (per process, on the thread running it) →
//! [`observer::ProcessRecorder`] (mapped to the log's vocabulary by the
//! capture layer, payloads encoded as ETF, written into the process's open
//! block without contention) → the format crate's writer → blocks → file.
//! (Encoding on the scheduler threads was measured against handing terms to
//! an encoder thread: moving terms across threads cost three times more than
//! encoding them where they are.) [`session`] wires one run to one log:
//! header, run, footer.
//!
//! The recorder knows nothing of replay or of analysis: searching for a
//! failing run (`--until-failure`) is a driver above it (`trace-search`).
//! [`output`] says where the log lies while it is written.

pub mod observer;
pub mod output;
pub mod session;

pub use observer::Recorder;
pub use session::{
    record, record_directed, record_observed, Captured, Progress, RecordConfig, Recording,
};
pub use trace_capture::RecordFlags;
