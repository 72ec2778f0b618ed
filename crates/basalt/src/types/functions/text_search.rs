//! The full-text functions that work row by row: `fts_match(text, query [, options])`
//! (whether the text matches the query), `fts_highlight(text, query, open, close [,
//! options])` (the text with each match wrapped) and `fts_snippet(text, query [, open, close,
//! ellipsis, tokens [, options]])` (the passage of at most `tokens` words, default 10, with the
//! most matches, highlighted, `<b>`/`</b>` and `...` by default).
//!
//! `fts_terms(text [, options])` shows what an analyzer makes of a text, as PostgreSQL's
//! `to_tsvector` does: each distinct term, quoted, with its 1-based word positions, in term
//! order (`'fox':3 'run':2`); `options` is an analyzer's options (`stemmer = english,
//! stopwords = english`), the default analyzer without it.
//!
//! The other three analyze the text with the analyzer `options` describes, the default one
//! (`types::text_search::Analyzer`: Unicode words, lowercased, diacritics folded, no
//! stemming, no stop words) without it — the binder passes a full-text index's options when
//! the text is a column with such an index (`plan/bind/text_search.rs`) — and parse the query in
//! the full-text query language; a malformed query is 42601 with its position, NULL in any
//! argument is NULL. A query whose words all drop out (punctuation alone) matches nothing.

use super::{Param, ScalarFunction, check_args, int_arg, strict_nulls, text_arg};
use crate::types::text_search::{Analyzer, analyzer, matcher, query};
use crate::types::{DataType, TypeError, Value};

pub(super) static FUNCTIONS: &[ScalarFunction] = &[
    // Not strict: over a row of texts, a NULL text adds no words (`row_match`).
    function!("fts_match", match_type, fts_match, strict: false, volatile: false),
    function!("fts_highlight", highlight_type, fts_highlight),
    function!("fts_snippet", snippet_type, fts_snippet),
    function!("fts_terms", terms_type, fts_terms),
];

fn match_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Text, Param::Text], &[Param::Text])?;
    Ok(DataType::Boolean)
}

fn highlight_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(
        name,
        args,
        &[Param::Text, Param::Text, Param::Text, Param::Text],
        &[Param::Text],
    )?;
    Ok(DataType::Text(None))
}

fn snippet_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(
        name,
        args,
        &[Param::Text, Param::Text],
        &[
            Param::Text,
            Param::Text,
            Param::Text,
            Param::Integer,
            Param::Text,
        ],
    )?;
    Ok(DataType::Text(None))
}

/// The text's tokens and the parsed query (`None`: it matches nothing), by the analyzer
/// whose options are argument `options_at` when the call has it (the default otherwise).
fn analyze(
    name: &str,
    args: &[Value],
    options_at: usize,
) -> Result<(Vec<crate::types::text_search::Token>, Option<query::Query>), TypeError> {
    let analyzer = if args.len() > options_at {
        analyzer::cached(text_arg(name, args, options_at)?)?
    } else {
        std::rc::Rc::new(Analyzer::default())
    };
    let query = query::parse(text_arg(name, args, 1)?, &analyzer)?;
    let mut tokens = Vec::new();
    analyzer.analyze(text_arg(name, args, 0)?, 0, &mut tokens);
    Ok((tokens, query))
}

fn fts_match(args: &[Value]) -> Result<Value, TypeError> {
    let name = "fts_match";
    if args.len() > 3 {
        return row_match(args);
    }
    if strict_nulls(name, args, 2, 3)? {
        return Ok(Value::Null);
    }
    let (tokens, query) = analyze(name, args, 2)?;
    Ok(Value::Boolean(query.is_some_and(|query| {
        matcher::Document::new(&tokens).matches(&query)
    })))
}

