//! The prelude: the engine's library modules written in Erlang
//! (`crates/runtime/prelude/`), and which of them a program needs.
//!
//! Compiling all of them costs tens of milliseconds, more than most runs
//! of a small program, so a program gets those it can reach: a module it
//! names (a remote call, or an atom anywhere in its code, such as a child
//! spec's `{gen_event, start_link, []}`), and those these name in turn.
//! A module that makes atoms at run time (`list_to_atom/1` and friends)
//! could call any module: such a program gets the whole prelude, so a
//! call computed at run time always finds its target.

use crate::bif::{registry, BifId};
use crate::compiler::{compile_module, CompileOptions, ModuleCode};
use crate::ir::Instr;
use std::collections::{BTreeSet, HashSet};
use std::path::Path;
use trace_syntax::ParseOptions;
use trace_term::{Atom, Fun, Term};

/// Every prelude module: its name and source.
const MODULES: &[(&str, &str)] = &[
    (
        "trace_prelude",
        include_str!("../prelude/trace_prelude.erl"),
    ),
    ("lists", include_str!("../prelude/lists.erl")),
    ("maps", include_str!("../prelude/maps.erl")),
    ("proplists", include_str!("../prelude/proplists.erl")),
    ("string", include_str!("../prelude/string.erl")),
    ("timer", include_str!("../prelude/timer.erl")),
    ("proc_lib", include_str!("../prelude/proc_lib.erl")),
    ("gen", include_str!("../prelude/gen.erl")),
    ("gen_server", include_str!("../prelude/gen_server.erl")),
    ("gen_statem", include_str!("../prelude/gen_statem.erl")),
    ("gen_event", include_str!("../prelude/gen_event.erl")),
    ("supervisor", include_str!("../prelude/supervisor.erl")),
    ("sys", include_str!("../prelude/sys.erl")),
    ("application", include_str!("../prelude/application.erl")),
    ("logger", include_str!("../prelude/logger.erl")),
    ("error_logger", include_str!("../prelude/error_logger.erl")),
    ("global", include_str!("../prelude/global.erl")),
    ("ets", include_str!("../prelude/ets.erl")),
    ("queue", include_str!("../prelude/queue.erl")),
    ("gb_trees", include_str!("../prelude/gb_trees.erl")),
    ("gb_sets", include_str!("../prelude/gb_sets.erl")),
    ("ordsets", include_str!("../prelude/ordsets.erl")),
    ("orddict", include_str!("../prelude/orddict.erl")),
    ("dict", include_str!("../prelude/dict.erl")),
    ("sets", include_str!("../prelude/sets.erl")),
    ("array", include_str!("../prelude/array.erl")),
    ("calendar", include_str!("../prelude/calendar.erl")),
    ("base64", include_str!("../prelude/base64.erl")),
    ("pg", include_str!("../prelude/pg.erl")),
];

/// The engine itself calls into `trace_prelude` (spawning on a built-in,
/// waking from hibernation): it is always there.
const ALWAYS: &str = "trace_prelude";

/// Built-ins that make atoms from data.
const ATOM_MAKERS: &[(&str, &str, usize)] = &[
    ("erlang", "list_to_atom", 1),
    ("erlang", "list_to_existing_atom", 1),
    ("erlang", "binary_to_atom", 1),
    ("erlang", "binary_to_atom", 2),
    ("erlang", "binary_to_existing_atom", 1),
    ("erlang", "binary_to_existing_atom", 2),
    ("erlang", "binary_to_term", 1),
    ("erlang", "binary_to_term", 2),
];

