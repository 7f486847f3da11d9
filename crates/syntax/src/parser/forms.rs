//! Forms: attributes and function definitions, each ending with a dot.
//!
//! `-module`, `-export`, `-import`, `-record` and `-compile` are parsed in
//! full. Type declarations (`-spec`, `-type`, `-opaque`, `-callback`) are
//! skipped to their dot; other attributes must hold expressions (terms).

use super::{clauses, expr, PResult, Parser};
use crate::ast::{Attribute, Expr, Form, Function, Pos, RecordDef, RecordFieldDef};
use crate::diag::DiagKind;
use crate::token::{Punct, TokenKind};

/// Attributes whose argument is type syntax, which we do not model.
const TYPE_ATTRIBUTES: [&str; 5] = ["spec", "callback", "type", "opaque", "nominal"];

pub(super) fn form(p: &mut Parser<'_>) -> PResult<Form> {
    let form = match p.kind() {
        Some(TokenKind::Punct(Punct::Minus)) => Form::Attribute(attribute(p)?),
        Some(kind) if Parser::atom_name(kind).is_some() => Form::Function(function(p)?),
        _ => return Err(p.error_expected("a function definition or an attribute")),
    };
    Ok(form)
}

fn expect_dot(p: &mut Parser<'_>, expected: &str) -> PResult<()> {
    if p.kind() == Some(&TokenKind::Dot) {
        p.i += 1;
        Ok(())
    } else {
        Err(p.error_expected(expected))
    }
}

fn function(p: &mut Parser<'_>) -> PResult<Function> {
    let (name, pos) = p.expect_atom("a function name")?;
    let args = expr::call_args(p)?;
    let arity = args.len();
    let mut clauses = vec![clauses::clause_tail(p, pos, args)?];
    while p.eat_punct(Punct::Semi).is_some() {
        let (clause_name, clause_pos) = p.expect_atom("a function clause")?;
        let args = expr::call_args(p)?;
        let clause = clauses::clause_tail(p, clause_pos, args)?;
        if clause_name != name || clause.patterns.len() != arity {
            return Err(p.error_at(crate::diag::DiagKind::Syntax, clause_pos, "head mismatch"));
        }
        clauses.push(clause);
    }
    expect_dot(p, "',', ';' or '.'")?;
    Ok(Function {
        pos,
        name,
        arity,
        clauses,
    })
}

fn attribute(p: &mut Parser<'_>) -> PResult<Attribute> {
    p.expect_punct(Punct::Minus, "'-'")?;
    let (name, pos) = p.expect_atom("an attribute name")?;
    let attribute = match name.as_str() {
        "module" => {
            p.expect_punct(Punct::LParen, "'('")?;
            let (module, _) = p.expect_atom("a module name")?;
            p.expect_punct(Punct::RParen, "')'")?;
            Attribute::Module { pos, name: module }
        }
        "export" => {
            p.expect_punct(Punct::LParen, "'('")?;
            let funs = function_list(p)?;
            p.expect_punct(Punct::RParen, "')'")?;
            Attribute::Export { pos, funs }
        }
        "import" => {
            p.expect_punct(Punct::LParen, "'('")?;
            let (module, _) = p.expect_atom("a module name")?;
            p.expect_punct(Punct::Comma, "','")?;
            let funs = function_list(p)?;
            p.expect_punct(Punct::RParen, "')'")?;
            Attribute::Import { pos, module, funs }
        }
        "record" => Attribute::Record(record_def(p, pos)?),
        "compile" => {
            p.expect_punct(Punct::LParen, "'('")?;
            let options = expr::expr(p)?;
            p.expect_punct(Punct::RParen, "')'")?;
            Attribute::Compile { pos, options }
        }
        _ if TYPE_ATTRIBUTES.contains(&name.as_str()) => {
            while !matches!(p.kind(), Some(TokenKind::Dot) | None) {
                p.i += 1;
            }
            Attribute::Other { pos, name }
        }
        _ => {
            let values = if p.eat_punct(Punct::LParen).is_some() {
                let values = expr::exprs(p)?;
                p.expect_punct(Punct::RParen, "',' or ')'")?;
                values
            } else {
                expr::exprs(p)?
            };
            // As erl_parse: one value, and a term (not an expression).
            let bad = match values.as_slice() {
                [v] => (!is_term(v)).then(|| start(v)),
                [_, second, ..] => Some(second.pos),
                [] => None,
            };
            if let Some(at) = bad {
                return Err(p.error_at(DiagKind::Syntax, at, "bad attribute"));
            }
            Attribute::Other { pos, name }
        }
    };
    expect_dot(p, "'.'")?;
    Ok(attribute)
}

