//! The compiler: one module's AST → module code (instructions over slots with
//! module-local references), later linked into the [`crate::code::Program`].
//!
//! Data flow: [`compile_module`] reads the attributes (records, exports,
//! imports), gives every named function a local id, then compiles each
//! function clause set with a [`builder::FnBuilder`]: patterns
//! ([`pattern`]), guards ([`guard`]), expressions ([`expr`]), control
//! constructs ([`control`]), comprehensions ([`comprehension`]), binaries
//! ([`binary`]) and funs ([`funs`], lifted into extra functions of the
//! module). Errors are erlc-style diagnostics.

pub mod binary;
pub mod builder;
pub mod comprehension;
pub mod constant;
pub mod control;
pub mod expr;
pub mod funs;
pub mod guard;
pub mod liveness;
pub mod pattern;
pub mod records;
pub mod recv_filter;
pub mod vars;

use crate::code::{ClosureInfo, FunCode};
use crate::ir::{Instr, Switch};
use builder::{FnBuilder, L};

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use trace_syntax::ast::{self, Attribute, Form, Pos};
use trace_syntax::{DiagKind, Diagnostic, SourceMap};
use trace_term::{Atom, Term};

/// A remote call site `m:f/a` (resolved by the linker).
#[derive(Clone, Debug)]
pub struct ExtRef {
    pub module: Atom,
    pub function: Atom,
    pub arity: u32,
    /// Where the first call appears (for "unsupported" diagnostics).
    pub path: PathBuf,
    pub pos: Pos,
}

/// One compiled module before linking: all references are module-local.
#[derive(Debug)]
pub struct ModuleCode {
    pub name: Atom,
    pub path: PathBuf,
    pub source_hash: u64,
    /// Named functions first (in definition order), then lifted funs.
    pub funs: Vec<FunCode>,
    pub named: HashMap<(Atom, u32), u32>,
    pub exports: Vec<(Atom, u32)>,
    pub literals: Vec<Term>,
    pub exts: Vec<ExtRef>,
    pub switches: Vec<Switch>,
    pub closures: Vec<ClosureInfo>,
    pub prelude: bool,
}

/// Compile-time failure of one construct.
pub type CResult<T> = Result<T, Diagnostic>;

/// Per-module compilation state.
pub struct ModuleCtx<'a> {
    pub name: Atom,
    pub name_str: String,
    pub sources: &'a SourceMap,
    pub records: HashMap<String, ast::RecordDef>,
    /// name/arity → local fun id, for every named function.
    pub functions: HashMap<(String, usize), u32>,
    pub imports: HashMap<(String, usize), String>,
    pub literals: Vec<Term>,
    pub exts: Vec<ExtRef>,
    ext_index: HashMap<(Atom, Atom, u32), u32>,
    pub switches: Vec<Switch>,
    pub closures: Vec<ClosureInfo>,
    /// Lifted funs, appended after the named functions.
    pub lifted: Vec<FunCode>,
    pub named_count: u32,
    pub diags: Vec<Diagnostic>,
    /// Counter for naming lifted funs (`-f/1-fun-N-`).
    pub fun_counter: u32,
    /// The function being compiled (for `?FUNCTION_NAME`-style names of lifted funs).
    pub current: (String, usize),
    pub uniq: u32,
    /// See [`CompileOptions::debug`].
    pub debug: bool,
}

impl<'a> ModuleCtx<'a> {
    pub fn diag(&self, kind: DiagKind, pos: Pos, msg: impl Into<String>) -> Diagnostic {
        self.sources.diag(kind, pos, msg)
    }

    pub fn err<T>(&self, pos: Pos, msg: impl Into<String>) -> CResult<T> {
        Err(self.diag(DiagKind::Semantic, pos, msg))
    }

    pub fn unsupported<T>(&self, pos: Pos, what: impl AsRef<str>) -> CResult<T> {
        Err(self.diag(
            DiagKind::Unsupported,
            pos,
            format!("unsupported: {} (not implemented by trace)", what.as_ref()),
        ))
    }

    pub fn literal(&mut self, t: Term) -> u32 {
        self.literals.push(t);
        self.literals.len() as u32 - 1
    }

    pub fn ext(&mut self, module: Atom, function: Atom, arity: u32, pos: Pos) -> u32 {
        let key = (module, function, arity);
        if let Some(&i) = self.ext_index.get(&key) {
            return i;
        }
        self.exts.push(ExtRef {
            module,
            function,
            arity,
            path: self.sources.path(pos.file).to_path_buf(),
            pos,
        });
        let i = self.exts.len() as u32 - 1;
        self.ext_index.insert(key, i);
        i
    }

