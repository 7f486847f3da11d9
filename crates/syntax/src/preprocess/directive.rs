//! The directives that change the preprocessor's state or report:
//! `-define`, `-undef`, `-include`, `-include_lib`, `-error`, `-warning`.

use super::include;
use super::include::IncludeKind;
use super::macros::{is_predefined, Expander, MacroDef};
use super::{Item, Preprocessor};
use crate::ast::{Expr, ExprKind, IntLit, Pos};
use crate::diag::DiagKind;
use crate::parser::Parser;
use crate::text;
use crate::token::{Punct, Token, TokenKind};

/// The tokens between `-name(` and the `).` that ends the form, or the
/// position of the first token that does not fit that shape.
pub(super) fn directive_args(form: &[Token]) -> Result<&[Token], Pos> {
    let last = form.len() - 1;
    match form.get(2) {
        Some(t) if t.kind.is_punct(Punct::LParen) => {}
        Some(t) => return Err(t.pos),
        None => return Err(form[last].pos),
    }
    if form[last].kind != TokenKind::Dot {
        return Err(form[last].pos);
    }
    match form.get(last - 1) {
        Some(t) if last >= 4 && t.kind.is_punct(Punct::RParen) => Ok(&form[3..last - 1]),
        Some(t) => Err(t.pos),
        None => Err(form[last].pos),
    }
}

/// A macro name: an atom or a variable.
pub(super) fn macro_name(token: &Token) -> Option<&str> {
    match &token.kind {
        TokenKind::Atom(a) | TokenKind::Var(a) => Some(a),
        _ => None,
    }
}

pub(super) fn directive(pp: &mut Preprocessor<'_>, name: &str, form: &[Token]) {
    match name {
        "define" => define(pp, form),
        "undef" => match directive_args(form) {
            Ok([token]) if macro_name(token).is_some() => {
                let name = macro_name(token).unwrap_or_default().to_string();
                pp.macros.undefine(&name);
            }
            Ok(args) => {
                let pos = args.get(1).or(args.first()).map_or(form[2].pos, |t| t.pos);
                pp.error(DiagKind::Syntax, pos, "badly formed 'undef'");
            }
            Err(pos) => pp.error(DiagKind::Syntax, pos, "badly formed 'undef'"),
        },
        "include" | "include_lib" => include_directive(pp, name, form),
        _ => report(pp, name, form),
    }
}

fn define(pp: &mut Preprocessor<'_>, form: &[Token]) {
    let bad = |pos: Pos| (pos, "badly formed 'define'".to_string());
    let result = (|| {
        let last = form.len() - 1;
        match form.get(2) {
            Some(t) if t.kind.is_punct(Punct::LParen) => {}
            _ => return Err(bad(form.get(2).map_or(form[last].pos, |t| t.pos))),
        }
        let name_token = form.get(3).ok_or_else(|| bad(form[last].pos))?;
        let name = macro_name(name_token).ok_or_else(|| bad(name_token.pos))?;
        let mut i = 4;
        let mut params = None;
        if form.get(i).is_some_and(|t| t.kind.is_punct(Punct::LParen)) {
            let mut names: Vec<String> = Vec::new();
            i += 1;
            if form.get(i).is_some_and(|t| t.kind.is_punct(Punct::RParen)) {
                i += 1;
            } else {
                loop {
                    let t = form.get(i).ok_or_else(|| bad(form[last].pos))?;
                    let TokenKind::Var(v) = &t.kind else {
                        return Err(bad(t.pos));
                    };
                    if names.contains(v) {
                        return Err((t.pos, format!("argument '{v}' already used")));
                    }
                    names.push(v.clone());
                    let sep = form.get(i + 1).ok_or_else(|| bad(form[last].pos))?;
                    i += 2;
                    if sep.kind.is_punct(Punct::RParen) {
                        break;
                    }
                    if !sep.kind.is_punct(Punct::Comma) {
                        return Err(bad(sep.pos));
                    }
                }
            }
            params = Some(names);
        }
        match form.get(i) {
            Some(t) if t.kind.is_punct(Punct::Comma) => {}
            Some(t) if params.is_some() => {
                return Err((t.pos, "badly formed define: missing comma".to_string()))
            }
            Some(t) => return Err(bad(t.pos)),
            None => return Err(bad(form[last].pos)),
        }
        let closes = last >= i + 2
            && form[last].kind == TokenKind::Dot
            && form[last - 1].kind.is_punct(Punct::RParen);
        if !closes {
            return Err(bad(form[last].pos));
        }
        let body = form[i + 1..last - 1].to_vec();
        Ok((name.to_string(), name_token.pos, MacroDef { params, body }))
    })();
    match result {
        Ok((name, pos, def)) => {
            if is_predefined(&name) {
                let message = format!("redefining predefined macro '{name}'");
                pp.error(DiagKind::Semantic, pos, message);
            } else if !pp.macros.define(&name, def) {
                pp.error(
                    DiagKind::Semantic,
                    pos,
                    format!("redefining macro '{name}'"),
                );
            }
        }
        Err((pos, message)) => pp.error(DiagKind::Syntax, pos, message),
    }
}

