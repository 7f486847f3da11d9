//! Property: the front end (lexer, preprocessor, parser) survives any
//! source. Random token soups, arbitrary text and mutations of the bundled
//! fixtures are parsed; each must end in a tree or in diagnostics (with
//! positions inside the text), within a time bound, never in a panic.

use proptest::prelude::*;
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;
use trace_syntax::{parse_expr, parse_source, ParseOptions};

/// Generous: a parse takes microseconds; a hang would take forever.
const BOUND: Duration = Duration::from_secs(20);

/// Runs `f` on another thread and fails if it panics or overruns `BOUND`.
fn bounded<F: FnOnce() + Send + 'static>(what: &str, f: F) {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || {
            f();
            let _ = tx.send(());
        })
        .expect("thread");
    match rx.recv_timeout(BOUND) {
        Ok(()) => {}
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("{what}: no result within {BOUND:?}"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("{what}: panicked"),
    }
}

fn parse(source: String) {
    bounded("parse_source", move || {
        let path = Path::new("fuzz.erl");
        match parse_source(path, &source, &ParseOptions::default()) {
            Ok(_) => {}
            Err(diags) => {
                assert!(!diags.is_empty(), "an error without a diagnostic");
                let lines = source.lines().count() as u32 + 1;
                for d in &diags {
                    assert!(d.line <= lines, "diagnostic past the end: {d}");
                    assert!(!d.message.is_empty());
                }
            }
        }
    });
}

/// Erlang fragments, so that random sources get deep into the parser.
const FRAGMENTS: &[&str] = &[
    "-module(m).",
    "-export([f/1]).",
    "-define(M(X), X + 1).",
    "-define(C, 42).",
    "-ifdef(C).",
    "-ifndef(D).",
    "-else.",
    "-endif.",
    "-undef(C).",
    "-record(r, {a = 1, b}).",
    "-include(\"x.hrl\").",
    "-if(?C > 1).",
    "-elif(true).",
    "f(X) ->",
    "f(_) ->",
    "g() ->",
    "when",
    "->",
    ";",
    ",",
    ".",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "<<",
    ">>",
    "#{",
    "#r{",
    "#r.a",
    "=>",
    ":=",
    "|",
    "||",
    "<-",
    "<=",
    "=",
    "==",
    "=:=",
    "=/=",
    "/=",
    "<",
    ">",
    "=<",
    ">=",
    "+",
    "-",
    "*",
    "/",
    "div",
    "rem",
    "band",
    "bor",
    "bsl",
    "bsr",
    "bnot",
    "not",
    "and",
    "or",
    "xor",
    "andalso",
    "orelse",
    "++",
    "--",
    "!",
    "?",
    "??",
    "?M(",
    "?C",
    "?MODULE",
    "?LINE",
    "case",
    "of",
    "end",
    "if",
    "try",
    "catch",
    "after",
    "receive",
    "begin",
    "fun",
    "fun f/1",
    "fun m:f/2",
    "X",
    "Y",
    "_",
    "_Z",
    "ok",
    "'quoted'",
    "$a",
    "$\\n",
    "1",
    "16#FF",
    "2#101",
    "1.5",
    "1.0e10",
    "1_000",
    "\"str\"",
    "\"\\x{41}\"",
    "<<\"b\"/utf8>>",
    ":",
    "#",
    "%% comment\n",
    "\n",
    " ",
    "\t",
    "'",
    "\"",
    "\\",
    "$",
    "...",
    "::",
    "spec",
    "-spec f(integer()) -> ok.",
    "-type t() :: atom().",
    "maybe",
    "else",
    "cond",
    "let",
    "catch throw(x)",
    "X:8/binary",
    "<<X:16/little-signed>>",
    "[X || X <- L, X > 0]",
    "<< <<B>> || <<B>> <= Bin >>",
];

fn soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(FRAGMENTS), 0..80).prop_map(|v| v.join(" "))
}

/// The bundled fixtures' sources, realistic starting points for mutation,
/// read once for all cases.
static SEEDS: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(read_seeds);

fn seeds() -> Vec<String> {
    SEEDS.clone()
}

fn read_seeds() -> Vec<String> {
    trace_fixtures::sources("seq")
}

#[derive(Debug, Clone)]
enum Mutation {
    Delete(usize, usize),
    Duplicate(usize, usize),
    Insert(usize, &'static str),
    Truncate(usize),
    Swap(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1usize..40).prop_map(|(a, n)| Mutation::Delete(a, n)),
        (any::<usize>(), 1usize..200).prop_map(|(a, n)| Mutation::Duplicate(a, n)),
        (any::<usize>(), prop::sample::select(FRAGMENTS)).prop_map(|(a, f)| Mutation::Insert(a, f)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Swap(a, b)),
    ]
}

/// Applies a mutation on character boundaries.
fn mutate(src: &str, m: &Mutation) -> String {
    let cs: Vec<char> = src.chars().collect();
    let n = cs.len().max(1);
    let mut out = cs.clone();
    match *m {
        Mutation::Delete(a, len) => {
            let a = a % n;
            out.drain(a..(a + len).min(cs.len()));
        }
        Mutation::Duplicate(a, len) => {
            let a = a % n;
            let piece: Vec<char> = cs[a.min(cs.len())..(a + len).min(cs.len())].to_vec();
            out.splice(a.min(cs.len())..a.min(cs.len()), piece);
        }
        Mutation::Insert(a, f) => {
            let a = (a % n).min(cs.len());
            out.splice(a..a, f.chars());
        }
        Mutation::Truncate(a) => out.truncate(a % n),
        Mutation::Swap(a, b) => {
            if !cs.is_empty() {
                out.swap(a % cs.len(), b % cs.len());
            }
        }
    }
    out.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn token_soups_never_break_the_front_end(body in soup()) {
        parse(format!("-module(m).\n{body}\n"));
        parse(body);
    }

    #[test]
    fn arbitrary_text_never_breaks_the_front_end(text in "\\PC{0,300}") {
        parse(text.clone());
        bounded("parse_expr", move || { let _ = parse_expr(&text); });
    }

    #[test]
    fn mutated_fixtures_never_break_the_front_end(
        pick in any::<prop::sample::Index>(),
        ms in prop::collection::vec(mutation(), 1..6),
    ) {
        let seeds = seeds();
        prop_assume!(!seeds.is_empty());
        let mut src = pick.get(&seeds).clone();
        for m in &ms {
            src = mutate(&src, m);
        }
        parse(src);
    }
}

#[test]
fn pathological_nesting_is_an_error_not_a_crash() {
    for depth in [1_000usize, 100_000] {
        parse(format!(
            "-module(m).\nf() -> {}1{}.\n",
            "(".repeat(depth),
            ")".repeat(depth)
        ));
        parse(format!(
            "-module(m).\nf() -> {}1{}.\n",
            "[".repeat(depth),
            "]".repeat(depth)
        ));
        parse(format!("-module(m).\nf() -> {}.\n", "begin ".repeat(depth)));
        parse(format!(
            "-module(m).\n-define(A, ?A).\nf() -> ?A.\n{}",
            "-ifdef(X).\n".repeat(depth)
        ));
    }
}
