//! `~p`: printing terms over several lines as `io_lib_pretty` does in OTP 25.
//!
//! Printing is two passes, as in OTP: `measure` turns the term into a tree
//! of pieces that knows each piece's one-line text and length (cutting at the
//! depth limit and choosing string or list form), then `layout` decides
//! where lines break and how far continuation lines are indented, given the
//! column the term starts at and the line length.
//!
//! Records are printed as the tuples they are: `io:format` has no record
//! definitions to print them with.

mod layout;
mod measure;

use crate::print::write_term_with;
use crate::quote::{push_atom, Encoding};
use crate::term::Term;

/// How to print: what `io:format`'s `~p` passes to `io_lib_pretty`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrettyOptions {
    /// The column the term starts at, 1 for the start of a line.
    pub column: i64,
    /// The line length (`~Np` sets it; 80 by default, 0 for one line).
    pub line_length: i64,
    /// How deep to print (`~P`); negative for no limit.
    pub depth: i64,
    /// `latin1` for `~p`, `unicode` for `~tp`.
    pub encoding: Encoding,
    /// Whether lists of characters may print as strings (`false` for `~lp`).
    pub strings: bool,
    /// Which characters count as printable in strings: OTP's `io:printable_range()`,
    /// latin1 unless `erl` was started with `+pc unicode`.
    pub printable_range: Encoding,
}

impl Default for PrettyOptions {
    fn default() -> Self {
        PrettyOptions {
            column: 1,
            line_length: 80,
            depth: -1,
            encoding: Encoding::Latin1,
            strings: true,
            printable_range: Encoding::Latin1,
        }
    }
}

/// The term as `io_lib_pretty:print/2` prints it with these options.
pub fn pretty(t: &Term, opts: &PrettyOptions) -> String {
    let mut out = String::new();
    pretty_into(&mut out, t, opts);
    out
}

/// Nesting that the recursive passes handle on the caller's stack; deeper
/// terms are printed on a helper thread whose stack grows with the depth.
const SHALLOW: usize = 100;
/// Measured at 256–512 bytes per level of nesting in a release build; twice
/// that for margin (unoptimised builds, the tests', take several times more).
const STACK_PER_LEVEL: usize = if cfg!(debug_assertions) { 8192 } else { 1024 };
/// When no thread with a stack that deep can be had, the term is printed as
/// `~P` prints it with this depth: cut short with `...`, but printed.
const FALLBACK_DEPTH: i64 = 1000;

/// Appends the term as `io_lib_pretty:print/2` prints it.
pub fn pretty_into(out: &mut String, t: &Term, opts: &PrettyOptions) {
    let depth = nesting(t);
    if depth <= SHALLOW {
        return print_into(out, t, opts);
    }
    std::thread::scope(|s| {
        let worker = std::thread::Builder::new()
            .stack_size((1 << 20) + depth * STACK_PER_LEVEL)
            .spawn_scoped(s, || {
                let mut text = String::new();
                print_into(&mut text, t, opts);
                text
            });
        match worker {
            Ok(handle) => match handle.join() {
                Ok(text) => out.push_str(&text),
                Err(panic) => std::panic::resume_unwind(panic),
            },
            // No thread to be had: print what this stack surely holds.
            Err(_) => {
                let depth = match opts.depth {
                    d if d >= 0 => d.min(FALLBACK_DEPTH),
                    _ => FALLBACK_DEPTH,
                };
                print_into(out, t, &PrettyOptions { depth, ..*opts })
            }
        }
    })
}

/// How deeply compound terms nest in `t` (list spines do not count).
fn nesting(t: &Term) -> usize {
    let mut max = 0;
    let mut stack = vec![(t, 0usize)];
    while let Some((t, d)) = stack.pop() {
        max = max.max(d);
        match t {
            Term::Cons(_) => {
                let mut it = t.list_iter();
                for e in &mut it {
                    stack.push((e, d + 1));
                }
                stack.push((it.rest(), d + 1));
            }
            Term::Tuple(tu) => stack.extend(tu.elements().iter().map(|e| (e, d + 1))),
            Term::Map(m) => {
                for (k, v) in m.iter() {
                    stack.push((k, d + 1));
                    stack.push((v, d + 1));
                }
            }
            _ => {}
        }
    }
    max
}

fn print_into(out: &mut String, t: &Term, opts: &PrettyOptions) {
    if opts.depth == 0 {
        out.push_str("...");
        return;
    }
    let col = opts.column.max(1);
    match t {
        Term::Atom(a) => push_atom(out, a.name(), opts.encoding),
        Term::Tuple(_) | Term::Nil | Term::Cons(_) | Term::Map(_) | Term::Binary(_) => {
            let piece = measure::measure(t, opts.depth, opts);
            let ll = opts.line_length;
            // The longest line allowed is the whole term's length (no line_max_chars).
            let m = piece.len;
            if ll == 0 || piece.len < ll - col {
                layout::write(out, &piece);
            } else {
                let tind = [-1, 4]
                    .into_iter()
                    .find(|&i| layout::cind(&piece, col, ll, m, i, 0, 0).is_ok())
                    .unwrap_or(1);
                let lay = layout::Layout { ll, m, tind };
                lay.pp(out, &piece, col, col - 1, 0, 0);
            }
        }
        _ => out.push_str(&write_term_with(t, -1, Encoding::Latin1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_deepest_decodable_term_pretty_prints() {
        let mut t = Term::Nil;
        for i in 0..crate::etf::MAX_DEPTH {
            t = Term::tuple(vec![Term::Int(i as i64), t]);
        }
        let s = pretty(&t, &PrettyOptions::default());
        assert!(s.starts_with("{1999,\n {1998,\n  {1997,"), "{}", &s[..40]);
        assert_eq!(s.lines().count(), crate::etf::MAX_DEPTH + 1);
        while let Term::Tuple(tu) = t {
            t = tu.elements()[1].clone();
        }
    }
}
