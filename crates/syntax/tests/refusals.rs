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
