//! Writing terms on one line as `io_lib:write` does (`~w`, `~W`, `~tw`);
//! `~p` lives in [`crate::pretty`](mod@crate::pretty).
//!
//! The writer walks the term with an explicit stack rather than recursion, so
//! a deeply nested term built by a program cannot overflow the thread's stack.

use crate::fun::Fun;
use crate::numtext::short_float;
use crate::quote::{push_atom, Encoding};
use crate::term::Term;
use std::fmt::Write;

/// The term as `io:format("~w", [T])` prints it.
pub fn write_term(t: &Term) -> String {
    write_term_with(t, -1, Encoding::Latin1)
}

/// `~W` (and `~tW`): as [`write_term`] with a depth limit; a negative depth
/// means no limit. Parts below the limit print as `...`.
pub fn write_term_with(t: &Term, depth: i64, enc: Encoding) -> String {
    let mut out = String::new();
    write_into(&mut out, t, depth, enc);
    out
}

enum Item<'a> {
    Term(&'a Term, i64),
    Text(&'static str),
    /// The rest of a list after its first element (`io_lib`'s `write_tail`).
    ListTail(&'a Term, i64),
    /// Tuple elements from the second on, with the depth left for the next one.
    TupleRest(&'a [Term], i64),
}

/// Appends `t` as `io_lib:write(T, Depth)` writes it.
pub fn write_into(out: &mut String, t: &Term, depth: i64, enc: Encoding) {
    let mut stack = vec![Item::Term(t, depth)];
    while let Some(item) = stack.pop() {
        match item {
            Item::Text(s) => out.push_str(s),
            Item::Term(t, d) => write_one(out, &mut stack, t, d, enc),
            Item::ListTail(t, d) => match t {
                Term::Nil => {}
                _ if d == 1 => out.push_str("|..."),
                Term::Cons(c) => {
                    out.push(',');
                    stack.push(Item::ListTail(&c.tail, d - 1));
                    stack.push(Item::Term(&c.head, d - 1));
                }
                other => {
                    out.push('|');
                    stack.push(Item::Term(other, d - 1));
                }
            },
            Item::TupleRest(elems, d) => match elems.split_first() {
                None => {}
                Some(_) if d == 1 => out.push_str(",..."),
                Some((e, rest)) => {
                    out.push(',');
                    stack.push(Item::TupleRest(rest, d - 1));
                    stack.push(Item::Term(e, d - 1));
                }
            },
        }
    }
}

fn write_one<'a>(out: &mut String, stack: &mut Vec<Item<'a>>, t: &'a Term, d: i64, enc: Encoding) {
    if d == 0 {
        out.push_str("...");
        return;
    }
    match t {
        Term::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Term::Big(b) => {
            let _ = write!(out, "{b}");
        }
        Term::Float(f) => out.push_str(&short_float(*f)),
        Term::Atom(a) => push_atom(out, a.name(), enc),
        Term::Nil => out.push_str("[]"),
        Term::Cons(_) if d == 1 => out.push_str("[...]"),
        Term::Cons(c) => {
            out.push('[');
            stack.push(Item::Text("]"));
            stack.push(Item::ListTail(&c.tail, d - 1));
            stack.push(Item::Term(&c.head, d - 1));
        }
        Term::Tuple(tu) => match tu.elements().split_first() {
            None => out.push_str("{}"),
            Some(_) if d == 1 => out.push_str("{...}"),
            Some((first, rest)) => {
                out.push('{');
                stack.push(Item::Text("}"));
                stack.push(Item::TupleRest(rest, d - 1));
                stack.push(Item::Term(first, d - 1));
            }
        },
        // OTP 25 writes a map at depth 1 as `#{}`, and after the first entry
        // ends with `,...` once the depth runs out, even if no entry is left.
        Term::Map(_) if d == 1 => out.push_str("#{}"),
        Term::Map(m) => {
            out.push_str("#{");
            stack.push(Item::Text("}"));
            let mut items = Vec::with_capacity(4 * m.len().min(d.max(0) as usize) + 1);
            let mut left = d - 1;
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    if left == 1 {
                        break;
                    }
                    items.push(Item::Text(","));
                    left -= 1;
                }
                items.push(Item::Term(k, d - 1));
                items.push(Item::Text(" => "));
                items.push(Item::Term(v, d - 1));
            }
            if left == 1 && !m.is_empty() {
                items.push(Item::Text(",..."));
            }
            stack.extend(items.into_iter().rev());
        }
        Term::Binary(b) => write_bitstring(out, b, d),
        Term::Fun(f) => write_fun(out, f, enc),
        Term::Pid(p) => {
            let _ = write!(out, "{p}");
        }
        Term::Ref(r) => {
            let _ = write!(out, "{r}");
        }
    }
}

/// `<<1,2,3>>`, `<<1,2,5:3>>`; at depth `d` only `d - 1` bytes are shown.
pub(crate) fn write_bitstring(out: &mut String, b: &crate::bits::Bitstring, d: i64) {
    out.push_str("<<");
    let tail_bits = b.bit_len() % 8;
    let units = b.bytes().len();
    for (i, &byte) in b.bytes().iter().enumerate() {
        // The depth left for unit i is d - i; at 1 the rest is elided.
        if d - i as i64 == 1 {
            out.push_str("...");
            break;
        }
        if i + 1 == units && tail_bits > 0 {
            let _ = write!(out, "{}:{}", byte >> (8 - tail_bits), tail_bits);
        } else {
            let _ = write!(out, "{byte}");
        }
        if i + 1 < units {
            out.push(',');
        }
    }
    out.push_str(">>");
}

/// `fun m:f/1` and `#Fun<m.Index.Uniq>`.
pub(crate) fn write_fun(out: &mut String, f: &Fun, enc: Encoding) {
    match f {
        Fun::External {
            module,
            function,
            arity,
        } => {
            out.push_str("fun ");
            push_atom(out, module.name(), enc);
            out.push(':');
            push_atom(out, function.name(), enc);
            let _ = write!(out, "/{arity}");
        }
        Fun::Closure {
            module,
            index,
            uniq,
            ..
        } => {
            out.push_str("#Fun<");
            push_atom(out, module.name(), enc);
            let _ = write!(out, ".{index}.{uniq}>");
        }
    }
}

impl std::fmt::Debug for Term {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&write_term(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_nesting_does_not_overflow_the_stack() {
        let mut t = Term::Nil;
        for _ in 0..200_000 {
            t = Term::tuple(vec![t]);
        }
        let s = write_term(&t);
        assert_eq!(s.len(), 200_000 * 2 + 2);
        // Unwind the nesting iteratively so the drop does not recurse either.
        while let Term::Tuple(tu) = t {
            t = tu.elements()[0].clone();
        }
    }

    #[test]
    fn depth_limits_lists_and_tuples() {
        let l = Term::list((1..=5).map(Term::Int).collect());
        assert_eq!(write_term_with(&l, 3, Encoding::Latin1), "[1,2|...]");
        let t = Term::tuple((1..=5).map(Term::Int).collect());
        assert_eq!(write_term_with(&t, 3, Encoding::Latin1), "{1,2,...}");
    }
}
