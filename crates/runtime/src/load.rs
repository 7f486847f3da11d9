//! Loading a program: parse and compile each source file, add the engine's
//! library modules written in Erlang (the prelude), link, and resolve the
//! entry call.

use crate::code::Program;
use crate::compiler::{compile_module, CompileOptions, ModuleCode};
use crate::sched::Entry;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use trace_syntax::ast::{Expr, ExprKind};
use trace_syntax::{DiagKind, Diagnostic, ParseOptions};
use trace_term::{Atom, Term};

/// The prelude: library modules written in Erlang, compiled with user code.
const PRELUDE: &[(&str, &str)] = &[
    (
        "trace_prelude.erl",
        include_str!("../prelude/trace_prelude.erl"),
    ),
    ("lists.erl", include_str!("../prelude/lists.erl")),
    ("maps.erl", include_str!("../prelude/maps.erl")),
    ("proplists.erl", include_str!("../prelude/proplists.erl")),
    ("string.erl", include_str!("../prelude/string.erl")),
    ("timer.erl", include_str!("../prelude/timer.erl")),
];

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
}

#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    pub include_paths: Vec<PathBuf>,
}

/// Parses, compiles and links the given source files plus the prelude.
pub fn load(files: &[PathBuf], opts: &LoadOptions) -> Result<Loaded, Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let mut mods: Vec<ModuleCode> = Vec::new();
    let mut identities = Vec::new();
    let mut names = HashSet::new();
    for f in files {
        let popts = ParseOptions {
            include_paths: opts.include_paths.clone(),
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
            &CompileOptions::default(),
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
    if !diags.is_empty() {
        return Err(diags);
    }
    for (file, src) in PRELUDE {
        let path = Path::new("<prelude>").join(file);
        let parsed = trace_syntax::parse_source(&path, src, &ParseOptions::default())
            .unwrap_or_else(|d| panic!("prelude {file} does not parse: {}", d[0]));
        if names.contains(&parsed.module.name) {
            // The user's own module of that name wins.
            continue;
        }
        let m = compile_module(
            &parsed.module,
            &parsed.sources,
            src,
            &CompileOptions { prelude: true },
        )
        .unwrap_or_else(|d| panic!("prelude {file} does not compile: {}", d[0]));
        mods.push(m);
    }
    let program = crate::link::link(mods)?;
    if std::env::var_os("TRACE_DUMP_IR").is_some() {
        dump_ir(&program);
    }
    Ok(Loaded {
        program: Arc::new(program),
        modules: identities,
    })
}

/// Resolves the entry call: `mod:fun(Args)` with constant arguments, or
/// `main()` of the first module.
pub fn entry(loaded: &Loaded, text: Option<&str>) -> Result<(Entry, String), String> {
    let (m, f, args) = match text {
        None => {
            let m = loaded.modules.first().ok_or("no module given")?;
            (Atom::intern(&m.name), Atom::intern("main"), Vec::new())
        }
        Some(t) => parse_entry(t)?,
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
