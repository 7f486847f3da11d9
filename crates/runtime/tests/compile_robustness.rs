//! Property: whatever parses, the compiler and linker turn into code or into
//! diagnostics, never a panic. The bundled fixtures are mutated a word at a
//! time (dropping, repeating, swapping and replacing words keeps most of a
//! program well formed, so mutants reach deep into the compiler).

use proptest::prelude::*;
use std::path::Path;
use trace_runtime::compiler::{compile_module, CompileOptions};
use trace_syntax::{parse_source, ParseOptions};

/// The bundled fixtures' sources, read once for all cases.
static SEEDS: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(read_seeds);

fn seeds() -> Vec<String> {
    SEEDS.clone()
}

fn read_seeds() -> Vec<String> {
    trace_fixtures::sources("seq")
}

/// Words a mutant may gain: variables, literals and operators that make
/// the compiler's checks (binding, guards, records, calls) fire.
const WORDS: &[&str] = &[
    "X",
    "Y",
    "_",
    "1",
    "a",
    "[]",
    "{}",
    "#{}",
    "+",
    "-",
    "*",
    "=",
    "==",
    "andalso",
    "when",
    "->",
    "of",
    "end",
    "case",
    "fun",
    "begin",
    "catch",
    "after",
    "#point{}",
    "#point.x",
    "<<>>",
    "||",
    "<-",
    "X,",
    "Y;",
    "f(X)",
    "self()",
    "is_integer(X)",
    "element(1,",
    "lists:seq(1,",
    "?MODULE",
    "receive",
    "throw(x)",
    "length(X)",
    "<<X:8>>",
    "[X|Y]",
    "{X,Y}",
    "not",
    ":=",
    "=>",
];

#[derive(Debug, Clone)]
enum Edit {
    Drop(usize),
    Repeat(usize),
    Swap(usize, usize),
    Replace(usize, &'static str),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        any::<usize>().prop_map(Edit::Drop),
        any::<usize>().prop_map(Edit::Repeat),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::Swap(a, b)),
        (any::<usize>(), prop::sample::select(WORDS)).prop_map(|(a, w)| Edit::Replace(a, w)),
    ]
}

/// Splits at spaces and newlines, keeping them, so an edit changes a word.
fn words(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in src.chars() {
        cur.push(c);
        if c == ' ' || c == '\n' {
            out.push(std::mem::take(&mut cur));
        }
    }
    out.push(cur);
    out
}

fn apply(ws: &mut Vec<String>, e: &Edit) {
    if ws.is_empty() {
        return;
    }
    let n = ws.len();
    match *e {
        Edit::Drop(i) => {
            ws.remove(i % n);
        }
        Edit::Repeat(i) => {
            let w = ws[i % n].clone();
            ws.insert(i % n, w);
        }
        Edit::Swap(a, b) => ws.swap(a % n, b % n),
        Edit::Replace(i, w) => ws[i % n] = format!("{w} "),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn mutants_compile_or_fail_with_diagnostics(
        pick in any::<prop::sample::Index>(),
        edits in prop::collection::vec(edit(), 1..4),
    ) {
        let seeds = seeds();
        prop_assume!(!seeds.is_empty());
        let mut ws = words(pick.get::<String>(&seeds));
        for e in &edits {
            apply(&mut ws, e);
        }
        let src: String = ws.concat();
        let path = Path::new("mutant.erl");
        if let Ok(parsed) = parse_source(path, &src, &ParseOptions::default()) {
            match compile_module(&parsed.module, &parsed.sources, &src, &CompileOptions::default()) {
                Ok(m) => {
                    let _ = trace_runtime::link::link(vec![m]);
                }
                Err(diags) => prop_assert!(!diags.is_empty()),
            }
        }
    }
}
