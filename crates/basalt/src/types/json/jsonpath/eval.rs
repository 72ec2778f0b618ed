//! The jsonpath evaluator: runs a [`JsonPath`] over an item, as PostgreSQL 15's
//! `jsonpath_exec.c` does.
//!
//! Items flow through accessor chains depth-first; each accessor either produces items for
//! the next one or reports an error. Errors come in two kinds ([`Fail`]):
//!
//! * **soft** ones are SQL/JSON's structural and data errors (a missing key in strict mode,
//!   a subscript out of bounds, a non-numeric operand, division by zero): `silent => true`
//!   suppresses them, predicates turn them into *unknown*, and lax mode never raises the
//!   structural ones in the first place (it wraps scalars as one-element arrays for array
//!   accessors and unwraps arrays for member accessors, methods and comparisons);
//! * **hard** ones are always raised: an undefined variable (42704), a `.datetime()`
//!   template (0A000, not supported), a regular expression that does not compile (2201B).
//!
//! Predicates are three-valued (true, false, unknown). Comparisons are existential over the
//! items of both sides, as PostgreSQL's `executePredicate`: lax mode answers true at the
//! first true pair, strict mode looks at every pair and answers unknown if any pair errs.
//! Recursion follows the path's nesting, which the parser bounds, and the document's, which
//! jsonb input bounds. Item methods, comparisons and `like_regex` are in `methods.rs`.

use std::collections::HashMap;

use regex::Regex;

use super::ast::{Arith, Expr, LAST_LEVEL, Method, RegexFlags, Step};
use super::item::Item;
use super::methods;
use super::{coded, soft};
use crate::sqlstate;
use crate::types::TypeError;
use crate::types::numeric::{self as ops, Numeric};

thread_local! {
    /// Compiled `like_regex` patterns, shared by the calls on one thread (a filter runs once
    /// per row with the same pattern).
    static REGEXES: std::cell::RefCell<HashMap<(String, RegexFlags), Regex>> =
        std::cell::RefCell::new(HashMap::new());
}

/// An evaluation error: `Soft` ones are suppressible, `Hard` ones are not.
#[derive(Debug)]
pub enum Fail {
    Soft(TypeError),
    Hard(TypeError),
}

type Flow = Result<bool, Fail>;

/// Three-valued logic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tri {
    True,
    False,
    Unknown,
}

impl From<bool> for Tri {
    fn from(b: bool) -> Tri {
        if b { Tri::True } else { Tri::False }
    }
}

/// Where results go: the items, and whether the first one is enough (lax `exists`).
struct Out<'v> {
    items: &'v mut Vec<Item>,
    first_only: bool,
}

impl Out<'_> {
    /// Adds an item; `true` when evaluation may stop.
    fn push(&mut self, item: Item) -> bool {
        self.items.push(item);
        self.first_only
    }
}

/// The state of one evaluation.
pub struct Exec<'a> {
    lax: bool,
    ignore_structural: bool,
    /// Whether soft errors are raised (not `silent`, and not inside a predicate, where
    /// PostgreSQL evaluates operands without throwing).
    throw: bool,
    root: &'a Item,
    vars: &'a [(String, Item)],
    /// The `vars` object itself, for `.keyvalue()` ids.
    vars_root: Option<&'a Item>,
    /// The size of the innermost array being subscripted, for `last`.
    array_size: Option<usize>,
    /// The `.keyvalue()` ids of the objects of the document and of `vars`, computed when
    /// first needed (see `layout.rs`).
    object_ids: Option<HashMap<*const Item, i64>>,
    regexes: HashMap<(String, RegexFlags), Regex>,
}

