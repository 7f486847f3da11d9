//! Test helpers: our AST written in erl_parse's abstract format (as `~w`
//! prints it), so trees can be compared with what OTP 25 itself produces.
//! The expected files were made by `tests/data/expected.escript`; see there
//! for the normalisations applied on the Erlang side.

#![allow(dead_code)]

use trace_syntax::ast::*;
use trace_syntax::text;

fn pos(p: Pos) -> String {
    format!("{{{},{}}}", p.line, p.col)
}

fn list(items: impl IntoIterator<Item = String>) -> String {
    format!("[{}]", items.into_iter().collect::<Vec<_>>().join(","))
}

fn int(n: &IntLit) -> String {
    match n {
        IntLit::Small(n) => n.to_string(),
        IntLit::Big(d) => d.clone(),
    }
}

fn binop(op: BinOp) -> &'static str {
    use BinOp::*;
    match op {
        Add => "'+'",
        Sub => "'-'",
        Mul => "'*'",
        FDiv => "'/'",
        IDiv => "'div'",
        Rem => "'rem'",
        Band => "'band'",
        Bor => "'bor'",
        Bxor => "'bxor'",
        Bsl => "'bsl'",
        Bsr => "'bsr'",
        And => "'and'",
        Or => "'or'",
        Xor => "'xor'",
        AndAlso => "'andalso'",
        OrElse => "'orelse'",
        Eq => "'=='",
        Neq => "'/='",
        ExactEq => "'=:='",
        ExactNeq => "'=/='",
        Lt => "'<'",
        Le => "'=<'",
        Gt => "'>'",
        Ge => "'>='",
        Append => "'++'",
        Subtract => "'--'",
        Send => "'!'",
    }
}

fn unop(op: UnOp) -> &'static str {
    match op {
        UnOp::Neg => "'-'",
        UnOp::Plus => "'+'",
        UnOp::Bnot => "'bnot'",
        UnOp::Not => "'not'",
    }
}

fn exprs(es: &[Expr]) -> String {
    list(es.iter().map(expr))
}

fn guards(gs: &[Vec<Expr>]) -> String {
    list(gs.iter().map(|g| exprs(g)))
}

pub fn clause(c: &Clause) -> String {
    format!(
        "{{clause,{},{},{},{}}}",
        pos(c.pos),
        exprs(&c.patterns),
        guards(&c.guards),
        exprs(&c.body)
    )
}

fn catch_clause(c: &CatchClause) -> String {
    // erl_parse: {clause,P,[{tuple,P,[Class,Pattern,Stack]}],G,B}; the
    // stacktrace variable is placed at the pattern (normalised in the script).
    let ppos = pos(first(&c.pattern));
    let class = match &c.class {
        Some(e) => expr(e),
        None => format!("{{atom,{ppos},throw}}"),
    };
    let stack = format!(
        "{{var,{ppos},{}}}",
        var(c.stacktrace.as_deref().unwrap_or("_"))
    );
    let tpos = pos(c.pos);
    format!(
        "{{clause,{},[{{tuple,{tpos},[{class},{},{stack}]}}],{},{}}}",
        pos(c.pos),
        expr(&c.pattern),
        guards(&c.guards),
        exprs(&c.body)
    )
}

/// erl_parse:first_anno, for the catch-clause normalisation.
fn first(e: &Expr) -> Pos {
    match &e.kind {
        ExprKind::BinOp(_, l, _) => first(l),
        ExprKind::Remote { module, .. } => first(module),
        ExprKind::RecordField { expr, .. } => first(expr),
        ExprKind::Map { base: Some(b), .. } | ExprKind::Record { base: Some(b), .. } => first(b),
        _ => e.pos,
    }
}

/// A variable name as `~w` writes the atom (always quoted: it starts with
/// an uppercase letter or `_`).
fn var(name: &str) -> String {
    text::atom(name)
}