/// `[f/1, g/2]` in `-export` and `-import`.
fn function_list(p: &mut Parser<'_>) -> PResult<Vec<(String, usize)>> {
    p.expect_punct(Punct::LBracket, "'['")?;
    let mut funs = Vec::new();
    if p.eat_punct(Punct::RBracket).is_some() {
        return Ok(funs);
    }
    loop {
        let (name, _) = p.expect_atom("a function name")?;
        p.expect_punct(Punct::Slash, "'/'")?;
        funs.push((name, clauses::arity(p)?));
        if p.eat_punct(Punct::Comma).is_none() {
            break;
        }
    }
    p.expect_punct(Punct::RBracket, "',' or ']'")?;
    Ok(funs)
}

/// `(name, {field, field = Default, field :: type(), ...})`
fn record_def(p: &mut Parser<'_>, pos: Pos) -> PResult<RecordDef> {
    p.expect_punct(Punct::LParen, "'('")?;
    let (name, _) = p.expect_atom("a record name")?;
    p.expect_punct(Punct::Comma, "','")?;
    p.expect_punct(Punct::LBrace, "'{'")?;
    let mut fields = Vec::new();
    if p.eat_punct(Punct::RBrace).is_none() {
        loop {
            let (field, field_pos) = p.expect_atom("a record field name")?;
            let default = if p.eat_punct(Punct::Match).is_some() {
                Some(expr::expr(p)?)
            } else {
                None
            };
            if p.eat_punct(Punct::ColonColon).is_some() {
                skip_type(p)?;
            }
            fields.push(RecordFieldDef {
                pos: field_pos,
                name: field,
                default,
            });
            if p.eat_punct(Punct::Comma).is_none() {
                break;
            }
        }
        p.expect_punct(Punct::RBrace, "',' or '}'")?;
    }
    p.expect_punct(Punct::RParen, "')'")?;
    Ok(RecordDef { pos, name, fields })
}

/// Skips a type up to the `,` or `}` that ends a record field, keeping
/// brackets balanced.
fn skip_type(p: &mut Parser<'_>) -> PResult<()> {
    let mut open: Vec<Punct> = Vec::new();
    let start = p.i;
    loop {
        let closer = match p.kind() {
            None | Some(TokenKind::Dot) => return Err(p.error_expected("a type")),
            Some(TokenKind::Punct(punct)) => match punct {
                Punct::LParen => Some(Punct::RParen),
                Punct::LBracket => Some(Punct::RBracket),
                Punct::LBrace => Some(Punct::RBrace),
                Punct::LtLt => Some(Punct::GtGt),
                Punct::Comma | Punct::RBrace if open.is_empty() => {
                    if p.i == start {
                        return Err(p.error_expected("a type"));
                    }
                    return Ok(());
                }
                Punct::RParen | Punct::RBracket | Punct::RBrace | Punct::GtGt => {
                    if open.pop() != Some(*punct) {
                        return Err(p.error_expected("a balanced type"));
                    }
                    None
                }
                _ => None,
            },
            Some(_) => None,
        };
        if let Some(closer) = closer {
            open.push(closer);
        }
        p.i += 1;
    }
}

/// Whether `e` is a term as an attribute's value must be (erl_parse's
/// `normalise`): a literal, a list, tuple, map or binary of terms, a signed
/// number, `Name/Arity`, or `fun M:F/A` with literal parts.
fn is_term(e: &Expr) -> bool {
    use crate::ast::{BinOp, ExprKind::*, FunExpr, UnOp};
    match &e.kind {
        Atom(_) | Integer(_) | Float(_) | String(_) | Nil => true,
        Cons(h, t) => is_term(h) && is_term(t),
        Tuple(es) => es.iter().all(is_term),
        Map { base: None, assocs } => assocs
            .iter()
            .all(|a| !a.exact && is_term(&a.key) && is_term(&a.value)),
        Binary(segs) => segs
            .iter()
            .all(|s| is_term(&s.value) && s.size.as_ref().is_none_or(is_term)),
        UnOp(UnOp::Neg | UnOp::Plus, x) => matches!(x.kind, Integer(_) | Float(_)),
        // `Name/Arity`, read as `{Name, Arity}` (`-on_load(init/0)`).
        BinOp(BinOp::FDiv, f, a) => matches!((&f.kind, &a.kind), (Atom(_), Integer(_))),
        Fun(FunExpr::Remote {
            module,
            function,
            arity,
        }) => {
            matches!(module.kind, Atom(_))
                && matches!(function.kind, Atom(_))
                && matches!(arity.kind, Integer(_))
        }
        _ => false,
    }
}

/// Where `e` begins: an operator's position is its own, erlc points at its
/// left operand.
fn start(e: &Expr) -> Pos {
    match &e.kind {
        crate::ast::ExprKind::BinOp(_, l, _) | crate::ast::ExprKind::Match(l, _) => start(l),
        _ => e.pos,
    }
}
