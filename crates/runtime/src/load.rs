//! Loading a program: parse and compile each source file, add the engine's
//! library modules written in Erlang (the prelude), link, and resolve the
//! entry call.

use crate::code::Program;
use crate::compiler::{compile_module, CompileOptions, ModuleCode};
use crate::sched::Entry;
use crate::{prelude, project};
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use trace_syntax::ast::{Expr, ExprKind};
use trace_syntax::{DiagKind, Diagnostic, ParseOptions};
use trace_term::{Atom, Term};

/// A loaded module's identity (for the log header).
#[derive(Clone, Debug)]
pub struct ModuleIdentity {
    pub name: String,
    pub path: PathBuf,
    /// 64-bit FNV-1a of the source text.
    pub hash: u64,
}

/// A program ready to run.
pub struct Loaded {
    pub program: Arc<Program>,
    /// The user's modules, in the order given.
    pub modules: Vec<ModuleIdentity>,
    /// The project it was read from, when a directory was given.
    pub project: Option<project::Project>,
}

#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    pub include_paths: Vec<PathBuf>,
    /// The call the run starts with (`m:f(Args)`), if given: the prelude
    /// modules its arguments name are loaded too.
    pub entry: Option<String>,
    /// Compile every prelude module, reachable or not.
    pub whole_prelude: bool,
    /// Keep the user's variables by name for a debugger (see
    /// [`crate::compiler::CompileOptions::debug`]): `trace debug` loads so.
    pub debug: bool,
}

/// Parses, compiles and links a program plus the prelude modules it can
/// reach. `paths` are source files, or one project directory (see
/// [`crate::project`]).
pub fn load(paths: &[PathBuf], opts: &LoadOptions) -> Result<Loaded, Vec<Diagnostic>> {
    let (sources, specs, project) = if project::is_project(paths) {
        let p = project::discover(&paths[0], &opts.include_paths)?;
        (p.sources.clone(), p.specs.clone(), Some(p))
    } else {
        let sources = paths
            .iter()
            .map(|path| project::Source {
                path: path.clone(),
                include_paths: opts.include_paths.clone(),
            })
            .collect();
        (sources, project::specs_beside(paths)?, None)
    };
    let (mods, identities) = compile_sources(&sources, opts.debug)?;
    let roots = match &opts.entry {
        Some(text) => parse_entry(text)
            .map(|(m, f, args)| entry_atoms(m, f, &args))
            .unwrap_or_default(),
        None => Vec::new(),
    };
    let mut all = mods;
    let prelude = prelude::compile_needed(&all, &roots, opts.whole_prelude);
    all.extend(prelude);
    let mut program = crate::link::link(all)?;
    program.apps = specs;
    if std::env::var_os("TRACE_DUMP_IR").is_some() {
        dump_ir(&program);
    }
    Ok(Loaded {
        program: Arc::new(program),
        modules: identities,
        project,
    })
}

/// Parses and compiles the user's source files.
fn compile_sources(
    sources: &[project::Source],
    debug: bool,
) -> Result<(Vec<ModuleCode>, Vec<ModuleIdentity>), Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let mut mods: Vec<ModuleCode> = Vec::new();
    let mut identities = Vec::new();
    let mut names = HashSet::new();
    for src in sources {
        let f = &src.path;
        let popts = ParseOptions {
            include_paths: src.include_paths.clone(),
            defines: Vec::new(),
        };
        let source = match trace_syntax::read_source(f) {
            Ok(s) => s,
            Err(e) => {
                diags.push(trace_syntax::read_error(f, &e));
                continue;
            }
        };
        let parsed = match trace_syntax::parse_source(f, &source, &popts) {
            Ok(p) => p,
            Err(mut d) => {
                diags.append(&mut d);
                continue;
            }
        };
        let name = parsed.module.name.clone();
        if !names.insert(name.clone()) {
            diags.push(Diagnostic::new(
                DiagKind::Semantic,
                f,
                parsed.module.pos,
                format!("module '{name}' is given twice"),
            ));
            continue;
        }
        match compile_module(
            &parsed.module,
            &parsed.sources,
            &source,
            &CompileOptions {
                prelude: false,
                debug,
            },
        ) {
            Ok(m) => {
                identities.push(ModuleIdentity {
                    name,
                    path: f.clone(),
                    hash: m.source_hash,
                });
                mods.push(m);
            }
            Err(mut d) => diags.append(&mut d),
        }
    }
    if diags.is_empty() {
        Ok((mods, identities))
    } else {
        Err(diags)
    }
}