/// Compiles the prelude modules `user` (the program's modules) can reach,
/// or all of them with `whole`; `roots` are more atoms the program starts
/// with (the entry call's arguments). A user module of a prelude module's
/// name replaces it.
pub fn compile_needed(user: &[ModuleCode], roots: &[Atom], whole: bool) -> Vec<ModuleCode> {
    let taken: HashSet<Atom> = user.iter().map(|m| m.name).collect();
    let mut wanted: BTreeSet<&'static str> = BTreeSet::new();
    if whole || user.iter().any(makes_atoms) {
        wanted.extend(MODULES.iter().map(|(n, _)| *n));
    } else {
        wanted.insert(ALWAYS);
        let mut named = HashSet::new();
        for m in user {
            atoms_of(m, &mut named);
        }
        named.extend(roots.iter().copied());
        wanted.extend(prelude_names(&named));
    }
    let mut out = Vec::new();
    let mut done: HashSet<&'static str> = HashSet::new();
    let mut todo: Vec<&'static str> = wanted.into_iter().collect();
    while let Some(name) = todo.pop() {
        if !done.insert(name) || taken.contains(&Atom::intern(name)) {
            continue;
        }
        let m = compile(name);
        let mut named = HashSet::new();
        atoms_of(&m, &mut named);
        todo.extend(prelude_names(&named).filter(|n| !done.contains(n)));
        out.push(m);
    }
    // Link order does not depend on the order modules were found in.
    out.sort_by_key(|m| {
        MODULES
            .iter()
            .position(|(n, _)| *n == m.name.name())
            .unwrap_or(usize::MAX)
    });
    out
}

/// The prelude modules among `atoms`.
fn prelude_names(atoms: &HashSet<Atom>) -> impl Iterator<Item = &'static str> + '_ {
    MODULES
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| Atom::existing(n).is_some_and(|a| atoms.contains(&a)))
}

fn compile(name: &'static str) -> ModuleCode {
    let (_, src) = MODULES
        .iter()
        .find(|(n, _)| *n == name)
        .expect("a prelude module by its name");
    let path = Path::new("<prelude>").join(format!("{name}.erl"));
    let parsed = trace_syntax::parse_source(&path, src, &ParseOptions::default())
        .unwrap_or_else(|d| panic!("prelude {name} does not parse: {}", d[0]));
    compile_module(
        &parsed.module,
        &parsed.sources,
        src,
        &CompileOptions {
            prelude: true,
            debug: false,
        },
    )
    .unwrap_or_else(|d| panic!("prelude {name} does not compile: {}", d[0]))
}

/// Every atom a module's code can produce or call: remote call targets,
/// atoms loaded by instructions, and atoms inside its literals.
fn atoms_of(m: &ModuleCode, out: &mut HashSet<Atom>) {
    for e in &m.exts {
        out.insert(e.module);
    }
    for f in &m.funs {
        for ins in &f.code {
            if let Instr::Atom { atom, .. } = ins {
                out.insert(*atom);
            }
        }
    }
    let mut stack: Vec<&Term> = m.literals.iter().collect();
    while let Some(t) = stack.pop() {
        match t {
            Term::Atom(a) => {
                out.insert(*a);
            }
            Term::Tuple(tp) => stack.extend(tp.elements()),
            Term::Cons(_) => {
                let mut l = t;
                while let Term::Cons(c) = l {
                    stack.push(&c.head);
                    l = &c.tail;
                }
                stack.push(l);
            }
            Term::Map(mp) => {
                for (k, v) in mp.iter() {
                    stack.push(k);
                    stack.push(v);
                }
            }
            Term::Fun(f) => {
                if let Fun::External { module, .. } = &**f {
                    out.insert(*module);
                }
            }
            _ => {}
        }
    }
}

/// Whether a module calls a built-in that makes atoms from data.
fn makes_atoms(m: &ModuleCode) -> bool {
    let makers: Vec<BifId> = ATOM_MAKERS
        .iter()
        .filter_map(|(md, f, a)| registry().lookup(md, f, *a))
        .collect();
    let by_ext = m.exts.iter().any(|e| {
        ATOM_MAKERS.iter().any(|(md, f, a)| {
            e.module.name() == *md && e.function.name() == *f && e.arity as usize == *a
        })
    });
    by_ext
        || m.funs.iter().any(|f| {
            f.code
                .iter()
                .any(|i| matches!(i, Instr::CallBif { bif, .. } if makers.contains(bif)))
        })
}
