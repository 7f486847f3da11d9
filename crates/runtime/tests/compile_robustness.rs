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

/// Compiles one module; the diagnostics' `line:col: message`s on failure.
fn compile(src: &str) -> Result<(), Vec<String>> {
    let path = Path::new("big.erl");
    let parsed = parse_source(path, src, &ParseOptions::default()).expect("parses");
    compile_module(
        &parsed.module,
        &parsed.sources,
        src,
        &CompileOptions::default(),
    )
    .map(|_| ())
    .map_err(|ds| {
        ds.iter()
            .map(|d| format!("{}:{}: {}", d.line, d.col, d.message))
            .collect()
    })
}

fn module(body: &str) -> String {
    format!("-module(big).\n-export([main/0]).\n{body}\n")
}

fn joined(item: &str, n: usize) -> String {
    vec![item; n].join(",")
}

/// Asserts one diagnostic at `at` that says the slot limit is the cause.
fn assert_slot_limit(src: &str, at: &str, context: &str) {
    let diags = compile(src).expect_err("refused");
    assert_eq!(diags.len(), 1, "{diags:?}");
    let d = &diags[0];
    assert!(d.starts_with(&format!("{at}: unsupported: ")), "{d}");
    assert!(d.contains("more than 65535 slots"), "{d}");
    assert!(d.contains(context), "{d}");
}

/// A function's slots (arguments, variables, intermediate values) are 16-bit
/// operands: a construct that needs more is refused where it stands, with
/// the limit, whatever builds it (a tuple, a record, a map, a guard,
/// a pattern, nesting), and in bounded memory; up to the limit it compiles.
#[test]
fn functions_beyond_the_slot_limit_are_refused_with_the_limit() {
    let tuple = |n| module(&format!("main() -> X = 1, {{{}}}.", joined("X", n)));
    compile(&tuple(65_533)).expect("the largest tuple that fits compiles");
    assert_slot_limit(&tuple(65_534), "3:18", "a tuple of 65534 elements");
    assert_slot_limit(&tuple(70_000), "3:18", "a tuple of 70000 elements");
    let fields: Vec<String> = (0..100_000).map(|i| format!("f{i}")).collect();
    let record = |n: usize| {
        format!(
            "-module(big).\n-export([main/0]).\n-record(r, {{{}}}).\nmain() -> #r{{}}.\n",
            fields[..n].join(",")
        )
    };
    assert_slot_limit(&record(65_534), "4:11", "a record #r{} of 65535 elements");
    assert_slot_limit(&record(100_000), "4:11", "a record #r{} of 100001 elements");
    let map = module(&format!(
        "main() -> X = 1, #{{{}}}.",
        (0..40_000)
            .map(|i| format!("{i} => X"))
            .collect::<Vec<_>>()
            .join(",")
    ));
    assert_slot_limit(&map, "3:18", "a map of 80000 keys and values");
    let guard = module(&format!(
        "main() -> X = 1, if {{{}}} =:= X -> ok; true -> no end.",
        joined("X", 70_000)
    ));
    assert_slot_limit(&guard, "3:21", "a tuple of 70000 elements");
    // The tuple fits, but its elements need one more intermediate value.
    let nested = module(&format!("main() -> X = 1, {{{}}}.", joined("[X]", 65_533)));
    assert_slot_limit(&nested, "3:19", "to compute this expression");
    let pattern = module(&format!(
        "main() -> f(x).\nf({{{}}}) -> ok;\nf(_) -> no.",
        joined("_", 70_000)
    ));
    let diags = compile(&pattern).expect_err("refused");
    assert!(
        diags[0].starts_with("4:3: unsupported: a tuple pattern of 70000 elements"),
        "{diags:?}"
    );
    let vars: Vec<String> = (0..60_001).map(|i| format!("V{i}")).collect();
    let many = module(&format!("main() -> {{{}}} = {{}}.", vars.join(",")));
    assert_slot_limit(&many, "3:1", "with more than 60000 variables");
}
