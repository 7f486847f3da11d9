//! `trace why`: declarative debugging of a recorded run (Caballero et al.
//! 2016's EDD, over the calculus of Caballero et al. 2019). The user is asked about
//! the computation's steps, never about its code — "this process, in this
//! state, consumed this message and ended here having sent these messages:
//! correct?" — and the answers walk a debugging tree down to a buggy node:
//! an erroneous transition, a `receive` that wrongly succeeded or failed,
//! or a function that returned a wrong result.
//!
//! ```text
//! program + run.trace ──observe (replay, every choice forced, calls reported)──► Observed
//!     ──tree::build──► Tree: run ─ processes ─ transitions ─ evaluations; deadlocks
//!     ──session (top-down | divide & query; start node)──► questions
//!           answered by oracles (spec: trace-check; good run: trace-diff) or the user
//!     ──► Outcome ──report──► the buggy node, its code and source lines, --until
//! ```

pub mod answer;
mod error;
pub mod observe;
pub mod oracle;
pub mod question;
pub mod report;
pub mod session;
mod start;
pub mod tree;

pub use answer::{Answer, BadAnswer, Item};
pub use error::{TooBig, TreeError};
pub use oracle::{Oracle, WrongEvents};
pub use session::{Asked, Outcome, Session, Strategy, User};
pub use start::resolve_start;
pub use tree::{NodeId, Tree};

use std::sync::Arc;
use trace_format::LogReader;
use trace_runtime::Loaded;

/// Nodes a debugging tree may have unless the user says otherwise.
pub const DEFAULT_MAX_NODES: usize = 200_000;

/// Builds the debugging tree of the run `log` records, replaying it with
/// `loaded` (which must be loaded with debug information for bindings).
/// Refuses a log of another program (unless `force`), a replay that
/// departs from the log, and a tree over `max_nodes`.
pub fn debugging_tree(
    loaded: &Loaded,
    log: &Arc<LogReader>,
    force: bool,
    max_nodes: usize,
) -> Result<Tree, TreeError> {
    trace_replayer::refuse_other_program(log.header(), loaded, force, "debugs")
        .map_err(TreeError::Refused)?;
    let observed = observe::observe(loaded, log, max_nodes);
    if let Some(f) = observed.failure {
        return Err(f);
    }
    tree::build(&observed, max_nodes).map_err(|e| TreeError::Refused(e.to_string()))
}
