//! Searching for a failing run: record runs of a program again and again
//! (`trace record --until-failure`, optionally with chaos scheduling) and
//! keep the first that fails.
//!
//! A driver: it runs the recorder, judges each run ([`failure`]: a crash, a
//! deadlock, a result or output other than expected, or a property of a
//! specification violated, which the checker decides on the run's log), and
//! keeps that run's log. Nothing below it knows about it.

pub mod failing_run;
pub mod failure;
mod watch;

pub use failing_run::{find_failing_run, Found, SearchConfig, SearchProgress, SearchResult};
pub use failure::{Expectations, Failure};
