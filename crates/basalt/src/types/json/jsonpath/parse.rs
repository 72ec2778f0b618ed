//! The jsonpath parser: tokens into a [`JsonPath`], by recursive descent over PostgreSQL
//! 15's grammar (`jsonpath_gram.y`).
//!
//! Precedence, loosest first: `||`, `&&`, `!`, comparisons / `like_regex` / `starts with`
//! (not associative), `+ -`, `* / %`, unary `+ -`, accessors. Value expressions and
//! predicates are checked where they meet: `&&`, `||`, `!`, filters and `is unknown` take
//! predicates, arithmetic and comparisons take value expressions; a parenthesized predicate
//! is a value only when an accessor follows it (`($ > 1).type()`), as in PostgreSQL. After
//! the syntax, `@` outside a filter and `last` outside a subscript are refused with
//! PostgreSQL's messages. Nesting is bounded by [`MAX_DEPTH`], so a hostile path cannot
//! overflow the stack. As PostgreSQL, a unary minus (or plus) of a number literal is folded
//! into the literal.

use super::ParseError;
use super::ast::{Arith, Cmp, Expr, JsonPath, LAST_LEVEL, Method, RegexFlags, Step};
use super::lex::{Tok, Token, tokenize};

/// The deepest nesting of parentheses, filters, subscripts and operators accepted.
pub const MAX_DEPTH: usize = 200;

/// Parses jsonpath text.
pub fn parse(input: &str) -> Result<JsonPath, ParseError> {
    let tokens = tokenize(input)?;
    if tokens.is_empty() {
        return Err(ParseError::new(
            0,
            format!("invalid input syntax for type jsonpath: \"{input}\""),
        ));
    }
    let mut parser = Parser {
        tokens,
        at: 0,
        depth: 0,
        end: input.len(),
    };
    let strict = match parser.peek_word() {
        Some("strict") => {
            parser.at += 1;
            true
        }
        Some("lax") => {
            parser.at += 1;
            false
        }
        _ => false,
    };
    let expr = parser.or()?;
    if parser.at < parser.tokens.len() {
        return Err(parser.unexpected());
    }
    check_context(&expr, false, false)?;
    Ok(JsonPath { strict, expr })
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
    depth: usize,
    end: usize,
}

