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

/// Reads a source file as epp does: Latin-1 when a comment in its first two
/// lines says `coding: latin-1`, else UTF-8, and a file that is not valid
/// UTF-8 is an error ([`NotUtf8`], at the first bad byte).
pub fn read_source(path: &Path) -> io::Result<String> {
    let bytes = trace_input::read(path, MAX_SOURCE_BYTES, "a source file")?;
    decode(bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// A source that is neither valid UTF-8 nor declared Latin-1: where its
/// first bad byte is (1-based).
#[derive(Debug)]
pub struct NotUtf8 {
    pub line: u32,
    pub col: u32,
}

impl std::fmt::Display for NotUtf8 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("cannot translate from UTF-8")
    }
}

impl std::error::Error for NotUtf8 {}

fn decode(bytes: Vec<u8>) -> Result<String, NotUtf8> {
    if declares_latin1(&bytes) {
        return Ok(bytes.into_iter().map(char::from).collect());
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let good = &e.as_bytes()[..at];
        let line_start = good.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        let col = std::str::from_utf8(&good[line_start..]).map_or(0, |l| l.chars().count());
        let line = good.iter().filter(|&&b| b == b'\n').count();
        NotUtf8 {
            line: u32::try_from(line + 1).unwrap_or(u32::MAX),
            col: u32::try_from(col + 1).unwrap_or(u32::MAX),
        }
    })
}

/// Whether a comment in the first two lines says `coding: latin-1` (or
/// `coding=latin-1`, any case), as epp reads an encoding.
fn declares_latin1(bytes: &[u8]) -> bool {
    bytes.split(|&b| b == b'\n').take(2).any(|line| {
        let Some(pct) = line.iter().position(|&b| b == b'%') else {
            return false;
        };
        let comment = String::from_utf8_lossy(&line[pct..]);
        comment.match_indices("coding").any(|(i, w)| {
            let rest = comment[i + w.len()..].trim_start();
            let Some(rest) = rest.strip_prefix([':', '=']) else {
                return false;
            };
            let name: String = rest
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            name.eq_ignore_ascii_case("latin-1")
        })
    })
}

/// The diagnostic for a source that could not be read: at the first bad
/// byte for one that is not UTF-8 (as erlc), else without a position.
pub fn read_error(path: &Path, e: &io::Error) -> crate::diag::Diagnostic {
    let at = e.get_ref().and_then(|i| i.downcast_ref::<NotUtf8>());
    crate::diag::Diagnostic {
        kind: match at {
            Some(_) => DiagKind::Syntax,
            None => DiagKind::Io,
        },
        path: path.to_path_buf(),
        line: at.map_or(0, |a| a.line),
        col: at.map_or(0, |a| a.col),
        message: io_message(e),
    }
}

/// An I/O error in erlc's words.
pub fn io_message(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file or directory".into(),
        io::ErrorKind::PermissionDenied => "permission denied".into(),
        io::ErrorKind::IsADirectory => "illegal operation on a directory".into(),
        _ if e.get_ref().is_some_and(|i| i.is::<NotUtf8>()) => e.to_string(),
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
