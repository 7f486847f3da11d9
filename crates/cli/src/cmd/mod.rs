//! One module per subcommand.

pub mod check;
pub mod diff;
pub mod dump;
pub mod export;
pub mod import;
pub mod record;
pub mod replay;
pub mod run;
pub mod stats;
