//! Small pieces of wording shared by the session's printers (`render`,
//! `show`): terms as `~p` prints them, paths as the user gave them, plurals.

use trace_term::PrettyOptions;

/// Terms as `~p` prints them.
pub fn pretty(t: &trace_term::Term) -> String {
    trace_term::pretty(t, &PrettyOptions::default())
}

/// A path as the user gave it, without a leading `./`.
pub fn short_path(p: &str) -> &str {
    p.strip_prefix("./").unwrap_or(p)
}

pub fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