/// The atoms an entry call starts with: its module, function and every
/// atom in its arguments.
fn entry_atoms(m: Atom, f: Atom, args: &[Term]) -> Vec<Atom> {
    let mut out = vec![m, f];
    let mut stack: Vec<&Term> = args.iter().collect();
    while let Some(t) = stack.pop() {
        match t {
            Term::Atom(a) => out.push(*a),
            Term::Tuple(tp) => stack.extend(tp.elements()),
            Term::Cons(c) => {
                stack.push(&c.head);
                stack.push(&c.tail);
            }
            Term::Map(mp) => {
                for (k, v) in mp.iter() {
                    stack.push(k);
                    stack.push(v);
                }
            }
            _ => {}
        }
    }
    out
}

/// Resolves the entry call: `mod:fun(Args)` with constant arguments, or
/// `main()` of the first module.
pub fn entry(loaded: &Loaded, text: Option<&str>) -> Result<(Entry, String), String> {
    let (m, f, args) = match (text, &loaded.project) {
        (None, Some(p)) => return Err(no_project_entry(loaded, p)),
        (None, None) => {
            let m = loaded.modules.first().ok_or("no module given")?;
            (Atom::intern(&m.name), Atom::intern("main"), Vec::new())
        }
        (Some(t), _) => parse_entry(t)?,
    };
    let arity = args.len() as u32;
    let call = format!(
        "{}:{}({})",
        m.name(),
        f.name(),
        args.iter()
            .map(trace_term::print::write_term)
            .collect::<Vec<_>>()
            .join(",")
    );
    if !loaded.program.modules.contains_key(&m) {
        return Err(format!(
            "module '{}' is not loaded (give its .erl file)",
            m.name()
        ));
    }
    let fun = loaded.program.exported(m, f, arity).ok_or_else(|| {
        format!(
            "function {}:{}/{} is not exported",
            m.name(),
            f.name(),
            arity
        )
    })?;
    Ok((Entry { fun, args }, call))
}

/// A project has no first module to start: say how to give the call,
/// naming a `main/0` of its own if it has one.
fn no_project_entry(loaded: &Loaded, p: &project::Project) -> String {
    let apps: Vec<&str> = p.apps.iter().map(|a| a.name.as_str()).collect();
    let main = Atom::intern("main");
    let with_main = loaded.modules.iter().find(|m| {
        loaded
            .program
            .exported(Atom::intern(&m.name), main, 0)
            .is_some()
    });
    let example = match with_main {
        Some(m) => format!("--entry '{}:main()'", m.name),
        None => format!(
            "--entry 'application:ensure_all_started({})'",
            apps.first().copied().unwrap_or("myapp")
        ),
    };
    format!(
        "{} is a project (applications: {}): give the call to start with \
         (--entry 'Module:Function(Args)'), e.g. {example}",
        p.root.display(),
        apps.join(", "),
    )
}

/// Parses `mod:fun(Arg, ...)` where the arguments are constant terms.
pub fn parse_entry(text: &str) -> Result<(Atom, Atom, Vec<Term>), String> {
    let e = trace_syntax::parse_expr(text).map_err(|d| format!("--entry: {}", d.message))?;
    let ExprKind::Call { fun, args } = &e.kind else {
        return Err(format!(
            "--entry: expected Module:Function(Args), got {text:?}"
        ));
    };
    let ExprKind::Remote { module, function } = &fun.kind else {
        return Err(format!(
            "--entry: expected Module:Function(Args), got {text:?}"
        ));
    };
    let (ExprKind::Atom(m), ExprKind::Atom(f)) = (&module.kind, &function.kind) else {
        return Err("--entry: module and function must be atoms".into());
    };
    let mut terms = Vec::new();
    for a in args {
        terms.push(
            constant_arg(a)
                .ok_or_else(|| "--entry: arguments must be constant terms".to_string())?,
        );
    }
    Ok((Atom::intern(m), Atom::intern(f), terms))
}

fn constant_arg(e: &Expr) -> Option<Term> {
    crate::compiler::constant::constant(e)
}

/// Prints the user modules' compiled code to stderr (debugging aid).
fn dump_ir(p: &Program) {
    for (i, f) in p.funs.iter().enumerate() {
        if p.modules.get(&f.module).is_some_and(|m| m.prelude) {
            continue;
        }
        eprintln!(
            "fun {i}: {}:{}/{} slots={}",
            f.module.name(),
            f.name.name(),
            f.arity,
            f.nslots
        );
        for (pc, ins) in f.code.iter().enumerate() {
            eprintln!("  {pc:4} L{:<4} {ins:?}", f.lines[pc]);
        }
    }
}
