//! Why no debugging tree was built: the replay departed from the log, or
//! the run was refused (another program, something unsupported, a tree over
//! its node budget).

/// Why no debugging tree was built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TreeError {
    /// The replay departed from the log: not the run this program makes.
    Diverged(String),
    /// Another program, an entry it lacks, something the engine does not
    /// support, a tree over its node budget.
    Refused(String),
}

impl std::fmt::Display for TreeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TreeError::Diverged(s) | TreeError::Refused(s) => f.write_str(s),
        }
    }
}

/// The tree would pass the node budget (the observation stops there too).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooBig {
    pub budget: usize,
}

impl std::fmt::Display for TooBig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the debugging tree of this run has more than {} nodes (--max-nodes): \
             record a shorter run, or raise the budget",
            self.budget
        )
    }
}
