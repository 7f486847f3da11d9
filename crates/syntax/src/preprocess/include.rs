//! `-include` and `-include_lib`: finding the file, reading it, and
//! preprocessing it in place (its macros stay defined afterwards).
//!
//! Search order: the including file's directory, then the include paths of
//! [`ParseOptions`](crate::ParseOptions). `-include_lib("app/include/x.hrl")`
//! is first looked up the same way, then without its leading `app/`
//! components; OTP's own libraries are not available.

use super::{Preprocessor, MAX_INCLUDE_DEPTH};
use crate::ast::{FileId, Pos};
use crate::diag::DiagKind;
use std::io;
use std::path::{Path, PathBuf};

#[derive(Copy, Clone, PartialEq, Eq)]
pub(super) enum IncludeKind {
    Local,
    Lib,
}

/// The largest source file read (a device or pipe is cut there): a module
/// that size already takes gigabytes to compile.
pub const MAX_SOURCE_BYTES: u64 = 64 << 20;

/// Reads a source file: UTF-8, or Latin-1 when it is not valid UTF-8 (as epp
/// falls back).
pub fn read_source(path: &Path) -> io::Result<String> {
    let bytes = trace_input::read(path, MAX_SOURCE_BYTES, "a source file")?;
    Ok(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => e.into_bytes().into_iter().map(char::from).collect(),
    })
}

/// An I/O error in erlc's words.
pub fn io_message(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file or directory".into(),
        io::ErrorKind::PermissionDenied => "permission denied".into(),
        io::ErrorKind::IsADirectory => "illegal operation on a directory".into(),
        _ => e.to_string().to_lowercase(),
    }
}

impl Preprocessor<'_> {
    fn search_dirs(&self, from: FileId) -> Vec<PathBuf> {
        let here = self
            .sources
            .path(from)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        std::iter::once(here)
            .chain(self.opts.include_paths.iter().cloned())
            .collect()
    }

    fn find(&self, name: &Path, from: FileId) -> Option<PathBuf> {
        if name.is_absolute() {
            return name.is_file().then(|| name.to_path_buf());
        }
        self.search_dirs(from)
            .into_iter()
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    }

    fn find_lib(&self, name: &Path, from: FileId) -> Option<PathBuf> {
        let parts: Vec<_> = name.components().collect();
        (0..parts.len()).find_map(|skip| {
            let rest: PathBuf = parts[skip..].iter().collect();
            self.find(&rest, from)
        })
    }

    pub(super) fn include(&mut self, kind: IncludeKind, name: &str, at: Pos) {
        let found = match kind {
            IncludeKind::Local => self.find(Path::new(name), at.file),
            IncludeKind::Lib => self.find_lib(Path::new(name), at.file),
        };
        let Some(path) = found else {
            return match kind {
                // A compile error, as for erlc (not trouble with the files given).
                IncludeKind::Local => self.error(
                    DiagKind::Semantic,
                    at,
                    format!("can't find include file \"{name}\""),
                ),
                IncludeKind::Lib => self.error(
                    DiagKind::Unsupported,
                    at,
                    format!(
                        "can't find include lib \"{name}\": only local includes are supported \
                         (looked in the including file's directory and the include paths)"
                    ),
                ),
            };
        };
        if self.include_depth >= MAX_INCLUDE_DEPTH {
            let message = format!("includes nested too deeply (over {MAX_INCLUDE_DEPTH} levels)");
            return self.error(DiagKind::Unsupported, at, message);
        }
        let Ok(file) = FileId::try_from(self.sources.files.len()) else {
            return self.error(DiagKind::Unsupported, at, "too many included files");
        };
        let source = match read_source(&path) {
            Ok(source) => source,
            Err(e) => {
                let message = format!("can't read include file \"{name}\": {}", io_message(&e));
                return self.error(DiagKind::Io, at, message);
            }
        };
        self.sources.files.push(path);
        self.include_depth += 1;
        self.run_file(file, &source);
        self.include_depth -= 1;
    }
}