fn bin_element(b: &BinElement) -> String {
    let size = b.size.as_ref().map_or("default".to_string(), expr);
    let specs = if b.specs.is_empty() {
        "default".to_string()
    } else {
        list(b.specs.iter().map(|s| match s {
            TypeSpec::Name(n) => text::atom(n),
            TypeSpec::Unit(u) => format!("{{unit,{u}}}"),
        }))
    };
    format!(
        "{{bin_element,{},{},{size},{specs}}}",
        pos(b.pos),
        expr(&b.value)
    )
}

fn qualifier(q: &Qualifier) -> String {
    match q {
        Qualifier::Generator {
            pos: p,
            pattern,
            list,
        } => {
            format!("{{generate,{},{},{}}}", pos(*p), expr(pattern), expr(list))
        }
        Qualifier::BitGenerator {
            pos: p,
            pattern,
            binary,
        } => format!(
            "{{b_generate,{},{},{}}}",
            pos(*p),
            expr(pattern),
            expr(binary)
        ),
        Qualifier::Filter(e) => expr(e),
    }
}

pub fn expr(e: &Expr) -> String {
    let p = pos(e.pos);
    use ExprKind::*;
    match &e.kind {
        Var(v) => format!("{{var,{p},{}}}", var(v)),
        Atom(a) => format!("{{atom,{p},{}}}", text::atom(a)),
        Integer(n) => format!("{{integer,{p},{}}}", int(n)),
        Float(x) => format!("{{float,{p},{}}}", text::float(*x)),
        String(s) => format!("{{string,{p},{}}}", list(s.iter().map(|c| c.to_string()))),
        Nil => format!("{{nil,{p}}}"),
        Cons(h, t) => format!("{{cons,{p},{},{}}}", expr(h), expr(t)),
        Tuple(es) => format!("{{tuple,{p},{}}}", exprs(es)),
        Map { base, assocs } => {
            let assocs = list(assocs.iter().map(|a| {
                let kind = if a.exact {
                    "map_field_exact"
                } else {
                    "map_field_assoc"
                };
                format!(
                    "{{{kind},{},{},{}}}",
                    pos(a.pos),
                    expr(&a.key),
                    expr(&a.value)
                )
            }));
            match base {
                Some(b) => format!("{{map,{p},{},{assocs}}}", expr(b)),
                None => format!("{{map,{p},{assocs}}}"),
            }
        }
        Record { base, name, fields } => {
            let fields = list(fields.iter().map(|f| {
                let field = if f.name == "_" {
                    format!("{{var,{},'_'}}", pos(f.pos))
                } else {
                    format!("{{atom,{},{}}}", pos(f.pos), text::atom(&f.name))
                };
                format!("{{record_field,{},{field},{}}}", pos(f.pos), expr(&f.value))
            }));
            match base {
                Some(b) => format!("{{record,{p},{},{},{fields}}}", expr(b), text::atom(name)),
                None => format!("{{record,{p},{},{fields}}}", text::atom(name)),
            }
        }
        RecordIndex { name, field } => format!(
            "{{record_index,{p},{},{{atom,{p},{}}}}}",
            text::atom(name),
            text::atom(field)
        ),
        RecordField {
            expr: x,
            name,
            field,
        } => format!(
            "{{record_field,{p},{},{},{{atom,{p},{}}}}}",
            expr(x),
            text::atom(name),
            text::atom(field)
        ),
        Binary(els) => format!("{{bin,{p},{}}}", list(els.iter().map(bin_element))),
        Match(l, r) => format!("{{match,{p},{},{}}}", expr(l), expr(r)),
        BinOp(op, l, r) => format!("{{op,{p},{},{},{}}}", binop(*op), expr(l), expr(r)),
        UnOp(op, x) => format!("{{op,{p},{},{}}}", unop(*op), expr(x)),
        Call { fun, args } => format!("{{call,{p},{},{}}}", expr(fun), exprs(args)),
        Remote { module, function } => {
            format!("{{remote,{p},{},{}}}", expr(module), expr(function))
        }
        Case { expr: x, clauses } => format!(
            "{{'case',{p},{},{}}}",
            expr(x),
            list(clauses.iter().map(clause))
        ),
        If(clauses) => format!("{{'if',{p},{}}}", list(clauses.iter().map(clause))),
        Receive { clauses, after } => {
            let cs = list(clauses.iter().map(clause));
            match after {
                None => format!("{{'receive',{p},{cs}}}"),
                Some((t, body)) => format!("{{'receive',{p},{cs},{},{}}}", expr(t), exprs(body)),
            }
        }
        Try {
            body,
            of_clauses,
            catch_clauses,
            after,
        } => format!(
            "{{'try',{p},{},{},{},{}}}",
            exprs(body),
            list(of_clauses.iter().map(clause)),
            list(catch_clauses.iter().map(catch_clause)),
            exprs(after)
        ),
        Catch(x) => format!("{{'catch',{p},{}}}", expr(x)),
        Block(body) => format!("{{block,{p},{}}}", exprs(body)),
        Fun(FunExpr::Clauses {
            name: None,
            clauses,
        }) => format!(
            "{{'fun',{p},{{clauses,{}}}}}",
            list(clauses.iter().map(clause))
        ),
        Fun(FunExpr::Clauses {
            name: Some(n),
            clauses,
        }) => format!(
            "{{named_fun,{p},{},{}}}",
            var(n),
            list(clauses.iter().map(clause))
        ),
        Fun(FunExpr::Local { name, arity }) => {
            format!("{{'fun',{p},{{function,{},{arity}}}}}", text::atom(name))
        }
        Fun(FunExpr::Remote {
            module,
            function,
            arity,
        }) => format!(
            "{{'fun',{p},{{function,{},{},{}}}}}",
            expr(module),
            expr(function),
            expr(arity)
        ),
        ListComp {
            template,
            qualifiers,
        } => format!(
            "{{lc,{p},{},{}}}",
            expr(template),
            list(qualifiers.iter().map(qualifier))
        ),
        BinComp {
            template,
            qualifiers,
        } => format!(
            "{{bc,{p},{},{}}}",
            expr(template),
            list(qualifiers.iter().map(qualifier))
        ),
    }
}