    /// Adds a lifted function, returning its module-local id.
    pub fn add_lifted(&mut self, f: FunCode) -> u32 {
        self.lifted.push(f);
        self.named_count + self.lifted.len() as u32 - 1
    }
}

/// Options for compiling one module.
#[derive(Clone, Debug, Default)]
pub struct CompileOptions {
    /// True for the engine's own library modules.
    pub prelude: bool,
    /// Keep variable names and values for a debugger: every value stays in
    /// its variable's slot (no last-use moves) and each function gets its
    /// [`crate::code::DebugInfo`].
    pub debug: bool,
}

/// Compiles one parsed module.
pub fn compile_module(
    module: &ast::Module,
    sources: &SourceMap,
    source_text: &str,
    opts: &CompileOptions,
) -> Result<ModuleCode, Vec<Diagnostic>> {
    let mut cx = ModuleCtx {
        name: Atom::intern(&module.name),
        name_str: module.name.clone(),
        sources,
        records: HashMap::new(),
        functions: HashMap::new(),
        imports: HashMap::new(),
        literals: Vec::new(),
        exts: Vec::new(),
        ext_index: HashMap::new(),
        switches: Vec::new(),
        closures: Vec::new(),
        lifted: Vec::new(),
        named_count: 0,
        diags: Vec::new(),
        fun_counter: 0,
        current: (String::new(), 0),
        uniq: (crate::code::fnv1a64(source_text.as_bytes()) & 0x7ff_ffff) as u32,
        debug: opts.debug,
    };

    // Attributes first: records, exports and imports are visible everywhere.
    let Declared {
        exports,
        export_all,
        functions,
    } = declare(&mut cx, module);
    cx.named_count = functions.len() as u32;
    let export_list = export_list(&mut cx, &exports, export_all, &functions);

    let mut named_code = Vec::new();
    for f in &functions {
        cx.current = (f.name.clone(), f.arity);
        match compile_function(&mut cx, f) {
            Ok(code) => named_code.push(code),
            Err(d) => {
                cx.diags.push(d);
                named_code.push(placeholder(&cx, f));
            }
        }
    }

    if !cx.diags.is_empty() {
        let mut d = std::mem::take(&mut cx.diags);
        d.sort_by_key(|x| (x.path.clone(), x.line, x.col));
        d.dedup();
        return Err(d);
    }

    let named: HashMap<(Atom, u32), u32> = functions
        .iter()
        .enumerate()
        .map(|(i, f)| ((Atom::intern(&f.name), f.arity as u32), i as u32))
        .collect();
    let mut funs = named_code;
    funs.append(&mut cx.lifted);
    Ok(ModuleCode {
        name: cx.name,
        path: sources.path(0).to_path_buf(),
        source_hash: crate::code::fnv1a64(source_text.as_bytes()),
        funs,
        named,
        exports: export_list,
        literals: cx.literals,
        exts: cx.exts,
        switches: cx.switches,
        closures: cx.closures,
        prelude: opts.prelude,
    })
}

/// What a module's forms declare, besides what goes into the context.
struct Declared<'m> {
    /// Each exported name and arity, with the position of its `-export`.
    exports: Vec<(String, usize, Pos)>,
    /// `-compile(export_all)`.
    export_all: bool,
    /// The functions, in source order (their index is their id).
    functions: Vec<&'m ast::Function>,
}

/// Reads the forms: records, imports and the functions go into the
/// context; a duplicate or an unsupported attribute is a diagnostic.
fn declare<'m>(cx: &mut ModuleCtx, module: &'m ast::Module) -> Declared<'m> {
    let mut exports: Vec<(String, usize, Pos)> = Vec::new();
    let mut export_all = false;
    let mut functions: Vec<&ast::Function> = Vec::new();
    for form in &module.forms {
        match form {
            Form::Attribute(a) => match a {
                Attribute::Export { pos, funs } => {
                    exports.extend(funs.iter().map(|(n, a)| (n.clone(), *a, *pos)))
                }
                Attribute::Import { module, funs, .. } => {
                    for (n, a) in funs {
                        cx.imports.insert((n.clone(), *a), module.clone());
                    }
                }
                Attribute::Record(r) => {
                    if cx.records.contains_key(&r.name) {
                        cx.diags.push(cx.diag(
                            DiagKind::Semantic,
                            r.pos,
                            format!("record {} already defined", r.name),
                        ));
                    } else if let Err(d) = records::check_definition(cx, r) {
                        cx.diags.push(d);
                    } else {
                        cx.records.insert(r.name.clone(), r.clone());
                    }
                }
                Attribute::Compile { options, pos } => {
                    if constant::mentions_atom(options, "export_all") {
                        export_all = true;
                    }
                    if constant::mentions_atom(options, "parse_transform") {
                        cx.diags.push(cx.diag(
                            DiagKind::Unsupported,
                            *pos,
                            "unsupported: parse transforms (not implemented by trace)",
                        ));
                    }
                }
                // BEAM runs the function when the module loads; the engine does not.
                Attribute::Other { pos, name } if name == "on_load" => {
                    cx.diags.push(cx.diag(
                        DiagKind::Unsupported,
                        *pos,
                        "unsupported: -on_load (not implemented by trace)",
                    ));
                }
                Attribute::Module { .. } | Attribute::Other { .. } => {}
            },
            Form::Function(f) => {
                let key = (f.name.clone(), f.arity);
                if cx.functions.contains_key(&key) {
                    cx.diags.push(cx.diag(
                        DiagKind::Semantic,
                        f.pos,
                        format!("function {}/{} already defined", f.name, f.arity),
                    ));
                    continue;
                }
                cx.functions.insert(key, functions.len() as u32);
                functions.push(f);
            }
        }
    }
    Declared {
        exports,
        export_all,
        functions,
    }
}

