//! `trace explore`: runs a program under every interleaving that can
//! change what it does, once per class of equivalent interleavings
//! (source-set dynamic partial-order reduction over the engine's
//! controlled mode), and reports the failures found, each with the
//! simplest failing schedule.

pub mod control;
pub mod dpor;
pub mod explain;
pub mod explore;
pub mod step;

pub use control::Timeouts;
pub use dpor::{Bound, BoundKind};
pub use explain::{explain, Explanation, StepInfo};
pub use explore::{explore, record_schedule, Config, Group, Progress, Stop, Summary};
