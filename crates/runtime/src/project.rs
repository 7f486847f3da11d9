//! Projects laid out as rebar3 lays them out: a directory given instead of
//! source files. Its applications are the directory itself when it has a
//! `src/`, and every `apps/NAME/` with a `src/`. Each application's modules
//! are the `.erl` files under its `src/` (subdirectories included); its
//! `include/` and `src/` are searched by `-include`, and
//! `-include_lib("app/include/x.hrl")` finds the headers of the project's
//! own applications. Its `src/NAME.app.src` (or `ebin/NAME.app`) says its
//! `env`, `mod` and dependencies, for `application:start/1`.
//!
//! Plain source files may come with applications too: an `.app.src` or
//! `.app` file beside them describes one.

use crate::compiler::constant::constant;
use std::path::{Path, PathBuf};
use trace_syntax::{DiagKind, Diagnostic};
use trace_term::Term;

/// Where a source file is and where its includes are searched.
#[derive(Clone, Debug)]
pub struct Source {
    pub path: PathBuf,
    pub include_paths: Vec<PathBuf>,
}

/// One application of a project.
#[derive(Clone, Debug)]
pub struct App {
    pub name: String,
    pub dir: PathBuf,
}

/// What a project directory holds.
#[derive(Clone, Debug)]
pub struct Project {
    pub root: PathBuf,
    pub apps: Vec<App>,
    /// Every module, with its include paths, sorted by path.
    pub sources: Vec<Source>,
    /// The `{application, Name, Properties}` terms of its resource files.
    pub specs: Vec<Term>,
}

/// Files nobody writes by hand are skipped, and so is a deep tree: a
/// project's sources are a few levels down.
const MAX_DEPTH: usize = 8;

/// Whether `paths` names a project: one directory.
pub fn is_project(paths: &[PathBuf]) -> bool {
    paths.len() == 1 && paths[0].is_dir()
}

/// Reads the project at `root`.
pub fn discover(root: &Path, extra_includes: &[PathBuf]) -> Result<Project, Vec<Diagnostic>> {
    let mut apps = Vec::new();
    if root.join("src").is_dir() {
        apps.push(App {
            name: dir_name(root),
            dir: root.to_path_buf(),
        });
    }
    let apps_dir = root.join("apps");
    for dir in sorted_entries(&apps_dir) {
        if dir.join("src").is_dir() {
            apps.push(App {
                name: dir_name(&dir),
                dir,
            });
        }
    }
    if apps.is_empty() {
        return Err(vec![Diagnostic {
            kind: DiagKind::Io,
            path: root.to_path_buf(),
            line: 0,
            col: 0,
            message: "not a project: no src/ and no apps/*/src/ directory (give .erl files, or \
                      a directory laid out as rebar3 lays out projects)"
                .into(),
        }]);
    }
    // -include_lib("app/include/x.hrl") of any of the project's applications.
    // (The top application's own headers are found by the search without
    // the leading `app/`, from the root.)
    let lib_dirs = [apps_dir.clone(), root.to_path_buf()];
    let mut sources = Vec::new();
    let mut specs = Vec::new();
    let mut diags = Vec::new();
    for app in &apps {
        let mut includes = vec![app.dir.join("include"), app.dir.join("src")];
        includes.extend(lib_dirs.iter().cloned());
        includes.extend(extra_includes.iter().cloned());
        let mut files = Vec::new();
        erl_files(&app.dir.join("src"), 0, &mut files);
        files.sort();
        for path in files {
            sources.push(Source {
                path,
                include_paths: includes.clone(),
            });
        }
        match app_spec(&app.dir, &app.name) {
            Ok(Some(t)) => specs.push(t),
            Ok(None) => {}
            Err(d) => diags.push(d),
        }
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    Ok(Project {
        root: root.to_path_buf(),
        apps,
        sources,
        specs,
    })
}

/// The application resource files beside plain source files.
pub fn specs_beside(files: &[PathBuf]) -> Result<Vec<Term>, Vec<Diagnostic>> {
    let mut dirs: Vec<PathBuf> = files
        .iter()
        .map(|f| f.parent().map(Path::to_path_buf).unwrap_or_default())
        .collect();
    dirs.sort();
    dirs.dedup();
    let mut specs = Vec::new();
    let mut diags = Vec::new();
    for dir in dirs {
        let dir = if dir.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            dir
        };
        for f in sorted_entries(&dir) {
            let name = f.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.ends_with(".app.src") || name.ends_with(".app") {
                match read_spec(&f) {
                    Ok(t) => specs.push(t),
                    Err(d) => diags.push(d),
                }
            }
        }
    }
    if diags.is_empty() {
        Ok(specs)
    } else {
        Err(diags)
    }
}

fn dir_name(p: &Path) -> String {
    p.canonicalize()
        .ok()
        .as_deref()
        .unwrap_or(p)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The entries of a directory, sorted (none if it cannot be read).
fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    out.sort();
    out
}

fn erl_files(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    if depth > MAX_DEPTH {
        return;
    }
    for p in sorted_entries(dir) {
        if p.is_dir() {
            erl_files(&p, depth + 1, out);
        } else if p.extension().is_some_and(|x| x == "erl") {
            out.push(p);
        }
    }
}

/// An application's resource file: `src/NAME.app.src`, else `ebin/NAME.app`.
fn app_spec(dir: &Path, name: &str) -> Result<Option<Term>, Diagnostic> {
    let src = dir.join("src").join(format!("{name}.app.src"));
    let ebin = dir.join("ebin").join(format!("{name}.app"));
    let found = sorted_entries(&dir.join("src"))
        .into_iter()
        .find(|p| p.to_string_lossy().ends_with(".app.src"));
    for p in [Some(src), Some(ebin), found].into_iter().flatten() {
        if p.is_file() {
            return read_spec(&p).map(Some);
        }
    }
    Ok(None)
}

/// Reads `{application, Name, Properties}.` from a resource file.
pub fn read_spec(path: &Path) -> Result<Term, Diagnostic> {
    let at = |line: u32, col: u32, message: String| Diagnostic {
        kind: DiagKind::Semantic,
        path: path.to_path_buf(),
        line,
        col,
        message,
    };
    let text = trace_syntax::read_source(path).map_err(|e| Diagnostic {
        kind: DiagKind::Io,
        ..at(0, 0, trace_syntax::io_message(&e))
    })?;
    let expr = trace_syntax::parse_expr(&text).map_err(|d| Diagnostic {
        path: path.to_path_buf(),
        ..d
    })?;
    let term = constant(&expr).ok_or_else(|| {
        at(
            1,
            1,
            "an application resource file holds a constant term".into(),
        )
    })?;
    match term.as_tuple() {
        Some([tag, Term::Atom(_), props])
            if tag.is_atom(trace_term::Atom::intern("application")) && props.is_list() =>
        {
            Ok(term)
        }
        _ => Err(at(
            1,
            1,
            "not an application resource file: expected {application, Name, Properties}".into(),
        )),
    }
}