/// `fts_match((text, ...), query)`, bound as `fts_match(text, ..., query, options)`
/// (`plan/bind/text_search.rs`): whether the document of the texts matches. NULL when the
/// query or the options are NULL, or every text is.
fn row_match(args: &[Value]) -> Result<Value, TypeError> {
    let name = "fts_match";
    let (texts, [query_text, options]) = args.split_at(args.len() - 2) else {
        return Err(TypeError::undefined_function(name, args));
    };
    let (Value::Text(query_text), Value::Text(options)) = (query_text, options) else {
        return Ok(Value::Null);
    };
    let mut document = Vec::with_capacity(texts.len());
    for text in texts {
        document.push(match text {
            Value::Text(text) => Some(text.as_str()),
            Value::Null => None,
            _ => return Err(TypeError::undefined_function(name, args)),
        });
    }
    let analyzer = analyzer::cached(options)?;
    let query = query::parse(query_text, &analyzer)?;
    let mut tokens = Vec::new();
    if !analyzer.analyze_texts(document, &mut tokens) {
        return Ok(Value::Null);
    }
    Ok(Value::Boolean(query.is_some_and(|query| {
        matcher::Document::new(&tokens).matches(&query)
    })))
}

fn fts_highlight(args: &[Value]) -> Result<Value, TypeError> {
    let name = "fts_highlight";
    if strict_nulls(name, args, 4, 5)? {
        return Ok(Value::Null);
    }
    let (tokens, query) = analyze(name, args, 4)?;
    let text = text_arg(name, args, 0)?;
    let spans = query.map_or_else(Vec::new, |query| {
        matcher::Document::new(&tokens).spans(&query)
    });
    Ok(Value::Text(matcher::highlight(
        text,
        &spans,
        text_arg(name, args, 2)?,
        text_arg(name, args, 3)?,
    )))
}

fn fts_snippet(args: &[Value]) -> Result<Value, TypeError> {
    let name = "fts_snippet";
    if strict_nulls(name, args, 2, 7)? {
        return Ok(Value::Null);
    }
    let (tokens, query) = analyze(name, args, 6)?;
    let text = text_arg(name, args, 0)?;
    let text_or = |i: usize, default: &'static str| -> Result<String, TypeError> {
        if args.len() > i {
            Ok(text_arg(name, args, i)?.to_owned())
        } else {
            Ok(default.to_owned())
        }
    };
    let (open, close, ellipsis) = (text_or(2, "<b>")?, text_or(3, "</b>")?, text_or(4, "...")?);
    let max_tokens = if args.len() > 5 {
        let n = int_arg(name, args, 5)?;
        usize::try_from(n)
            .ok()
            .filter(|n| (1..=1000).contains(n))
            .ok_or_else(|| {
                TypeError::InvalidArgument(format!(
                    "fts_snippet's token count must be between 1 and 1000, not {n}"
                ))
            })?
    } else {
        10
    };
    let spans = query.map_or_else(Vec::new, |query| {
        matcher::Document::new(&tokens).spans(&query)
    });
    Ok(Value::Text(matcher::snippet(
        text,
        &tokens,
        &spans,
        (&open, &close, &ellipsis),
        max_tokens,
    )))
}

fn terms_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Text], &[Param::Text])?;
    Ok(DataType::Text(None))
}

fn fts_terms(args: &[Value]) -> Result<Value, TypeError> {
    let name = "fts_terms";
    if strict_nulls(name, args, 1, 2)? {
        return Ok(Value::Null);
    }
    let analyzer = if args.len() > 1 {
        Analyzer::from_option_text(text_arg(name, args, 1)?)?
    } else {
        Analyzer::default()
    };
    let mut tokens = Vec::new();
    analyzer.analyze(text_arg(name, args, 0)?, 0, &mut tokens);
    let mut terms: std::collections::BTreeMap<&str, Vec<String>> =
        std::collections::BTreeMap::new();
    for token in &tokens {
        terms
            .entry(token.term.as_str())
            .or_default()
            .push((u64::from(token.position) + 1).to_string());
    }
    let shown: Vec<String> = terms
        .iter()
        .map(|(term, positions)| format!("'{}':{}", term.replace('\'', "''"), positions.join(",")))
        .collect();
    Ok(Value::Text(shown.join(" ")))
}
