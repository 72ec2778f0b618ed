//! The jsonpath printer: a [`JsonPath`] back to text in PostgreSQL's normalized form, the
//! form `'$.a'::jsonpath` prints (`$."a"`).
//!
//! It mirrors PostgreSQL 15's `printJsonPathItem`: keys and variable names always quoted,
//! `strict ` written and `lax` not, numbers in `numeric` form (parenthesized when an
//! accessor follows), operands parenthesized when their operator binds no tighter than the
//! one around them, and a top-level operator expression parenthesized as a whole
//! (`'1 + 2'` prints `(1 + 2)`).

use super::ast::{Arith, Cmp, Expr, JsonPath, LAST_LEVEL, Method, Step};
use crate::types::json::write::push_string;

/// The normalized text of `path`.
pub fn to_text(path: &JsonPath) -> String {
    let mut out = String::new();
    if path.strict {
        out.push_str("strict ");
    }
    expr(&path.expr, true, &mut out);
    out
}

fn binary(op: &str, parent: &Expr, left: &Expr, right: &Expr, brackets: bool, out: &mut String) {
    if brackets {
        out.push('(');
    }
    expr(left, left.priority() <= parent.priority(), out);
    out.push(' ');
    out.push_str(op);
    out.push(' ');
    expr(right, right.priority() <= parent.priority(), out);
    if brackets {
        out.push(')');
    }
}

fn expr(e: &Expr, brackets: bool, out: &mut String) {
    match e {
        Expr::Null => out.push_str("null"),
        Expr::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Expr::Number(n) => out.push_str(n),
        Expr::String(s) => push_string(s, out),
        Expr::Variable(name) => {
            out.push('$');
            push_string(name, out);
        }
        Expr::Root => out.push('$'),
        Expr::Current => out.push('@'),
        Expr::Last => out.push_str("last"),
        Expr::Chain(base, steps) => {
            if let Expr::Number(n) = base.as_ref() {
                out.push('(');
                out.push_str(n);
                out.push(')');
            } else {
                expr(base, brackets, out);
            }
            for step in steps {
                print_step(step, out);
            }
        }
        Expr::Arith(op, left, right) => {
            let symbol = match op {
                Arith::Add => "+",
                Arith::Sub => "-",
                Arith::Mul => "*",
                Arith::Div => "/",
                Arith::Mod => "%",
            };
            binary(symbol, e, left, right, brackets, out);
        }
        Expr::Compare(op, left, right) => {
            let symbol = match op {
                Cmp::Eq => "==",
                Cmp::Ne => "!=",
                Cmp::Lt => "<",
                Cmp::Le => "<=",
                Cmp::Gt => ">",
                Cmp::Ge => ">=",
            };
            binary(symbol, e, left, right, brackets, out);
        }
        Expr::And(left, right) => binary("&&", e, left, right, brackets, out),
        Expr::Or(left, right) => binary("||", e, left, right, brackets, out),
        Expr::StartsWith(left, right) => binary("starts with", e, left, right, brackets, out),
        Expr::Unary(minus, operand) => {
            if brackets {
                out.push('(');
            }
            out.push(if *minus { '-' } else { '+' });
            expr(operand, operand.priority() <= e.priority(), out);
            if brackets {
                out.push(')');
            }
        }
        Expr::LikeRegex {
            operand,
            pattern,
            flags,
        } => {
            if brackets {
                out.push('(');
            }
            expr(operand, operand.priority() <= e.priority(), out);
            out.push_str(" like_regex ");
            push_string(pattern, out);
            let letters: String = [
                (flags.i, 'i'),
                (flags.s, 's'),
                (flags.m, 'm'),
                (flags.q, 'q'),
            ]
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, letter)| *letter)
            .collect();
            if !letters.is_empty() {
                out.push_str(" flag \"");
                out.push_str(&letters);
                out.push('"');
            }
            if brackets {
                out.push(')');
            }
        }
        Expr::Not(inner) => {
            out.push_str("!(");
            expr(inner, false, out);
            out.push(')');
        }
        Expr::IsUnknown(inner) => {
            out.push('(');
            expr(inner, false, out);
            out.push_str(") is unknown");
        }
        Expr::Exists(inner) => {
            out.push_str("exists (");
            expr(inner, false, out);
            out.push(')');
        }
    }
}

fn level(n: u32, out: &mut String) {
    if n == LAST_LEVEL {
        out.push_str("last");
    } else {
        out.push_str(&n.to_string());
    }
}

fn print_step(step: &Step, out: &mut String) {
    match step {
        Step::Key(key) => {
            out.push('.');
            push_string(key, out);
        }
        Step::AnyKey => out.push_str(".*"),
        Step::AnyArray => out.push_str("[*]"),
        Step::Index(subscripts) => {
            out.push('[');
            for (i, (from, to)) in subscripts.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                expr(from, false, out);
                if let Some(to) = to {
                    out.push_str(" to ");
                    expr(to, false, out);
                }
            }
            out.push(']');
        }
        Step::Any { first, last } => {
            out.push_str(".**");
            if *first == 0 && *last == LAST_LEVEL {
                return;
            }
            out.push('{');
            level(*first, out);
            if first != last {
                out.push_str(" to ");
                level(*last, out);
            }
            out.push('}');
        }
        Step::Filter(predicate) => {
            out.push_str("?(");
            expr(predicate, false, out);
            out.push(')');
        }
        Step::Method(Method::DateTime(template)) => {
            out.push_str(".datetime(");
            if let Some(template) = template {
                push_string(template, out);
            }
            out.push(')');
        }
        Step::Method(method) => {
            out.push('.');
            out.push_str(method.name());
            out.push_str("()");
        }
    }
}
