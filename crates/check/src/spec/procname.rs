//! Process names inside a specification: `<P.2.1>` (a symbolic name) and
//! `<0.83.0>` (a raw pid). Neither is Erlang syntax, so before the text is
//! tokenized each is replaced by a variable of the same length — columns stay
//! true — that no one writes by hand: `<P.2.1>` becomes `_@_2_1_` and
//! `<0.83.0>` becomes `_0_83_0_`. Patterns and guards then see an ordinary
//! variable, which the compiler binds to the process's pid before matching,
//! so a name works everywhere a pid may appear: as an event's process, inside
//! a message pattern, in a guard.
//!
//! Strings, quoted atoms, character literals and comments are left alone.

use trace_capture::{ProcRef, SymbolicName};

/// The placeholder variable standing for `p` (the same length as `p` written).
pub fn placeholder(p: &ProcRef) -> String {
    match p {
        ProcRef::Name(n) => {
            let mut s = String::from("_@");
            for k in n.path() {
                s.push('_');
                s.push_str(&k.to_string());
            }
            s.push('_');
            s
        }
        ProcRef::Pid(n) => format!("_0_{n}_0_"),
    }
}

/// The process a placeholder variable stands for, if `var` is one.
pub fn from_placeholder(var: &str) -> Option<ProcRef> {
    let rest = var.strip_prefix('_')?;
    if let Some(path) = rest.strip_prefix('@') {
        let inner = path.strip_prefix('_')?;
        if inner.is_empty() {
            return Some(ProcRef::Name(SymbolicName::root()));
        }
        let inner = inner.strip_suffix('_')?;
        let mut p = Vec::new();
        for part in inner.split('_') {
            let n: u32 = part.parse().ok()?;
            if n == 0 || part.starts_with('0') {
                return None;
            }
            p.push(n);
        }
        return Some(ProcRef::Name(SymbolicName(p)));
    }
    let mid = rest.strip_prefix("0_")?.strip_suffix("_0_")?;
    if mid.is_empty() || !mid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(ProcRef::Pid(mid.parse().ok()?))
}

/// `text` with every process name replaced by its placeholder.
pub fn rewrite(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '%' => {
                // A comment runs to the end of the line.
                while i < chars.len() && chars[i] != '\n' {
                    out.push(chars[i]);
                    i += 1;
                }
            }
            '"' | '\'' => {
                out.push(c);
                i += 1;
                while i < chars.len() && chars[i] != c {
                    if chars[i] == '\\' && i + 1 < chars.len() {
                        out.push(chars[i]);
                        i += 1;
                    }
                    out.push(chars[i]);
                    i += 1;
                }
                if i < chars.len() {
                    out.push(chars[i]);
                    i += 1;
                }
            }
            '$' => {
                // A character literal: `$<`, `$\n`, `$\x{41}` ...
                out.push(c);
                i += 1;
                if i < chars.len() {
                    if chars[i] == '\\' && i + 1 < chars.len() {
                        out.push(chars[i]);
                        i += 1;
                    }
                    out.push(chars[i]);
                    i += 1;
                }
            }
            '<' if i == 0 || !matches!(chars[i - 1], '<' | '=') => match name_at(&chars[i..]) {
                Some((p, len)) => {
                    out.push_str(&placeholder(&p));
                    i += len;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            },
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// `<P>`, `<P.2.1>` or `<0.83.0>` at the start of `s`, with its length.
fn name_at(s: &[char]) -> Option<(ProcRef, usize)> {
    let mut i;
    let digits = |i: &mut usize| -> Option<String> {
        let start = *i;
        while *i < s.len() && s[*i].is_ascii_digit() {
            *i += 1;
        }
        (*i > start).then(|| s[start..*i].iter().collect())
    };
    match s.get(1)? {
        'P' => {
            i = 2;
            let mut path = Vec::new();
            while s.get(i) == Some(&'.') {
                i += 1;
                let d = digits(&mut i)?;
                if d.starts_with('0') {
                    return None;
                }
                path.push(d.parse().ok()?);
            }
            (s.get(i) == Some(&'>')).then(|| (ProcRef::Name(SymbolicName(path)), i + 1))
        }
        '0' => {
            i = 2;
            if s.get(i) != Some(&'.') {
                return None;
            }
            i += 1;
            let n = digits(&mut i)?;
            let tail: String = s.get(i..i + 3)?.iter().collect();
            (tail == ".0>").then(|| Some((ProcRef::Pid(n.parse().ok()?), i + 3)))?
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_placeholders_of_the_same_length() {
        let src = "send(<P.2.1>, <0.83.0>, {<P>, \"<P.1>\", '<P.1>', $<}) % <P.3>\n";
        let out = rewrite(src);
        assert_eq!(
            out,
            "send(_@_2_1_, _0_83_0_, {_@_, \"<P.1>\", '<P.1>', $<}) % <P.3>\n"
        );
        assert_eq!(out.chars().count(), src.chars().count());
        for p in ["<P>", "<P.2.1>", "<P.12>", "<0.83.0>"] {
            let (r, len) = name_at(&p.chars().collect::<Vec<_>>()).unwrap();
            assert_eq!(len, p.len());
            assert_eq!(placeholder(&r).len(), p.len());
            assert_eq!(from_placeholder(&placeholder(&r)), Some(r));
        }
    }

    #[test]
    fn other_angle_brackets_stay() {
        for s in [
            "X < P", "<<P>>", "X =<P", "<P.0>", "<P.>", "<1.2.3>", "<0.83.1>",
        ] {
            assert_eq!(rewrite(s), s, "{s}");
        }
        assert_eq!(from_placeholder("_Ref"), None);
        assert_eq!(from_placeholder("_@x"), None);
    }
}