/// The functions the module exports; exporting an undefined one is a
/// diagnostic.
fn export_list(
    cx: &mut ModuleCtx,
    exports: &[(String, usize, Pos)],
    export_all: bool,
    functions: &[&ast::Function],
) -> Vec<(Atom, u32)> {
    let mut export_list = Vec::new();
    for (n, a, pos) in exports {
        if cx.functions.contains_key(&(n.clone(), *a)) {
            export_list.push((Atom::intern(n), *a as u32));
        } else {
            cx.diags.push(cx.diag(
                DiagKind::Semantic,
                *pos,
                format!("function {n}/{a} undefined"),
            ));
        }
    }
    if export_all {
        export_list = functions
            .iter()
            .map(|f| (Atom::intern(&f.name), f.arity as u32))
            .collect();
    }
    export_list
}

fn placeholder(cx: &ModuleCtx, f: &ast::Function) -> FunCode {
    FunCode {
        module: cx.name,
        name: Atom::intern(&f.name),
        arity: f.arity as u32,
        nslots: 1,
        code: vec![],
        lines: vec![],
        file: 0,
        debug: None,
    }
}

/// Compiles a named function: its clauses tried in order, `function_clause` when none matches.
fn compile_function(cx: &mut ModuleCtx, f: &ast::Function) -> CResult<FunCode> {
    let names = vars::clause_names(&f.clauses);
    let mut b = new_builder(cx, f.arity, &names, f.pos)?;
    b.set_pos(f.pos);
    let initial = b.state.clone();
    for c in &f.clauses {
        b.state = initial.clone();
        b.set_pos(c.pos);
        let next = b.new_label();
        let aliased = pattern::head(cx, &mut b, &c.patterns, next, &[])?;
        guard::guard_seq(cx, &mut b, &c.guards, next)?;
        expr::body(cx, &mut b, &c.body, expr::Dest::Tail)?;
        b.bind_label(next);
        for n in &aliased {
            b.unshadow(n);
        }
    }
    b.set_pos(f.pos);
    b.emit(Instr::Error {
        kind: crate::ir::ErrKind::FunctionClause,
        val: 0,
    });
    finish_fun(cx, b, Atom::intern(&f.name), f.arity as u32, f.pos)
}

/// Turns a finished builder into a [`FunCode`], resolving its switch tables.
pub fn finish_fun(
    cx: &mut ModuleCtx,
    b: FnBuilder,
    name: Atom,
    arity: u32,
    _pos: Pos,
) -> CResult<FunCode> {
    let (code, lines, nslots, debug) = b.finish(&mut cx.switches).map_err(|at| {
        let here = "to compute this expression";
        cx.diag(DiagKind::Unsupported, at, builder::too_many_slots(here))
    })?;
    Ok(FunCode {
        module: cx.name,
        name,
        arity,
        nslots,
        code,
        lines,
        file: 0,
        debug,
    })
}

/// A builder for a new function.
pub fn new_builder(cx: &ModuleCtx, arity: usize, names: &[String], pos: Pos) -> CResult<FnBuilder> {
    let mut b = FnBuilder::new(arity, names).map_err(|_| {
        let vars = format!("with more than {} variables", builder::MAX_VARIABLES);
        cx.diag(DiagKind::Unsupported, pos, builder::too_many_slots(&vars))
    })?;
    if cx.debug {
        b.keep_debug_info();
    }
    Ok(b)
}

/// Label type re-export for submodules.
pub type Lab = L;

/// Convenience: the path of the module's main file.
pub fn module_path<'a>(cx: &'a ModuleCtx) -> &'a Path {
    cx.sources.path(0)
}