/// The argument tokens of a directive, with macros expanded.
pub(super) fn expanded_args(
    pp: &mut Preprocessor<'_>,
    name: &str,
    form: &[Token],
) -> Option<Vec<Token>> {
    let args = match directive_args(form) {
        Ok(args) => args,
        Err(pos) => {
            pp.error(DiagKind::Syntax, pos, format!("badly formed '{name}'"));
            return None;
        }
    };
    let expanded = Expander::new(&pp.macros, &pp.sources).expand(args);
    match expanded {
        Ok(tokens) => Some(tokens),
        Err(d) => {
            pp.items.push(Item::Error(d));
            None
        }
    }
}

fn include_directive(pp: &mut Preprocessor<'_>, name: &str, form: &[Token]) {
    let Some(args) = expanded_args(pp, name, form) else {
        return;
    };
    let mut path = String::new();
    for t in &args {
        match &t.kind {
            TokenKind::String(s) => path.extend(s.iter().filter_map(|&c| char::from_u32(c))),
            _ => {
                return pp.error(DiagKind::Syntax, t.pos, format!("badly formed '{name}'"));
            }
        }
    }
    if args.is_empty() {
        return pp.error(
            DiagKind::Syntax,
            form[2].pos,
            format!("badly formed '{name}'"),
        );
    }
    let kind = if name == "include" {
        IncludeKind::Local
    } else {
        IncludeKind::Lib
    };
    // erlc points at the file name, not at the directive.
    include::include(pp, kind, &path, args[0].pos);
}

/// `-error(Term).` and `-warning(Term).`
fn report(pp: &mut Preprocessor<'_>, name: &str, form: &[Token]) {
    let at = form[1].pos;
    let Some(args) = expanded_args(pp, name, form) else {
        return;
    };
    let mut parser = Parser::new(&args, &pp.sources);
    let term = parser
        .parse_expr()
        .ok()
        .filter(|_| parser.at_end())
        .and_then(|e| term_text(&e));
    match term {
        Some(term) if name == "error" => {
            pp.error(DiagKind::Semantic, at, format!("-error({term})."));
        }
        Some(term) => {
            let d = pp.sources.diag(
                DiagKind::Semantic,
                at,
                format!("Warning: -warning({term})."),
            );
            pp.warnings.push(d);
        }
        None => pp.error(DiagKind::Syntax, at, format!("badly formed '{name}'")),
    }
}

/// A literal term as `~tp` prints it, or `None` if `e` is not a literal.
fn term_text(e: &Expr) -> Option<String> {
    Some(match &e.kind {
        ExprKind::Atom(a) => text::atom(a),
        ExprKind::Integer(IntLit::Small(n)) => n.to_string(),
        ExprKind::Integer(IntLit::Big(d)) => d.clone(),
        ExprKind::Float(x) => text::float(*x),
        ExprKind::String(s) => list_text(s),
        ExprKind::Nil => "[]".to_string(),
        ExprKind::Tuple(items) => {
            let items: Option<Vec<String>> = items.iter().map(term_text).collect();
            format!("{{{}}}", items?.join(","))
        }
        ExprKind::Cons(..) => {
            let mut items = Vec::new();
            let mut codes = Vec::new();
            let mut rest = e;
            while let ExprKind::Cons(head, tail) = &rest.kind {
                if let ExprKind::Integer(IntLit::Small(c)) = head.kind {
                    codes.push(u32::try_from(c).ok());
                } else {
                    codes.push(None);
                }
                items.push(term_text(head)?);
                rest = tail;
            }
            match &rest.kind {
                ExprKind::Nil => match codes.into_iter().collect::<Option<Vec<u32>>>() {
                    Some(codes) if printable(&codes) => text::string(&codes),
                    _ => format!("[{}]", items.join(",")),
                },
                _ => format!("[{}|{}]", items.join(","), term_text(rest)?),
            }
        }
        _ => return None,
    })
}

fn list_text(codes: &[u32]) -> String {
    if codes.is_empty() {
        "[]".to_string()
    } else if printable(codes) {
        text::string(codes)
    } else {
        let items: Vec<String> = codes.iter().map(|c| c.to_string()).collect();
        format!("[{}]", items.join(","))
    }
}

/// `io_lib:printable_unicode_list/1`.
fn printable(codes: &[u32]) -> bool {
    !codes.is_empty()
        && codes.iter().all(|&c| {
            (32..127).contains(&c)
                || (8..=13).contains(&c)
                || c == 27
                || (160..0xd800).contains(&c)
                || (0xe000..0xfffe).contains(&c)
                || (0x10000..=0x10ffff).contains(&c)
        })
}
