//! Is this the program the log was recorded from? The header names every
//! module with a hash of its source; a replay against edited sources would
//! diverge somewhere in the middle, so it is refused up front (unless the
//! user forces it).

use trace_format::Header;
use trace_runtime::Loaded;

/// How the program differs from the one recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdentityMismatch {
    /// The log has a module the program does not.
    Missing(String),
    /// The program has a module the log does not.
    Extra(String),
    /// The module's source changed since the recording.
    Changed { module: String, path: String },
}

impl std::fmt::Display for IdentityMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IdentityMismatch::Missing(m) => {
                write!(f, "module {m} was recorded but is not given")
            }
            IdentityMismatch::Extra(m) => write!(f, "module {m} was not part of the recording"),
            IdentityMismatch::Changed { module, path } => {
                write!(f, "module {module} ({path}) changed since it was recorded")
            }
        }
    }
}

/// Every difference between the recorded program and `loaded`.
pub fn check_identity(header: &Header, loaded: &Loaded) -> Vec<IdentityMismatch> {
    let mut out = Vec::new();
    for m in &header.modules {
        match loaded.modules.iter().find(|l| l.name == m.name) {
            None => out.push(IdentityMismatch::Missing(m.name.clone())),
            Some(l) if l.hash != m.hash => out.push(IdentityMismatch::Changed {
                module: m.name.clone(),
                path: l.path.display().to_string(),
            }),
            Some(_) => {}
        }
    }
    for l in &loaded.modules {
        if !header.modules.iter().any(|m| m.name == l.name) {
            out.push(IdentityMismatch::Extra(l.name.clone()));
        }
    }
    out
}

/// What a user is told when the program differs from the recorded one:
/// every difference, and what `--force` does instead (`replays`, `debugs`).
pub fn not_the_program(mismatches: &[IdentityMismatch], force_does: &str) -> String {
    let parts: Vec<String> = mismatches.iter().map(|m| m.to_string()).collect();
    format!(
        "this is not the program the log was recorded from: {} (--force {force_does} anyway)",
        parts.join("; ")
    )
}

/// Refuses a program other than the one `header` was recorded from,
/// unless `force`.
pub fn refuse_other_program(
    header: &Header,
    loaded: &Loaded,
    force: bool,
    force_does: &str,
) -> Result<(), String> {
    let mismatches = check_identity(header, loaded);
    match mismatches.is_empty() || force {
        true => Ok(()),
        false => Err(not_the_program(&mismatches, force_does)),
    }
}
