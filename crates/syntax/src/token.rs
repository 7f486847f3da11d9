//! Tokens of OTP 25 Erlang, as `erl_scan` produces them.

use crate::ast::{IntLit, Pos};

/// One token and where it starts.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub kind: TokenKind,
    pub pos: Pos,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TokenKind {
    /// An unquoted or quoted atom (quotes and escapes resolved).
    Atom(String),
    /// A variable, including `_` and `_Name`.
    Var(String),
    Integer(IntLit),
    Float(f64),
    /// `$c`: a character literal, as its codepoint.
    Char(u32),
    /// A string literal, as codepoints (adjacent literals are joined by the parser).
    String(Vec<u32>),
    Punct(Punct),
    Keyword(Keyword),
    /// `.` followed by whitespace, `%` or end of input: the end of a form.
    Dot,
    /// A Latin-1 character that starts no Erlang token (`\`, `` ` ``, `~`, `&`, ...).
    /// erl_scan passes these on and the parser rejects them, so do we.
    Other(char),
}

/// Punctuation and symbolic operators.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Punct {
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Comma,
    Semi,
    Colon,
    ColonColon,
    /// `:=`
    ColonEq,
    Pipe,
    PipePipe,
    /// `->`
    Arrow,
    /// `=>`
    FatArrow,
    /// `<-`
    LArrow,
    /// `<=`
    LDoubleArrow,
    /// `<<`
    LtLt,
    /// `>>`
    GtGt,
    /// `.` not ending a form (record field access `X#r.f`).
    Period,
    DotDot,
    DotDotDot,
    Question,
    QuestionQuestion,
    Hash,
    Bang,
    /// `=`
    Match,
    EqEq,
    /// `/=`
    NotEq,
    /// `=<`
    LtEq,
    Lt,
    GtEq,
    Gt,
    /// `=:=`
    ExactEq,
    /// `=/=`
    ExactNotEq,
    PlusPlus,
    MinusMinus,
    Plus,
    Minus,
    Star,
    Slash,
}

impl Punct {
    pub fn as_str(self) -> &'static str {
        use Punct::*;
        match self {
            LParen => "(",
            RParen => ")",
            LBracket => "[",
            RBracket => "]",
            LBrace => "{",
            RBrace => "}",
            Comma => ",",
            Semi => ";",
            Colon => ":",
            ColonColon => "::",
            ColonEq => ":=",
            Pipe => "|",
            PipePipe => "||",
            Arrow => "->",
            FatArrow => "=>",
            LArrow => "<-",
            LDoubleArrow => "<=",
            LtLt => "<<",
            GtGt => ">>",
            Period => ".",
            DotDot => "..",
            DotDotDot => "...",
            Question => "?",
            QuestionQuestion => "??",
            Hash => "#",
            Bang => "!",
            Match => "=",
            EqEq => "==",
            NotEq => "/=",
            LtEq => "=<",
            Lt => "<",
            GtEq => ">=",
            Gt => ">",
            ExactEq => "=:=",
            ExactNotEq => "=/=",
            PlusPlus => "++",
            MinusMinus => "--",
            Plus => "+",
            Minus => "-",
            Star => "*",
            Slash => "/",
        }
    }
}

/// Reserved words, including the operators spelled as words.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Keyword {
    After,
    Begin,
    Case,
    Catch,
    Cond,
    End,
    Fun,
    If,
    Let,
    Of,
    Receive,
    Try,
    When,
    /// Reserved by the `maybe_expr` feature; an ordinary atom in OTP 25 unless
    /// the parser finds a `maybe ... end` block (which is unsupported).
    Maybe,
    /// See [`Keyword::Maybe`].
    Else,
    Div,
    Rem,
    Band,
    Bor,
    Bxor,
    Bsl,
    Bsr,
    And,
    Or,
    Xor,
    Not,
    Andalso,
    Orelse,
    Bnot,
}

impl Keyword {
    pub const ALL: [Keyword; 29] = {
        use Keyword::*;
        [
            After, Begin, Case, Catch, Cond, End, Fun, If, Let, Of, Receive, Try, When, Maybe,
            Else, Div, Rem, Band, Bor, Bxor, Bsl, Bsr, And, Or, Xor, Not, Andalso, Orelse, Bnot,
        ]
    };

    pub fn as_str(self) -> &'static str {
        use Keyword::*;
        match self {
            After => "after",
            Begin => "begin",
            Case => "case",
            Catch => "catch",
            Cond => "cond",
            End => "end",
            Fun => "fun",
            If => "if",
            Let => "let",
            Of => "of",
            Receive => "receive",
            Try => "try",
            When => "when",
            Maybe => "maybe",
            Else => "else",
            Div => "div",
            Rem => "rem",
            Band => "band",
            Bor => "bor",
            Bxor => "bxor",
            Bsl => "bsl",
            Bsr => "bsr",
            And => "and",
            Or => "or",
            Xor => "xor",
            Not => "not",
            Andalso => "andalso",
            Orelse => "orelse",
            Bnot => "bnot",
        }
    }

    pub fn from_name(name: &str) -> Option<Keyword> {
        Keyword::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

impl TokenKind {
    pub fn is_punct(&self, p: Punct) -> bool {
        matches!(self, TokenKind::Punct(q) if *q == p)
    }

    pub fn is_keyword(&self, k: Keyword) -> bool {
        matches!(self, TokenKind::Keyword(q) if *q == k)
    }
}

impl TokenKind {
    /// The source-like text of the token, as `??Arg` stringifies it (epp's
    /// `token_src`): punctuation and keywords unquoted.
    pub fn source_text(&self) -> String {
        match self {
            TokenKind::Punct(p) => p.as_str().to_string(),
            TokenKind::Keyword(k) => k.as_str().to_string(),
            TokenKind::Dot => ".".to_string(),
            TokenKind::Other(c) => c.to_string(),
            other => other.to_string(),
        }
    }
}
