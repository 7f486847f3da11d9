//! The abstract syntax of source Erlang, after preprocessing.
//!
//! Macros, `-include`, `-ifdef` and friends are gone by the time a tree is built;
//! records are still records (the compiler expands them, because only it knows
//! every record definition). Patterns share the expression type: the parser
//! accepts any expression where a pattern goes, and the compiler rejects what is
//! not a valid pattern with a located error, as erlc does.

/// Identifies a source file among those read for one module (0 = the module itself,
/// others = included files). See [`crate::SourceMap`].
pub type FileId = u16;

/// A position in source: file, 1-based line and 1-based column.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Pos {
    pub file: FileId,
    pub line: u32,
    pub col: u32,
}

/// One module: everything read from one `.erl` file.
#[derive(Clone, Debug)]
pub struct Module {
    /// The name given by `-module(Name).`
    pub name: String,
    /// Position of the `-module` attribute.
    pub pos: Pos,
    pub forms: Vec<Form>,
}

#[derive(Clone, Debug)]
pub enum Form {
    Attribute(Attribute),
    Function(Function),
}

/// `-Name(...)` forms that matter to the compiler. Type specs and other
/// declarations that do not change behaviour are kept as `Other` so that tools
/// can list them, and are otherwise ignored.
#[derive(Clone, Debug)]
pub enum Attribute {
    Module {
        pos: Pos,
        name: String,
    },
    Export {
        pos: Pos,
        funs: Vec<(String, usize)>,
    },
    Import {
        pos: Pos,
        module: String,
        funs: Vec<(String, usize)>,
    },
    Record(RecordDef),
    /// `-compile(...)` with its argument as a term (e.g. `export_all`).
    Compile {
        pos: Pos,
        options: Expr,
    },
    /// `-spec`, `-type`, `-opaque`, `-callback`, `-export_type`, `-behaviour`,
    /// `-vsn`, `-author`, `-file`, custom attributes, ...: name and position only.
    Other {
        pos: Pos,
        name: String,
    },
}

/// `-record(name, {field = Default :: type(), ...}).`
#[derive(Clone, Debug)]
pub struct RecordDef {
    pub pos: Pos,
    pub name: String,
    pub fields: Vec<RecordFieldDef>,
}

#[derive(Clone, Debug)]
pub struct RecordFieldDef {
    pub pos: Pos,
    pub name: String,
    /// The initializer, if any (type annotations are dropped).
    pub default: Option<Expr>,
}

/// A named function with all its clauses: `name(Args) when G -> Body; ...`
#[derive(Clone, Debug)]
pub struct Function {
    pub pos: Pos,
    pub name: String,
    pub arity: usize,
    pub clauses: Vec<Clause>,
}

/// A clause of a function, fun, `case`, `receive`, `try ... of` or `if`.
/// For `if`, `patterns` is empty; for `case`/`receive`/`of` it has one element.
#[derive(Clone, Debug)]
pub struct Clause {
    pub pos: Pos,
    pub patterns: Vec<Expr>,
    /// Guard sequence: alternatives separated by `;`, each a list of tests
    /// separated by `,`. Empty means no guard.
    pub guards: Vec<Vec<Expr>>,
    pub body: Vec<Expr>,
}

/// A `catch` clause of `try`: `Class:Pattern:Stacktrace when Guard -> Body`.
#[derive(Clone, Debug)]
pub struct CatchClause {
    pub pos: Pos,
    /// The class (`throw`, `error`, `exit`, a variable or `_`); `None` means `throw`.
    pub class: Option<Expr>,
    pub pattern: Expr,
    /// The stacktrace variable name, if bound.
    pub stacktrace: Option<String>,
    pub guards: Vec<Vec<Expr>>,
    pub body: Vec<Expr>,
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub pos: Pos,
    pub kind: ExprKind,
}