/// What a primary was: parenthesized predicates need an accessor to be values.
struct Primary {
    expr: Expr,
    parenthesized_predicate: bool,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.at).map(|t| &t.tok)
    }

    fn peek_word(&self) -> Option<&str> {
        match self.peek() {
            Some(Tok::Word(w)) => Some(w),
            _ => None,
        }
    }

    fn peek_punct(&self, punct: &str) -> bool {
        matches!(self.peek(), Some(Tok::Punct(p)) if *p == punct)
    }

    fn eat_punct(&mut self, punct: &str) -> bool {
        let found = self.peek_punct(punct);
        if found {
            self.at += 1;
        }
        found
    }

    fn eat_word(&mut self, word: &str) -> bool {
        let found = self.peek_word() == Some(word);
        if found {
            self.at += 1;
        }
        found
    }

    fn expect_punct(&mut self, punct: &str) -> Result<(), ParseError> {
        if self.eat_punct(punct) {
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    /// PostgreSQL's syntax error at the current token (or the end of the input).
    fn unexpected(&self) -> ParseError {
        match self.tokens.get(self.at) {
            Some(token) => ParseError::near(token.start, &token.text),
            None => ParseError::new(self.end, "syntax error at end of jsonpath input".to_owned()),
        }
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            let at = self.tokens.get(self.at).map_or(self.end, |t| t.start);
            return Err(ParseError::new(
                at,
                format!("jsonpath nesting exceeds the maximum depth of {MAX_DEPTH}"),
            ));
        }
        Ok(())
    }

    fn or(&mut self) -> Result<Expr, ParseError> {
        self.enter()?;
        let entered = self.depth;
        let mut left = self.and()?;
        while self.peek_punct("||") {
            self.enter()?;
            let at = self.at;
            self.at += 1;
            let right = self.and()?;
            require_predicate(&left, &self.tokens[at])?;
            require_predicate_after(&right, self)?;
            left = Expr::Or(Box::new(left), Box::new(right));
        }
        self.depth = entered - 1;
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr, ParseError> {
        let entered = self.depth;
        let mut left = self.not()?;
        while self.peek_punct("&&") {
            self.enter()?;
            let at = self.at;
            self.at += 1;
            let right = self.not()?;
            require_predicate(&left, &self.tokens[at])?;
            require_predicate_after(&right, self)?;
            left = Expr::And(Box::new(left), Box::new(right));
        }
        self.depth = entered;
        Ok(left)
    }

    fn not(&mut self) -> Result<Expr, ParseError> {
        if !self.eat_punct("!") {
            return self.comparison();
        }
        // `!` takes a delimited predicate: `(predicate)` or `exists(...)`.
        if !(self.peek_punct("(") || self.peek_word() == Some("exists")) {
            return Err(self.unexpected());
        }
        let start = self.at;
        let primary = self.primary()?;
        if !primary.expr.is_predicate() {
            return Err(self
                .tokens
                .get(start)
                .map_or_else(|| self.unexpected(), |t| ParseError::near(t.start, &t.text)));
        }
        Ok(Expr::Not(Box::new(primary.expr)))
    }

    fn comparison(&mut self) -> Result<Expr, ParseError> {
        let left = self.additive()?;
        let op = match self.peek() {
            Some(Tok::Punct("==")) => Some(Cmp::Eq),
            Some(Tok::Punct("!=")) => Some(Cmp::Ne),
            Some(Tok::Punct("<")) => Some(Cmp::Lt),
            Some(Tok::Punct("<=")) => Some(Cmp::Le),
            Some(Tok::Punct(">")) => Some(Cmp::Gt),
            Some(Tok::Punct(">=")) => Some(Cmp::Ge),
            _ => None,
        };
        if let Some(op) = op {
            self.require_value(&left)?;
            self.at += 1;
            let right = self.additive()?;
            self.require_value_before(&right)?;
            return Ok(Expr::Compare(op, Box::new(left), Box::new(right)));
        }
        if self.eat_word("like_regex") {
            self.require_value_at(&left, self.at - 1)?;
            let Some(Tok::Str(pattern)) = self.peek().cloned() else {
                return Err(self.unexpected());
            };
            self.at += 1;
            let mut flags = RegexFlags::default();
            if self.eat_word("flag") {
                let Some(Tok::Str(text)) = self.peek().cloned() else {
                    return Err(self.unexpected());
                };
                let token = self.at;
                self.at += 1;
                for ch in text.chars() {
                    match ch {
                        'i' => flags.i = true,
                        's' => flags.s = true,
                        'm' => flags.m = true,
                        'q' => flags.q = true,
                        'x' => {
                            return Err(ParseError::new(
                                self.tokens[token].start,
                                "XQuery \"x\" flag (expanded regular expressions) is not implemented"
                                    .to_owned(),
                            )
                            .feature());
                        }
                        other => {
                            return Err(ParseError::new(
                                self.tokens[token].start,
                                format!(
                                    "invalid input syntax for type jsonpath\nunrecognized flag character \"{other}\" in LIKE_REGEX predicate"
                                ),
                            ));
                        }
                    }
                }
            }
            return Ok(Expr::LikeRegex {
                operand: Box::new(left),
                pattern,
                flags,
            });
        }
        if self.peek_word() == Some("starts") {
            self.require_value(&left)?;
            self.at += 1;
            if !self.eat_word("with") {
                return Err(self.unexpected());
            }
            let prefix = match self.peek().cloned() {
                Some(Tok::Str(s)) => Expr::String(s),
                Some(Tok::Variable(v)) => Expr::Variable(v),
                _ => return Err(self.unexpected()),
            };
            self.at += 1;
            return Ok(Expr::StartsWith(Box::new(left), Box::new(prefix)));
        }
        Ok(left)
    }

    fn additive(&mut self) -> Result<Expr, ParseError> {
        self.arithmetic(
            &[("+", Arith::Add), ("-", Arith::Sub)],
            Self::multiplicative,
        )
    }

    fn multiplicative(&mut self) -> Result<Expr, ParseError> {
        self.arithmetic(
            &[("*", Arith::Mul), ("/", Arith::Div), ("%", Arith::Mod)],
            Self::unary,
        )
    }

    /// One left-associative level of arithmetic: operands read by `operand`, joined by the
    /// operators `ops` (each counted against the nesting limit while its chain is open).
    fn arithmetic(
        &mut self,
        ops: &[(&str, Arith)],
        operand: fn(&mut Self) -> Result<Expr, ParseError>,
    ) -> Result<Expr, ParseError> {
        let entered = self.depth;
        let mut left = operand(self)?;
        loop {
            let found = match self.peek() {
                Some(Tok::Punct(symbol)) => ops.iter().find(|(s, _)| s == symbol),
                _ => None,
            };
            let Some(&(_, op)) = found else {
                self.depth = entered;
                return Ok(left);
            };
            self.enter()?;
            self.require_value(&left)?;
            self.at += 1;
            let right = operand(self)?;
            self.require_value_before(&right)?;
            left = Expr::Arith(op, Box::new(left), Box::new(right));
        }
    }

    fn unary(&mut self) -> Result<Expr, ParseError> {
        let minus = if self.eat_punct("-") {
            true
        } else if self.eat_punct("+") {
            false
        } else {
            return self.accessor_expr();
        };
        self.enter()?;
        let operand = self.unary()?;
        self.depth -= 1;
        self.require_value_before(&operand)?;
        Ok(match operand {
            // PostgreSQL folds a sign into a number literal.
            Expr::Number(n) if minus => Expr::Number(negate(&n)),
            Expr::Number(n) => Expr::Number(n),
            operand => Expr::Unary(minus, Box::new(operand)),
        })
    }

    fn accessor_expr(&mut self) -> Result<Expr, ParseError> {
        let primary = self.primary()?;
        let entered = self.depth;
        let mut steps = Vec::new();
        while let Some(step) = self.accessor()? {
            // Each step is one level of the evaluator's recursion.
            self.enter()?;
            steps.push(step);
        }
        self.depth = entered;
        if steps.is_empty() {
            if primary.parenthesized_predicate && !self.at_predicate_end() {
                // `(predicate)` is no value: only `&&`, `||`, `)` or the end may follow.
                return Err(self.unexpected());
            }
            return Ok(primary.expr);
        }
        Ok(Expr::Chain(Box::new(primary.expr), steps))
    }

    /// Whether the next token may follow a predicate.
    fn at_predicate_end(&self) -> bool {
        matches!(self.peek(), None | Some(Tok::Punct("&&" | "||" | ")")))
            || self.peek_word() == Some("is")
    }

    fn primary(&mut self) -> Result<Primary, ParseError> {
        let value = |expr| {
            Ok(Primary {
                expr,
                parenthesized_predicate: false,
            })
        };
        let Some(token) = self.tokens.get(self.at).cloned() else {
            return Err(self.unexpected());
        };
        match token.tok {
            Tok::Punct("$") => {
                self.at += 1;
                value(Expr::Root)
            }
            Tok::Punct("@") => {
                self.at += 1;
                value(Expr::Current)
            }
            Tok::Str(s) => {
                self.at += 1;
                value(Expr::String(s))
            }
            Tok::Number(n) => {
                self.at += 1;
                value(Expr::Number(n))
            }
            Tok::Variable(v) => {
                self.at += 1;
                value(Expr::Variable(v))
            }
            Tok::Word(word) => {
                let expr = match word.as_str() {
                    "null" => Expr::Null,
                    "true" => Expr::Bool(true),
                    "false" => Expr::Bool(false),
                    "last" => Expr::Last,
                    "exists" => {
                        self.at += 1;
                        self.expect_punct("(")?;
                        self.enter()?;
                        let argument = self.or()?;
                        self.depth -= 1;
                        if argument.is_predicate() {
                            return Err(self.unexpected());
                        }
                        self.expect_punct(")")?;
                        return Ok(Primary {
                            expr: Expr::Exists(Box::new(argument)),
                            parenthesized_predicate: true,
                        });
                    }
                    _ => return Err(self.unexpected()),
                };
                self.at += 1;
                value(expr)
            }
            Tok::Punct("(") => {
                self.at += 1;
                self.enter()?;
                let inner = self.or()?;
                self.depth -= 1;
                self.expect_punct(")")?;
                if inner.is_predicate() {
                    if self.peek_word() == Some("is") {
                        self.at += 1;
                        if !self.eat_word("unknown") {
                            return Err(self.unexpected());
                        }
                        return Ok(Primary {
                            expr: Expr::IsUnknown(Box::new(inner)),
                            parenthesized_predicate: true,
                        });
                    }
                    return Ok(Primary {
                        expr: inner,
                        parenthesized_predicate: true,
                    });
                }
                value(inner)
            }
            _ => Err(self.unexpected()),
        }
    }

    /// One accessor, if the next tokens are one.
    fn accessor(&mut self) -> Result<Option<Step>, ParseError> {
        if self.eat_punct("[") {
            if self.eat_punct("*") {
                self.expect_punct("]")?;
                return Ok(Some(Step::AnyArray));
            }
            self.enter()?;
            let mut subscripts = Vec::new();
            loop {
                let from = self.additive_value()?;
                let to = if self.eat_word("to") {
                    Some(self.additive_value()?)
                } else {
                    None
                };
                subscripts.push((from, to));
                if !self.eat_punct(",") {
                    break;
                }
            }
            self.depth -= 1;
            self.expect_punct("]")?;
            return Ok(Some(Step::Index(subscripts)));
        }
        if self.peek_punct("?") {
            self.at += 1;
            self.expect_punct("(")?;
            self.enter()?;
            let predicate = self.or()?;
            self.depth -= 1;
            if !predicate.is_predicate() {
                return Err(self.unexpected());
            }
            self.expect_punct(")")?;
            return Ok(Some(Step::Filter(Box::new(predicate))));
        }
        if !self.eat_punct(".") {
            return Ok(None);
        }
        if self.eat_punct("*") {
            return Ok(Some(Step::AnyKey));
        }
        if self.eat_punct("**") {
            let (mut first, mut last) = (0, LAST_LEVEL);
            if self.eat_punct("{") {
                first = self.level()?;
                last = if self.eat_word("to") {
                    self.level()?
                } else {
                    first
                };
                self.expect_punct("}")?;
            }
            return Ok(Some(Step::Any { first, last }));
        }
        let Some(token) = self.tokens.get(self.at).cloned() else {
            return Err(self.unexpected());
        };
        match token.tok {
            Tok::Str(key) => {
                self.at += 1;
                Ok(Some(Step::Key(key)))
            }
            Tok::Word(word) => {
                self.at += 1;
                if !self.peek_punct("(") {
                    return Ok(Some(Step::Key(word)));
                }
                let method = match word.as_str() {
                    "type" => Method::Type,
                    "size" => Method::Size,
                    "double" => Method::Double,
                    "ceiling" => Method::Ceiling,
                    "floor" => Method::Floor,
                    "abs" => Method::Abs,
                    "keyvalue" => Method::KeyValue,
                    "datetime" => {
                        self.at += 1;
                        let template = match self.peek().cloned() {
                            Some(Tok::Str(s)) => {
                                self.at += 1;
                                Some(s)
                            }
                            _ => None,
                        };
                        self.expect_punct(")")?;
                        return Ok(Some(Step::Method(Method::DateTime(template))));
                    }
                    _ => return Err(self.unexpected()),
                };
                self.at += 1;
                self.expect_punct(")")?;
                Ok(Some(Step::Method(method)))
            }
            _ => Err(self.unexpected()),
        }
    }

    /// A subscript expression: a value expression (no predicate).
    fn additive_value(&mut self) -> Result<Expr, ParseError> {
        let expr = self.additive()?;
        self.require_value_before(&expr)?;
        Ok(expr)
    }

    /// A `.**` level: an integer or `last`.
    fn level(&mut self) -> Result<u32, ParseError> {
        match self.peek().cloned() {
            Some(Tok::Word(w)) if w == "last" => {
                self.at += 1;
                Ok(LAST_LEVEL)
            }
            Some(Tok::Number(n)) => match n.parse::<u32>() {
                Ok(level) if level < LAST_LEVEL => {
                    self.at += 1;
                    Ok(level)
                }
                _ => Err(self.unexpected()),
            },
            _ => Err(self.unexpected()),
        }
    }

    /// A value expression is required where `left` stands (before the current token).
    fn require_value(&self, left: &Expr) -> Result<(), ParseError> {
        self.require_value_at(left, self.at)
    }

    fn require_value_at(&self, left: &Expr, at: usize) -> Result<(), ParseError> {
        if left.is_predicate() {
            return Err(self
                .tokens
                .get(at)
                .map_or_else(|| self.unexpected(), |t| ParseError::near(t.start, &t.text)));
        }
        Ok(())
    }

    /// A value expression is required in what was just parsed.
    fn require_value_before(&self, expr: &Expr) -> Result<(), ParseError> {
        if expr.is_predicate() {
            return Err(self.unexpected());
        }
        Ok(())
    }
}

/// `&&` / `||` take predicates: a value on the left is an error at the operator.
fn require_predicate(left: &Expr, operator: &Token) -> Result<(), ParseError> {
    if left.is_predicate() {
        Ok(())
    } else {
        Err(ParseError::near(operator.start, &operator.text))
    }
}

/// The right operand of `&&` / `||` must be a predicate: else the error is at the token
/// after it (where PostgreSQL's parser notices).
fn require_predicate_after(right: &Expr, parser: &Parser) -> Result<(), ParseError> {
    if right.is_predicate() {
        Ok(())
    } else {
        Err(parser.unexpected())
    }
}

/// The negation of a number's `numeric` text.
fn negate(number: &str) -> String {
    if let Some(positive) = number.strip_prefix('-') {
        positive.to_owned()
    } else if number.bytes().all(|b| b == b'0' || b == b'.') {
        number.to_owned()
    } else {
        format!("-{number}")
    }
}

/// Refuses `@` outside filters and `last` outside array subscripts.
fn check_context(expr: &Expr, in_filter: bool, in_subscript: bool) -> Result<(), ParseError> {
    let check = |e: &Expr| check_context(e, in_filter, in_subscript);
    match expr {
        Expr::Current if !in_filter => Err(ParseError::new(
            0,
            "@ is not allowed in root expressions".to_owned(),
        )),
        Expr::Last if !in_subscript => Err(ParseError::new(
            0,
            "LAST is allowed only in array subscripts".to_owned(),
        )),
        Expr::Chain(base, steps) => {
            check(base)?;
            for step in steps {
                match step {
                    Step::Index(subscripts) => {
                        for (from, to) in subscripts {
                            check_context(from, in_filter, true)?;
                            if let Some(to) = to {
                                check_context(to, in_filter, true)?;
                            }
                        }
                    }
                    Step::Filter(predicate) => check_context(predicate, true, in_subscript)?,
                    _ => {}
                }
            }
            Ok(())
        }
        Expr::Arith(_, a, b)
        | Expr::Compare(_, a, b)
        | Expr::And(a, b)
        | Expr::Or(a, b)
        | Expr::StartsWith(a, b) => {
            check(a)?;
            check(b)
        }
        Expr::Unary(_, a) | Expr::Not(a) | Expr::IsUnknown(a) | Expr::Exists(a) => check(a),
        Expr::LikeRegex { operand, .. } => check(operand),
        _ => Ok(()),
    }
}
