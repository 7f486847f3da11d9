//! Expressions parsed by us and by OTP 25's erl_parse must give the same
//! trees with the same positions (`data/exprs.expected` was written by erl).

mod common;

use std::path::Path;
use trace_syntax::{lexer, Parser, SourceMap, TokenKind};

/// What `expected.escript exprs` prints for one line.
fn ours(line: &str) -> String {
    let path = Path::new("exprs.txt");
    let sources = SourceMap {
        files: vec![path.to_path_buf()],
    };
    let tokens = match lexer::tokenize(line, 0, path) {
        Ok(t) => t,
        Err(d) => return format!("error {}:{} {}", d.line, d.col, d.message),
    };
    let mut parser = Parser::new(&tokens, &sources);
    let result = parser.parse_exprs().and_then(|es| match parser.peek() {
        Some(t) if t.kind == TokenKind::Dot => Ok(es),
        _ => Err(parser.error_expected("'.'")),
    });
    match result {
        Ok(es) => format!(
            "[{}]",
            es.iter().map(common::expr).collect::<Vec<_>>().join(",")
        ),
        Err(d) => format!("error {}:{} {}", d.line, d.col, d.message),
    }
}

#[test]
fn expressions_match_erl_parse() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let input = std::fs::read_to_string(dir.join("exprs.txt")).unwrap();
    let expected = std::fs::read_to_string(dir.join("exprs.expected")).unwrap();
    let lines: Vec<&str> = input.lines().filter(|l| !l.is_empty()).collect();
    let expected: Vec<&str> = expected.lines().collect();
    assert_eq!(
        lines.len(),
        expected.len(),
        "one expected line per input line"
    );
    let mut failures = Vec::new();
    for (line, want) in lines.iter().zip(&expected) {
        let got = ours(line);
        // Our syntax errors add what was expected after erlc's wording.
        let same = if want.starts_with("error ") {
            got.starts_with(want.trim_end())
        } else {
            got == *want
        };
        if !same {
            failures.push(format!("input: {line}\n want: {want}\n  got: {got}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