/// Integer literals may exceed 64 bits.
#[derive(Clone, Debug, PartialEq)]
pub enum IntLit {
    Small(i64),
    /// Decimal digits of an integer that does not fit `i64` (with a leading `-` if negative).
    Big(String),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BinOp {
    // Arithmetic
    Add,
    Sub,
    Mul,
    FDiv,
    IDiv,
    Rem,
    Band,
    Bor,
    Bxor,
    Bsl,
    Bsr,
    // Boolean (strict)
    And,
    Or,
    Xor,
    // Short-circuit
    AndAlso,
    OrElse,
    // Comparison
    Eq,
    Neq,
    ExactEq,
    ExactNeq,
    Lt,
    Le,
    Gt,
    Ge,
    // Lists
    Append,
    Subtract,
    /// `!`
    Send,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Plus,
    Bnot,
    Not,
}

/// A segment of a binary expression or pattern: `Value:Size/Type-Spec`.
#[derive(Clone, Debug)]
pub struct BinElement {
    pub pos: Pos,
    pub value: Expr,
    pub size: Option<Expr>,
    /// Type specifiers in source order: `integer`, `float`, `binary`, `bytes`,
    /// `bitstring`, `bits`, `utf8`, `utf16`, `utf32`, `signed`, `unsigned`, `big`,
    /// `little`, `native`, and `unit:N` (written as `TypeSpec::Unit(N)`).
    pub specs: Vec<TypeSpec>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeSpec {
    Name(String),
    Unit(u32),
}

/// `K => V` (construct or update) or `K := V` (update existing key / match).
#[derive(Clone, Debug)]
pub struct MapAssoc {
    pub pos: Pos,
    pub key: Expr,
    pub value: Expr,
    /// True for `:=`.
    pub exact: bool,
}

/// `field = Value` inside `#rec{...}`; `name` is `"_"` for `_ = Value`.
#[derive(Clone, Debug)]
pub struct RecordFieldInit {
    pub pos: Pos,
    pub name: String,
    pub value: Expr,
}

/// A qualifier of a comprehension.
#[derive(Clone, Debug)]
pub enum Qualifier {
    /// `Pattern <- ListExpr`
    Generator { pos: Pos, pattern: Expr, list: Expr },
    /// `Pattern <= BinaryExpr`
    BitGenerator {
        pos: Pos,
        pattern: Expr,
        binary: Expr,
    },
    /// A filter expression (a guard or any boolean expression).
    Filter(Expr),
}

/// The forms of `fun`.
#[derive(Clone, Debug)]
pub enum FunExpr {
    /// `fun (Args) -> ... end`, or a named fun `fun Name(Args) -> ... Name(...) ... end`.
    Clauses {
        name: Option<String>,
        clauses: Vec<Clause>,
    },
    /// `fun name/Arity`
    Local { name: String, arity: usize },
    /// `fun M:F/A`, each part an expression (usually atoms and an integer).
    Remote {
        module: Box<Expr>,
        function: Box<Expr>,
        arity: Box<Expr>,
    },
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    /// A variable; `_` is the anonymous variable (only valid in patterns).
    Var(String),
    Atom(String),
    Integer(IntLit),
    Float(f64),
    /// A string literal (adjacent literals already joined), as Unicode codepoints.
    String(Vec<u32>),
    /// `[]`
    Nil,
    /// `[H | T]`; list literals `[A, B, C]` are nested `Cons` ending in `Nil`.
    Cons(Box<Expr>, Box<Expr>),
    Tuple(Vec<Expr>),
    /// `#{...}` (base `None`) or `Base#{...}`.
    Map {
        base: Option<Box<Expr>>,
        assocs: Vec<MapAssoc>,
    },
    /// `#name{...}` (base `None`) or `Base#name{...}` (update).
    Record {
        base: Option<Box<Expr>>,
        name: String,
        fields: Vec<RecordFieldInit>,
    },
    /// `#name.field`: the field's 1-based tuple position.
    RecordIndex {
        name: String,
        field: String,
    },
    /// `Expr#name.field`
    RecordField {
        expr: Box<Expr>,
        name: String,
        field: String,
    },
    /// `<<Seg, ...>>`
    Binary(Vec<BinElement>),
    /// `Pattern = Expr` (also pattern aliases `P1 = P2` inside patterns).
    Match(Box<Expr>, Box<Expr>),
    BinOp(BinOp, Box<Expr>, Box<Expr>),
    UnOp(UnOp, Box<Expr>),
    /// A call. `fun` is an `Atom` (local call or auto-imported BIF), a `Remote`,
    /// or any other expression evaluating to a fun.
    Call {
        fun: Box<Expr>,
        args: Vec<Expr>,
    },
    /// `Module:Function` in call position.
    Remote {
        module: Box<Expr>,
        function: Box<Expr>,
    },
    Case {
        expr: Box<Expr>,
        clauses: Vec<Clause>,
    },
    /// `if` clauses have no patterns.
    If(Vec<Clause>),
    Receive {
        clauses: Vec<Clause>,
        /// `after Timeout -> Body`
        after: Option<(Box<Expr>, Vec<Expr>)>,
    },
    Try {
        body: Vec<Expr>,
        of_clauses: Vec<Clause>,
        catch_clauses: Vec<CatchClause>,
        after: Vec<Expr>,
    },
    /// `catch Expr`
    Catch(Box<Expr>),
    /// `begin ... end`
    Block(Vec<Expr>),
    Fun(FunExpr),
    /// `[Template || Qualifiers]`
    ListComp {
        template: Box<Expr>,
        qualifiers: Vec<Qualifier>,
    },
    /// `<< Template || Qualifiers >>`
    BinComp {
        template: Box<Expr>,
        qualifiers: Vec<Qualifier>,
    },
}

impl Expr {
    pub fn new(pos: Pos, kind: ExprKind) -> Expr {
        Expr { pos, kind }
    }
}
