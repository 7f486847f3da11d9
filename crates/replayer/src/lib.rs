//! Replay with the program: re-executes a recorded run on the engine with a
//! Director that forces every choice the log records (which message each
//! receive takes, each timeout, where each signal lands, spawned pids,
//! nondeterministic results, the order of writes to standard output). Only
//! choices are forced, not the interleaving: the replay runs on as many
//! scheduler threads as the user likes and reproduces the same output, exit
//! reasons, crashes and deadlocks.
//!
//! Data flow: the log ([`trace_format::LogReader`]) → [`identity`] checks it
//! was recorded from this program → [`director::LogDirector`] gives each
//! process, as it starts, a [`cursor::ProcessReplay`] over its process log,
//! read a block at a time (`window`) →
//! the engine asks the cursor for every choice and shows it every event,
//! which must be the next one of the log ([`expect`]) → [`session::replay`]
//! runs it and reports the outcome, the first divergence, and the logged
//! events that could not happen. Each process may be held at a prefix of
//! its log; which prefixes (the causal past of one event, the consistent
//! part of a log cut short) is decided above, by trace-causal-replay.

pub mod cursor;
pub mod director;
pub mod expect;
pub mod identity;
mod replay_log;
pub mod session;
mod window;

pub use identity::{check_identity, refuse_other_program, IdentityMismatch};
pub use session::{
    in_tool_replay, replay, replay_options, ReplayConfig, ReplayError, ReplayResult, Stuck,
};
