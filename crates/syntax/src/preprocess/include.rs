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

/// Reads a source file: UTF-8, or Latin-1 when it is not valid UTF-8 (as epp
/// falls back).
pub fn read_source(path: &Path) -> io::Result<String> {
    let bytes = std::fs::read(path)?;
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

fn search_dirs(pp: &Preprocessor<'_>, from: FileId) -> Vec<PathBuf> {
    let here = pp
        .sources
        .path(from)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    std::iter::once(here)
        .chain(pp.opts.include_paths.iter().cloned())
        .collect()
}

fn find(pp: &Preprocessor<'_>, name: &Path, from: FileId) -> Option<PathBuf> {
    if name.is_absolute() {
        return name.is_file().then(|| name.to_path_buf());
    }
    search_dirs(pp, from)
        .into_iter()
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

fn find_lib(pp: &Preprocessor<'_>, name: &Path, from: FileId) -> Option<PathBuf> {
    let parts: Vec<_> = name.components().collect();
    (0..parts.len()).find_map(|skip| {
        let rest: PathBuf = parts[skip..].iter().collect();
        find(pp, &rest, from)
    })
}

pub(super) fn include(pp: &mut Preprocessor<'_>, kind: IncludeKind, name: &str, at: Pos) {
    let found = match kind {
        IncludeKind::Local => find(pp, Path::new(name), at.file),
        IncludeKind::Lib => find_lib(pp, Path::new(name), at.file),
    };
    let Some(path) = found else {
        return match kind {
            // A compile error, as for erlc (not trouble with the files given).
            IncludeKind::Local => pp.error(
                DiagKind::Semantic,
                at,
                format!("can't find include file \"{name}\""),
            ),
            IncludeKind::Lib => pp.error(
                DiagKind::Unsupported,
                at,
                format!(
                    "can't find include lib \"{name}\": only local includes are supported \
                     (looked in the including file's directory and the include paths)"
                ),
            ),
        };
    };
    if pp.include_depth >= MAX_INCLUDE_DEPTH {
        let message = format!("includes nested too deeply (over {MAX_INCLUDE_DEPTH} levels)");
        return pp.error(DiagKind::Unsupported, at, message);
    }
    let Ok(file) = FileId::try_from(pp.sources.files.len()) else {
        return pp.error(DiagKind::Unsupported, at, "too many included files");
    };
    let source = match read_source(&path) {
        Ok(source) => source,
        Err(e) => {
            let message = format!("can't read include file \"{name}\": {}", io_message(&e));
            return pp.error(DiagKind::Io, at, message);
        }
    };
    pp.sources.files.push(path);
    pp.include_depth += 1;
    pp.run_file(file, &source);
    pp.include_depth -= 1;
}
