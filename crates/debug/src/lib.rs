//! `trace debug`: causal-consistent reversible debugging of a recorded run
//! (CauDEr's workflow, seeds 001 and 003, in the terminal and scriptable).
//! A session stands at a consistent cut of the run; the user steps a
//! process forwards or backwards, rolls an event back with everything that
//! causally depends on it, replays forwards to an event with all its
//! causes, and looks at processes: their place in the source, variables,
//! mailbox, history, links and monitors.
//!
//! ```text
//! command line ──► command::Command ──► session::Session
//!                                          │ cut: rollback / forward / step (causal model)
//!                                          ▼
//!                       engine::materialise: replay to the cut, read the settled run
//!                                          │
//!                                          ▼
//!                   render / show: procs, show, log, trace, what changed;  save: a log
//! ```
//!
//! Without a log, the user schedules the run ([`free`], [`schedule`]): each
//! step runs the program again in the engine's controlled mode under the
//! recorder, and the session stands on that run's log.
//!
//! Every state is brought to life by a fresh replay of the program to its
//! cut (the replayer's Director holding each process there), so a state is
//! exactly what a forward replay to the same cut gives, whatever commands
//! led to it. Memory is the log and its causal model; each command costs a
//! replay of the events the cut holds (docs/debug.md).

pub mod command;
pub mod cut;
pub mod engine;
pub mod free;
pub mod render;
pub mod save;
mod scan;
pub mod schedule;
pub mod session;
mod show;
mod var;
mod words;

pub use command::{Command, HELP};
pub use cut::Cut;
pub use free::FreeConfig;
pub use session::{Flow, Session};
