//! Where a log is written while it is recorded: a fresh file beside the
//! output, `OUT.recording-PID`, renamed onto `OUT` when the run ends. Two
//! recorders given one output never write into the same file (the last to
//! finish wins, whole); a run killed before its end (SIGKILL, power loss)
//! leaves its log under the partial name, readable up to its last complete
//! block. Checked before the run: the output must be a regular file or not
//! exist yet, and its directory must take a new file.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

/// The two names of a log being recorded.
#[derive(Clone, Debug)]
pub struct Output {
    /// Where the finished log goes.
    pub path: PathBuf,
    /// Where it is written meanwhile.
    pub partial: PathBuf,
}

/// The partial name of a log recorded into `out` by this process.
pub fn partial_path(out: &Path) -> PathBuf {
    sibling(out, "recording")
}

/// `out`'s name with `.TAG-PID` added, beside it: a file of this process
/// only, so two processes working for one output never share one.
pub fn sibling(out: &Path, tag: &str) -> PathBuf {
    let mut name: OsString = out
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(format!(".{tag}-{}", std::process::id()));
    out.with_file_name(name)
}

/// Checks that a log can be recorded into `out` and names its partial file.
/// A link is followed: the log replaces the file it points to.
pub fn prepare(out: &Path) -> io::Result<Output> {
    let path = match std::fs::symlink_metadata(out) {
        Ok(m) if m.file_type().is_symlink() => out.canonicalize()?,
        _ => out.to_path_buf(),
    };
    match std::fs::metadata(&path) {
        Ok(m) if !m.is_file() => {
            let what = if m.is_dir() {
                "a directory"
            } else {
                "not a regular file (a device, a pipe or a socket)"
            };
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{what}: a log is written to a regular file, created or replaced whole"),
            ));
        }
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    if path.file_name().is_none() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "names a directory: a log is written to a file",
        ));
    }
    Ok(Output {
        partial: partial_path(&path),
        path,
    })
}

impl Output {
    /// Puts the finished log in place.
    pub fn commit(&self) -> io::Result<()> {
        std::fs::rename(&self.partial, &self.path)
    }
}