pub fn form(f: &Form) -> String {
    match f {
        Form::Function(fun) => format!(
            "{{function,{},{},{},{}}}",
            pos(fun.pos),
            text::atom(&fun.name),
            fun.arity,
            list(fun.clauses.iter().map(clause))
        ),
        Form::Attribute(a) => match a {
            Attribute::Module { pos: p, name } => {
                format!("{{attribute,{},module,{}}}", pos(*p), text::atom(name))
            }
            Attribute::Export { pos: p, funs } => format!(
                "{{attribute,{},export,{}}}",
                pos(*p),
                list(
                    funs.iter()
                        .map(|(f, a)| format!("{{{},{a}}}", text::atom(f)))
                )
            ),
            Attribute::Import {
                pos: p,
                module,
                funs,
            } => format!(
                "{{attribute,{},import,{{{},{}}}}}",
                pos(*p),
                text::atom(module),
                list(
                    funs.iter()
                        .map(|(f, a)| format!("{{{},{a}}}", text::atom(f)))
                )
            ),
            Attribute::Record(r) => format!(
                "{{attribute,{},record,{{{},{}}}}}",
                pos(r.pos),
                text::atom(&r.name),
                list(r.fields.iter().map(|f| {
                    let name = format!("{{atom,{},{}}}", pos(f.pos), text::atom(&f.name));
                    match &f.default {
                        Some(d) => format!("{{record_field,{},{name},{}}}", pos(f.pos), expr(d)),
                        None => format!("{{record_field,{},{name}}}", pos(f.pos)),
                    }
                }))
            ),
            Attribute::Compile { pos: p, .. } => format!("{{attribute,{},compile}}", pos(*p)),
            Attribute::Other { pos: p, name } => {
                format!("{{attribute,{},{}}}", pos(*p), text::atom(name))
            }
        },
    }
}
