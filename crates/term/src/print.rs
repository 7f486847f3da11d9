//! Printing terms as Erlang does (`~w`; `~p` lives in [`crate::pretty`]).

use crate::term::Term;
use std::fmt::Write;

/// The term as `io:format("~w", [T])` prints it.
pub fn write_term(t: &Term) -> String {
    let mut s = String::new();
    write_into(&mut s, t);
    s
}

fn write_into(out: &mut String, t: &Term) {
    match t {
        Term::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Term::Big(b) => {
            let _ = write!(out, "{b}");
        }
        Term::Float(f) => {
            let _ = write!(out, "{f:?}");
        }
        Term::Atom(a) => out.push_str(a.name()),
        Term::Nil => out.push_str("[]"),
        Term::Cons(_) => {
            out.push('[');
            let mut it = t.list_iter();
            let mut first = true;
            for e in &mut it {
                if !first {
                    out.push(',');
                }
                first = false;
                write_into(out, e);
            }
            if !it.is_proper() {
                out.push('|');
                write_into(out, it.rest());
            }
            out.push(']');
        }
        Term::Tuple(tu) => {
            out.push('{');
            for (i, e) in tu.elements().iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_into(out, e);
            }
            out.push('}');
        }
        Term::Map(m) => {
            out.push_str("#{");
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_into(out, k);
                out.push_str("=>");
                write_into(out, v);
            }
            out.push('}');
        }
        Term::Binary(b) => {
            out.push_str("<<");
            for (i, x) in b.bytes().iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let _ = write!(out, "{x}");
            }
            out.push_str(">>");
        }
        Term::Fun(_) => out.push_str("#Fun<>"),
        Term::Pid(p) => {
            let _ = write!(out, "{p}");
        }
        Term::Ref(r) => {
            let _ = write!(out, "{r}");
        }
    }
}
