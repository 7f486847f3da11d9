//! Sources erlc refuses are refused, and a limit of the front end is named
//! for what it is: text that is not UTF-8 (unless declared Latin-1), an
//! attribute whose value is not a term, a form over the token limit with no
//! macro in it.

use trace_fixtures::Scratch;
use trace_syntax::{parse_file, parse_source, ParseOptions, MAX_EXPANDED_TOKENS};

fn errors(src: &str) -> Vec<String> {
    match parse_source("m.erl".as_ref(), src, &ParseOptions::default()) {
        Ok(_) => Vec::new(),
        Err(ds) => ds
            .iter()
            .map(|d| format!("{}:{}: {}", d.line, d.col, d.message))
            .collect(),
    }
}

/// erlc: "cannot translate from UTF-8" at the first bad byte, in a string,
/// a comment or between tokens; a `coding: latin-1` comment in the first two
/// lines makes the bytes Latin-1 (valid UTF-8 or not, as epp).
#[test]
fn a_source_that_is_not_utf8_is_refused_unless_declared_latin1() {
    let dir = Scratch::new("syntax-utf8");
    let head = "-module(m).\n-export([main/0]).\n";
    for (body, at) in [
        (&b"main() -> \"caf\xe9\".\n"[..], "3:15"),
        (b"% caf\xe9\nmain() -> ok.\n", "3:6"),
        (b"main() -> \xff.\n", "3:11"),
        (b"main() -> '\xc3'.\n", "3:12"),
    ] {
        let path = dir.path("m.erl");
        std::fs::write(&path, [head.as_bytes(), body].concat()).unwrap();
        let diags = parse_file(&path, &ParseOptions::default()).expect_err("refused");
        let shown: Vec<String> = diags
            .iter()
            .map(|d| format!("{}:{}: {}", d.line, d.col, d.message))
            .collect();
        assert_eq!(shown, [format!("{at}: cannot translate from UTF-8")]);
    }
    for coding in ["%% coding: latin-1\n", "%% -*- coding: LATIN-1 -*-\n"] {
        let path = dir.path("l.erl");
        let text = [
            coding.as_bytes(),
            b"-module(l).\nmain() -> \"caf\xe9\xc3\xa9\".\n",
        ]
        .concat();
        std::fs::write(&path, text).unwrap();
        let parsed = parse_file(&path, &ParseOptions::default()).expect("latin-1 is read");
        let shown = format!("{:?}", parsed.module.forms);
        // é, then the two bytes of a UTF-8 é read as two Latin-1 characters.
        assert!(shown.contains("[99, 97, 102, 233, 195, 169]"), "{shown}");
    }
}

/// An attribute's value must be one term (erl_parse's `bad attribute`, at
/// the value); terms of every shape are accepted.
#[test]
fn an_attribute_whose_value_is_not_a_term_is_refused() {
    for (attr, col) in [
        ("-'a b' export([main/0]).", 8),
        ("-foo(bar(1)).", 6),
        ("-foo X.", 6),
        ("-foo(a, b).", 9),
        ("-foo #{a := 1}.", 6),
        ("-bar(f/a).", 6),
    ] {
        let errs = errors(&format!("-module(m).\n{attr}\nmain() -> ok.\n"));
        assert_eq!(errs.len(), 1, "{attr}: {errs:?}");
        assert!(
            errs[0].starts_with(&format!("2:{col}: bad attribute")),
            "{attr}: {errs:?}"
        );
    }
    for attr in [
        "-foo(-1).",
        "-foo [a|b].",
        "-foo #{a => [1, 2.0]}.",
        "-foo <<1, \"s\">>.",
        "-foo fun m:f/1.",
        "-foo {a, \"s\", $a}.",
        "-vsn(\"1.0\").",
        "-on_load(main/0).",
        "-dialyzer({nowarn_function, [main/0]}).",
    ] {
        let errs = errors(&format!("-module(m).\n{attr}\nmain() -> ok.\n"));
        assert!(errs.is_empty(), "{attr}: {errs:?}");
    }
}

/// One form of more tokens than the front end takes is refused with the
/// limit, and named a macro expansion only when a macro made it.
#[test]
fn a_form_over_the_token_limit_says_what_the_limit_is() {
    let n = MAX_EXPANDED_TOKENS / 2 + 1;
    let list = vec!["1"; n].join(",");
    let errs = errors(&format!("-module(m).\nf() -> [{list}].\n"));
    assert_eq!(errs.len(), 1, "{errs:?}");
    let limit = format!("over {MAX_EXPANDED_TOKENS} tokens in one form");
    assert!(
        errs[0].contains("form too large") && errs[0].contains(&limit),
        "{errs:?}"
    );
    assert!(!errs[0].contains("macro"), "{errs:?}");
    let half = vec!["1"; n / 2 + 1].join(",");
    let errs = errors(&format!(
        "-module(m).\n-define(H, {half}).\nf() -> [?H, ?H].\n"
    ));
    assert!(errs[0].contains("macro expansion too large"), "{errs:?}");
}