impl<'a> Exec<'a> {
    pub fn new(
        strict: bool,
        silent: bool,
        root: &'a Item,
        vars_root: Option<&'a Item>,
    ) -> Exec<'a> {
        let vars: &[(String, Item)] = match vars_root {
            Some(Item::Object(members)) => members,
            _ => &[],
        };
        Exec {
            lax: !strict,
            ignore_structural: !strict,
            throw: !silent,
            root,
            vars,
            vars_root,
            array_size: None,
            object_ids: None,
            regexes: HashMap::new(),
        }
    }

    /// Evaluates `expr` (the whole path) into `items`; with `first_only`, stops at the first
    /// item in lax mode (strict mode must see every item to find every error).
    pub fn run(
        &mut self,
        expr: &Expr,
        items: &mut Vec<Item>,
        first_only: bool,
    ) -> Result<(), Fail> {
        let mut out = Out {
            items,
            first_only: first_only && self.lax,
        };
        let root = self.root;
        self.eval(expr, root, &mut out, self.lax).map(|_| ())
    }

    fn variable(&self, name: &str) -> Result<&'a Item, Fail> {
        self.vars
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value)
            .ok_or_else(|| {
                Fail::Hard(coded(
                    sqlstate::UNDEFINED_OBJECT,
                    format!("could not find jsonpath variable \"{name}\""),
                ))
            })
    }

    /// Evaluates `expr` with `@` = `current` into `out`.
    fn eval(&mut self, expr: &Expr, current: &Item, out: &mut Out<'_>, unwrap: bool) -> Flow {
        match expr {
            Expr::Chain(base, steps) => {
                // Bases that are already items are not copied.
                let single = match base.as_ref() {
                    Expr::Root => Some(self.root),
                    Expr::Variable(name) => Some(self.variable(name)?),
                    _ => None,
                };
                if let Some(item) = single {
                    return self.apply(item, steps, current, out, unwrap);
                }
                if matches!(base.as_ref(), Expr::Current) {
                    return self.apply(current, steps, current, out, unwrap);
                }
                let mut bases = Vec::new();
                self.eval(
                    base,
                    current,
                    &mut Out {
                        items: &mut bases,
                        first_only: false,
                    },
                    unwrap,
                )?;
                for item in &bases {
                    if self.apply(item, steps, current, out, self.lax)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Expr::Null => Ok(out.push(Item::Null)),
            Expr::Bool(b) => Ok(out.push(Item::Bool(*b))),
            Expr::Number(n) => Ok(out.push(Item::Number(n.clone()))),
            Expr::String(s) => Ok(out.push(Item::String(s.clone()))),
            Expr::Variable(name) => {
                let item = self.variable(name)?.clone();
                Ok(out.push(item))
            }
            Expr::Root => Ok(out.push(self.root.clone())),
            Expr::Current => Ok(out.push(current.clone())),
            Expr::Last => {
                let size = self.array_size.ok_or_else(|| {
                    Fail::Hard(coded(
                        sqlstate::SYNTAX_ERROR,
                        "evaluating jsonpath LAST outside of array subscript".to_owned(),
                    ))
                })?;
                Ok(out.push(Item::Number((size as i64 - 1).to_string())))
            }
            Expr::Arith(op, left, right) => {
                let result = self.arithmetic(*op, left, right, current)?;
                Ok(out.push(result))
            }
            Expr::Unary(minus, operand) => {
                let items = self.unwrapped(operand, current)?;
                for item in items {
                    let Item::Number(n) = item else {
                        // Only existence is asked (lax `exists`): PostgreSQL skips the
                        // items that are not numbers rather than failing.
                        if out.first_only {
                            continue;
                        }
                        return Err(soft(
                            sqlstate::SQL_JSON_NUMBER_NOT_FOUND,
                            format!(
                                "operand of unary jsonpath operator {} is not a numeric value",
                                if *minus { '-' } else { '+' }
                            ),
                        ));
                    };
                    let n = if *minus { methods::negate(&n) } else { n };
                    if out.push(Item::Number(n)) {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            predicate => {
                let item = match self.predicate(predicate, current)? {
                    Tri::True => Item::Bool(true),
                    Tri::False => Item::Bool(false),
                    Tri::Unknown => Item::Null,
                };
                Ok(out.push(item))
            }
        }
    }

    /// The items of `expr`, arrays unwrapped one level in lax mode.
    fn unwrapped(&mut self, expr: &Expr, current: &Item) -> Result<Vec<Item>, Fail> {
        let mut items = Vec::new();
        self.eval(
            expr,
            current,
            &mut Out {
                items: &mut items,
                first_only: false,
            },
            self.lax,
        )?;
        if !self.lax {
            return Ok(items);
        }
        let mut flat = Vec::with_capacity(items.len());
        for item in items {
            match item {
                Item::Array(elements) => flat.extend(elements),
                other => flat.push(other),
            }
        }
        Ok(flat)
    }

    /// Applies `steps` to `item`; `unwrap` says whether the first step may unwrap an array.
    fn apply(
        &mut self,
        item: &Item,
        steps: &[Step],
        current: &Item,
        out: &mut Out<'_>,
        unwrap: bool,
    ) -> Flow {
        let Some((step, rest)) = steps.split_first() else {
            return Ok(out.push(item.clone()));
        };
        let lax = self.lax;
        // Member accessors, filters and most methods apply to each element of an array in
        // lax mode.
        let unwraps = matches!(step, Step::Key(_) | Step::AnyKey | Step::Filter(_))
            || matches!(
                step,
                Step::Method(
                    Method::Double
                        | Method::Ceiling
                        | Method::Floor
                        | Method::Abs
                        | Method::KeyValue
                        | Method::DateTime(_)
                )
            );
        if unwrap
            && unwraps
            && let Item::Array(elements) = item
        {
            for element in elements {
                if self.apply(element, steps, current, out, false)? {
                    return Ok(true);
                }
            }
            return Ok(false);
        }
        match step {
            Step::Key(key) => match item {
                Item::Object(members) => match members.iter().find(|(k, _)| k == key) {
                    Some((_, value)) => self.apply(value, rest, current, out, lax),
                    None if !self.ignore_structural => Err(soft(
                        sqlstate::SQL_JSON_MEMBER_NOT_FOUND,
                        format!("JSON object does not contain key \"{key}\""),
                    )),
                    None => Ok(false),
                },
                _ if !self.ignore_structural => Err(soft(
                    sqlstate::SQL_JSON_MEMBER_NOT_FOUND,
                    "jsonpath member accessor can only be applied to an object".to_owned(),
                )),
                _ => Ok(false),
            },
            Step::AnyKey => match item {
                Item::Object(members) => {
                    for (_, value) in members {
                        if self.apply(value, rest, current, out, lax)? {
                            return Ok(true);
                        }
                    }
                    Ok(false)
                }
                _ if !self.ignore_structural => Err(soft(
                    sqlstate::SQL_JSON_OBJECT_NOT_FOUND,
                    "jsonpath wildcard member accessor can only be applied to an object".to_owned(),
                )),
                _ => Ok(false),
            },
            Step::AnyArray => match item {
                Item::Array(elements) => {
                    for element in elements {
                        if self.apply(element, rest, current, out, lax)? {
                            return Ok(true);
                        }
                    }
                    Ok(false)
                }
                _ if lax => self.apply(item, rest, current, out, lax),
                _ if self.ignore_structural => Ok(false),
                _ => Err(soft(
                    sqlstate::SQL_JSON_ARRAY_NOT_FOUND,
                    "jsonpath wildcard array accessor can only be applied to an array".to_owned(),
                )),
            },
            Step::Index(subscripts) => self.subscripts(item, subscripts, rest, current, out),
            Step::Any { first, last } => {
                if *first == 0 {
                    let saved = self.ignore_structural;
                    self.ignore_structural = true;
                    let result = self.apply(item, rest, current, out, true);
                    self.ignore_structural = saved;
                    match result {
                        Ok(true) => return Ok(true),
                        Ok(false) => {}
                        // PostgreSQL's jpiAny overwrites a level-0 error it did not throw
                        // with the result of the levels below.
                        Err(Fail::Soft(_)) if !self.throw => {}
                        Err(error) => return Err(error),
                    }
                }
                self.descend(item, rest, current, out, 1, *first, *last)
            }
            Step::Filter(predicate) => {
                if self.predicate(predicate, item)? == Tri::True {
                    self.apply(item, rest, current, out, lax)
                } else {
                    Ok(false)
                }
            }
            Step::Method(method) => {
                let results = methods::method(
                    method,
                    item,
                    self.lax,
                    self.ignore_structural,
                    if *method == Method::KeyValue {
                        self.object_id(item)
                    } else {
                        0
                    },
                )?;
                for result in &results {
                    if self.apply(result, rest, current, out, lax)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
        }
    }

    /// `.**` below `item`: the members at levels `level..=last` (PostgreSQL's
    /// `executeAnyItem`), each passed to `rest` with structural errors ignored.
    #[allow(
        clippy::too_many_arguments,
        reason = "the level bounds travel with the recursion"
    )]
    fn descend(
        &mut self,
        item: &Item,
        rest: &[Step],
        current: &Item,
        out: &mut Out<'_>,
        level: u32,
        first: u32,
        last: u32,
    ) -> Flow {
        if level > last {
            return Ok(false);
        }
        let children: Vec<&Item> = match item {
            Item::Array(elements) => elements.iter().collect(),
            Item::Object(members) => members.iter().map(|(_, value)| value).collect(),
            _ => return Ok(false),
        };
        for child in children {
            let container = matches!(child, Item::Array(_) | Item::Object(_));
            // `.**{last}`: the leaves only.
            if level >= first || (first == LAST_LEVEL && last == LAST_LEVEL && !container) {
                let saved = self.ignore_structural;
                self.ignore_structural = true;
                let result = self.apply(child, rest, current, out, self.lax);
                self.ignore_structural = saved;
                if result? {
                    return Ok(true);
                }
            }
            if level < last
                && container
                && self.descend(child, rest, current, out, level + 1, first, last)?
            {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn subscripts(
        &mut self,
        item: &Item,
        subscripts: &[(Expr, Option<Expr>)],
        rest: &[Step],
        current: &Item,
        out: &mut Out<'_>,
    ) -> Flow {
        let elements: &[Item] = match item {
            Item::Array(elements) => elements,
            _ if self.lax => std::slice::from_ref(item),
            // Strict, below `.**`: structural errors are ignored.
            _ if self.ignore_structural => return Ok(false),
            _ => {
                return Err(soft(
                    sqlstate::SQL_JSON_ARRAY_NOT_FOUND,
                    "jsonpath array accessor can only be applied to an array".to_owned(),
                ));
            }
        };
        let size = elements.len();
        let saved = self.array_size.replace(size);
        let result = (|| {
            for (from, to) in subscripts {
                let start = self.index(from, item)?;
                let end = match to {
                    Some(to) => self.index(to, item)?,
                    None => start,
                };
                if !self.ignore_structural && (start < 0 || start > end || end >= size as i64) {
                    return Err(soft(
                        sqlstate::INVALID_SQL_JSON_SUBSCRIPT,
                        "jsonpath array subscript is out of bounds".to_owned(),
                    ));
                }
                let start = start.max(0);
                let end = end.min(size as i64 - 1);
                let mut index = start;
                while index <= end {
                    if let Some(element) = usize::try_from(index).ok().and_then(|i| elements.get(i))
                        && self.apply(element, rest, current, out, self.lax)?
                    {
                        return Ok(true);
                    }
                    index += 1;
                }
            }
            Ok(false)
        })();
        self.array_size = saved;
        result
    }

    /// A subscript's value: one number, truncated to an integer.
    fn index(&mut self, expr: &Expr, array: &Item) -> Result<i64, Fail> {
        let mut items = Vec::new();
        self.eval(
            expr,
            array,
            &mut Out {
                items: &mut items,
                first_only: false,
            },
            self.lax,
        )?;
        let not_single = || {
            soft(
                sqlstate::INVALID_SQL_JSON_SUBSCRIPT,
                "jsonpath array subscript is not a single numeric value".to_owned(),
            )
        };
        match items.as_slice() {
            [Item::Number(n)] => {
                let integer = n.split('.').next().unwrap_or("0");
                integer.parse::<i32>().map(i64::from).map_err(|_| {
                    soft(
                        sqlstate::INVALID_SQL_JSON_SUBSCRIPT,
                        "jsonpath array subscript is out of integer range".to_owned(),
                    )
                })
            }
            _ => Err(not_single()),
        }
    }

    fn arithmetic(
        &mut self,
        op: Arith,
        left: &Expr,
        right: &Expr,
        current: &Item,
    ) -> Result<Item, Fail> {
        let symbol = match op {
            Arith::Add => "+",
            Arith::Sub => "-",
            Arith::Mul => "*",
            Arith::Div => "/",
            Arith::Mod => "%",
        };
        // Both operands are evaluated before either is checked, as in PostgreSQL (so an
        // error inside the right one wins over a left one that is not a single number).
        let lefts = self.unwrapped(left, current)?;
        let rights = self.unwrapped(right, current)?;
        let single = |items: &[Item], side: &str| -> Result<Numeric, Fail> {
            match items {
                [Item::Number(n)] => ops::parse(n).map_err(Fail::Soft),
                _ => Err(soft(
                    sqlstate::SINGLETON_SQL_JSON_ITEM_REQUIRED,
                    format!(
                        "{side} operand of jsonpath operator {symbol} is not a single numeric value"
                    ),
                )),
            }
        };
        let a = single(&lefts, "left")?;
        let b = single(&rights, "right")?;
        let result = match op {
            Arith::Add => ops::add(a, b),
            Arith::Sub => ops::subtract(a, b),
            Arith::Mul => ops::multiply(a, b),
            Arith::Div => ops::divide(a, b),
            Arith::Mod => ops::remainder(a, b),
        }
        .map_err(Fail::Soft)?;
        Ok(Item::Number(result.to_string()))
    }

    /// PostgreSQL's `.keyvalue()` id of an object: its binary jsonb offset in the document,
    /// or in `vars` plus 10^10 (PostgreSQL's base-object numbering); 0 for objects the path
    /// made, where PostgreSQL's numbering is not reproduced.
    fn object_id(&mut self, item: &Item) -> i64 {
        let (root, vars) = (self.root, self.vars_root);
        let ids = self.object_ids.get_or_insert_with(|| {
            let mut ids = super::layout::offsets(root);
            if let Some(vars) = vars {
                for (object, offset) in super::layout::offsets(vars) {
                    ids.insert(object, offset + 10_000_000_000);
                }
            }
            ids
        });
        ids.get(&std::ptr::from_ref(item)).copied().unwrap_or(0)
    }

    /// Evaluates a predicate with `@` = `current`; soft errors are unknown.
    pub fn predicate(&mut self, expr: &Expr, current: &Item) -> Result<Tri, Fail> {
        let saved = self.throw;
        self.throw = false;
        let result = self.predicate_inner(expr, current);
        self.throw = saved;
        result
    }

    fn predicate_inner(&mut self, expr: &Expr, current: &Item) -> Result<Tri, Fail> {
        Ok(match expr {
            Expr::And(left, right) => match self.predicate(left, current)? {
                Tri::False => Tri::False,
                l => match (l, self.predicate(right, current)?) {
                    (_, Tri::False) => Tri::False,
                    (Tri::True, Tri::True) => Tri::True,
                    _ => Tri::Unknown,
                },
            },
            Expr::Or(left, right) => match self.predicate(left, current)? {
                Tri::True => Tri::True,
                l => match (l, self.predicate(right, current)?) {
                    (_, Tri::True) => Tri::True,
                    (Tri::False, Tri::False) => Tri::False,
                    _ => Tri::Unknown,
                },
            },
            Expr::Not(inner) => match self.predicate(inner, current)? {
                Tri::True => Tri::False,
                Tri::False => Tri::True,
                Tri::Unknown => Tri::Unknown,
            },
            Expr::IsUnknown(inner) => Tri::from(self.predicate(inner, current)? == Tri::Unknown),
            Expr::Exists(inner) => {
                let mut items = Vec::new();
                let mut out = Out {
                    items: &mut items,
                    first_only: self.lax,
                };
                match self.eval(inner, current, &mut out, self.lax) {
                    Ok(_) => Tri::from(!items.is_empty()),
                    Err(Fail::Soft(_)) => Tri::Unknown,
                    Err(hard) => return Err(hard),
                }
            }
            Expr::Compare(op, left, right) => {
                let Some((lefts, rights)) = self.operands(left, Some(right), current, true)? else {
                    return Ok(Tri::Unknown);
                };
                self.existential(&lefts, &rights, |a, b| methods::compare(*op, a, b))?
            }
            Expr::StartsWith(left, right) => {
                let Some((lefts, rights)) = self.operands(left, Some(right), current, false)?
                else {
                    return Ok(Tri::Unknown);
                };
                self.existential(&lefts, &rights, |a, b| {
                    Ok(match (a, b) {
                        (Item::String(whole), Item::String(prefix)) => {
                            Tri::from(whole.starts_with(prefix.as_str()))
                        }
                        _ => Tri::Unknown,
                    })
                })?
            }
            Expr::LikeRegex {
                operand,
                pattern,
                flags,
            } => {
                let Some((lefts, _)) = self.operands(operand, None, current, true)? else {
                    return Ok(Tri::Unknown);
                };
                let regex = self.regex(pattern, *flags)?;
                self.existential(&lefts, &[Item::Null], |a, _| {
                    Ok(match a {
                        Item::String(s) => Tri::from(regex.is_match(s)),
                        _ => Tri::Unknown,
                    })
                })?
            }
            _ => {
                return Err(Fail::Hard(coded(
                    sqlstate::SYNTAX_ERROR,
                    "jsonpath expression is not a predicate".to_owned(),
                )));
            }
        })
    }

    /// The items of a predicate's operands (the right one not unwrapped for `starts with`),
    /// or `None` when one of them errs.
    #[allow(clippy::type_complexity, reason = "two item lists")]
    fn operands(
        &mut self,
        left: &Expr,
        right: Option<&Expr>,
        current: &Item,
        unwrap_right: bool,
    ) -> Result<Option<(Vec<Item>, Vec<Item>)>, Fail> {
        let lefts = match self.unwrapped(left, current) {
            Ok(items) => items,
            Err(Fail::Soft(_)) => return Ok(None),
            Err(hard) => return Err(hard),
        };
        let rights = match right {
            None => Vec::new(),
            Some(right) if unwrap_right => match self.unwrapped(right, current) {
                Ok(items) => items,
                Err(Fail::Soft(_)) => return Ok(None),
                Err(hard) => return Err(hard),
            },
            Some(right) => {
                let mut items = Vec::new();
                let mut out = Out {
                    items: &mut items,
                    first_only: false,
                };
                match self.eval(right, current, &mut out, self.lax) {
                    Ok(_) => items,
                    Err(Fail::Soft(_)) => return Ok(None),
                    Err(hard) => return Err(hard),
                }
            }
        };
        Ok(Some((lefts, rights)))
    }

    /// PostgreSQL's `executePredicate` loop over every pair (a hard error from `test`
    /// ends it).
    fn existential(
        &self,
        lefts: &[Item],
        rights: &[Item],
        test: impl Fn(&Item, &Item) -> Result<Tri, Fail>,
    ) -> Result<Tri, Fail> {
        let (mut found, mut error) = (false, false);
        for left in lefts {
            for right in rights {
                match test(left, right)? {
                    Tri::Unknown if !self.lax => return Ok(Tri::Unknown),
                    Tri::Unknown => error = true,
                    Tri::True if self.lax => return Ok(Tri::True),
                    Tri::True => found = true,
                    Tri::False => {}
                }
            }
        }
        Ok(if found {
            Tri::True
        } else if error {
            Tri::Unknown
        } else {
            Tri::False
        })
    }

    fn regex(&mut self, pattern: &str, flags: RegexFlags) -> Result<Regex, Fail> {
        let key = (pattern.to_owned(), flags);
        if let Some(regex) = self.regexes.get(&key) {
            return Ok(regex.clone());
        }
        let regex = REGEXES
            .with(|cache| cache.borrow().get(&key).cloned())
            .map_or_else(|| methods::compile_regex(pattern, flags), Ok)
            .map_err(Fail::Hard)?;
        REGEXES.with(|cache| {
            let mut cache = cache.borrow_mut();
            // A bound, not an eviction policy: paths with many distinct patterns recompile.
            if cache.len() >= 64 {
                cache.clear();
            }
            cache.insert(key.clone(), regex.clone());
        });
        self.regexes.insert(key, regex.clone());
        Ok(regex)
    }
}
