//! The engine: runs Erlang source with BEAM's semantics, and lets every event
//! be observed and every nondeterministic choice be decided by hooks.
//!
//! Data flow: source files or a [`project`] directory → [`load`] (front end
//! from `trace-syntax`, then [`compiler`] to the instruction set of [`ir`],
//! with the [`prelude`] modules the program can reach, [`link`]ed into a
//! [`code::Program`]) → [`sched::run`], where scheduler threads run
//! lightweight [`process`]es slice by slice in the [`vm`], calling the
//! built-ins of [`bif`]. State processes share besides messages lives in
//! [`ets`] (tables) and [`shared`] (arrays, `persistent_term`, and the
//! protocol every operation on shared state follows). Every event goes to
//! an [`hooks::Observer`] and every choice to a [`hooks::Director`]; `trace
//! run` uses the native hooks. A Director may take over a run once it has
//! settled and read its processes through [`inspect`] (a debugger).

pub mod bif;
pub mod code;
pub mod code_check;
pub mod compiler;
pub mod ets;
pub mod exception;
pub mod frames;
pub mod hooks;
pub mod inspect;
pub mod ir;
pub mod link;
pub mod load;
pub mod otp;
pub mod prelude;
pub mod process;
pub mod project;
pub mod sched;
pub mod shared;
pub mod verdict;
pub mod vm;

pub use hooks::{Director, Observer};
pub use load::{entry, load, LoadOptions, Loaded, ModuleIdentity};
pub use sched::{
    run, Blocked, Chaos, Crash, EndRule, Entry, EntryOutcome, Limit, RunOptions, RunOutcome,
    Runtime, Waiting, MAX_SCHEDULERS,
};
pub use verdict::Verdict;
