//! The jsonpath syntax tree: what the parser builds, the printer prints and the evaluator
//! runs.
//!
//! An expression is either a value expression (items, arithmetic, accessor chains) or a
//! predicate (comparisons, `&&`, `||`, `!`, `exists`, `like_regex`, `starts with`,
//! `is unknown`); the parser only builds trees where each kind stands where PostgreSQL's
//! grammar allows it, so the evaluator can rely on filter arguments being predicates.

/// A parsed path: its mode and its expression.
#[derive(Clone, Debug, PartialEq)]
pub struct JsonPath {
    /// `strict` (structural errors reported) rather than `lax` (the default).
    pub strict: bool,
    pub expr: Expr,
}

/// Arithmetic operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

/// Comparison operators (`<>` is `!=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// Item methods without arguments, and `.datetime([template])`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Method {
    Type,
    Size,
    Double,
    Ceiling,
    Floor,
    Abs,
    KeyValue,
    DateTime(Option<String>),
}

impl Method {
    /// The method's name as written.
    pub fn name(&self) -> &'static str {
        match self {
            Method::Type => "type",
            Method::Size => "size",
            Method::Double => "double",
            Method::Ceiling => "ceiling",
            Method::Floor => "floor",
            Method::Abs => "abs",
            Method::KeyValue => "keyvalue",
            Method::DateTime(_) => "datetime",
        }
    }
}

/// `like_regex` flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RegexFlags {
    pub i: bool,
    pub s: bool,
    pub m: bool,
    pub q: bool,
}

/// The level bound written `last` in `.**{n to last}`.
pub const LAST_LEVEL: u32 = u32::MAX;

/// One accessor applied to the items before it.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// `.key` / `."key"`
    Key(String),
    /// `.*`
    AnyKey,
    /// `[*]`
    AnyArray,
    /// `[a, b to c]`
    Index(Vec<(Expr, Option<Expr>)>),
    /// `.**`, `.**{n}`, `.**{n to m}` (levels; [`LAST_LEVEL`] for `last`).
    Any { first: u32, last: u32 },
    /// `? (predicate)`
    Filter(Box<Expr>),
    /// `.method()`
    Method(Method),
}

/// An expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Null,
    Bool(bool),
    /// A number in `numeric` output form.
    Number(String),
    String(String),
    /// `$name`
    Variable(String),
    /// `$`
    Root,
    /// `@`
    Current,
    /// `last` (inside an array subscript)
    Last,
    /// A primary followed by accessors.
    Chain(Box<Expr>, Vec<Step>),
    Arith(Arith, Box<Expr>, Box<Expr>),
    /// Unary `-` (true) or `+` (false).
    Unary(bool, Box<Expr>),
    // Predicates.
    Compare(Cmp, Box<Expr>, Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    IsUnknown(Box<Expr>),
    Exists(Box<Expr>),
    LikeRegex {
        operand: Box<Expr>,
        pattern: String,
        flags: RegexFlags,
    },
    /// `x starts with "p"` / `x starts with $var`
    StartsWith(Box<Expr>, Box<Expr>),
}

impl Expr {
    /// Whether this is a predicate (a boolean test) rather than a value expression.
    pub fn is_predicate(&self) -> bool {
        matches!(
            self,
            Expr::Compare(..)
                | Expr::And(..)
                | Expr::Or(..)
                | Expr::Not(_)
                | Expr::IsUnknown(_)
                | Expr::Exists(_)
                | Expr::LikeRegex { .. }
                | Expr::StartsWith(..)
        )
    }

    /// PostgreSQL's operator priority, which decides where the printer puts parentheses.
    pub fn priority(&self) -> u8 {
        match self {
            Expr::Or(..) => 0,
            Expr::And(..) => 1,
            Expr::Compare(..) | Expr::LikeRegex { .. } | Expr::StartsWith(..) => 2,
            Expr::Arith(Arith::Add | Arith::Sub, ..) => 3,
            Expr::Arith(..) => 4,
            Expr::Unary(..) => 5,
            _ => 6,
        }
    }
}
