//! Matching a parsed [`Query`] against one analyzed document, and marking where it matched:
//! what `fts_match`, `fts_highlight` and `fts_snippet` compute for a row.
//!
//! What it guarantees: [`Document::matches`] is the query's boolean meaning over the
//! document's terms (a phrase needs its terms at exactly the query's distances; a prefix
//! matches any term beginning with it; NOT is the complement). [`Document::spans`] are the
//! byte ranges of the document text that the query's positive parts (those not under a NOT)
//! found — a term or prefix its token, a phrase from its first token to its last — sorted
//! and with overlapping ranges merged, so marking them never nests.

use super::analyzer::Token;
use super::query::Query;

/// One document's tokens.
///
/// Lookups scan the tokens: a query has few items, and one pass over a document's tokens
/// per item costs less than sorting or hashing them (which was half of a scan's time), needs
/// no allocation, and cannot be slowed down by words chosen to collide.
#[derive(Debug)]
pub struct Document<'t> {
    /// In position order, as the analyzer produced them.
    tokens: &'t [Token],
}

impl<'t> Document<'t> {
    /// The document of `tokens` (in position order, as the analyzer produced them).
    pub fn new(tokens: &'t [Token]) -> Document<'t> {
        Document { tokens }
    }

    /// The indexes of the tokens of `term`, in position order.
    fn of_term<'a>(&'a self, term: &'a str) -> impl Iterator<Item = usize> + 'a {
        self.tokens
            .iter()
            .enumerate()
            .filter(move |(_, token)| token.term == term)
            .map(|(index, _)| index)
    }

    /// The indexes of the tokens whose term begins with `prefix`, in position order.
    fn with_prefix<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = usize> + 'a {
        self.tokens
            .iter()
            .enumerate()
            .filter(move |(_, token)| token.term.starts_with(prefix))
            .map(|(index, _)| index)
    }

    /// The index of the token at `position`, if any (tokens are in position order).
    fn at_position(&self, position: u32) -> Option<usize> {
        self.tokens
            .binary_search_by_key(&position, |token| token.position)
            .ok()
    }

    /// The document's length: its tokens (stop words are not tokens).
    pub fn length(&self) -> usize {
        self.tokens.len()
    }

    /// How often an item occurs: a term's tokens, the tokens of every term a prefix begins,
    /// a phrase's occurrences; 0 for an AND, OR or NOT (not items).
    pub fn occurrences(&self, item: &Query) -> usize {
        match item {
            Query::Term(term) => self.of_term(term).count(),
            Query::Prefix(prefix) => self.with_prefix(prefix).count(),
            Query::Phrase(terms) => self.phrase_starts(terms).len(),
            Query::And(_) | Query::Or(_) | Query::Not(_) => 0,
        }
    }

    /// Whether the document matches `query`.
    pub fn matches(&self, query: &Query) -> bool {
        match query {
            Query::Term(term) => self.of_term(term).next().is_some(),
            Query::Prefix(prefix) => self.with_prefix(prefix).next().is_some(),
            Query::Phrase(terms) => !self.phrase_starts(terms).is_empty(),
            Query::And(operands) => operands.iter().all(|operand| self.matches(operand)),
            Query::Or(operands) => operands.iter().any(|operand| self.matches(operand)),
            Query::Not(operand) => !self.matches(operand),
        }
    }

    /// The indexes of the tokens where `terms` (a phrase) begins.
    fn phrase_starts(&self, terms: &[(String, u32)]) -> Vec<usize> {
        let Some(((first, _), rest)) = terms.split_first() else {
            return Vec::new();
        };
        self.of_term(first)
            .filter(|start| {
                let base = self.tokens[*start].position;
                rest.iter().all(|(term, offset)| {
                    base.checked_add(*offset)
                        .and_then(|position| self.at_position(position))
                        .is_some_and(|index| self.tokens[index].term == *term)
                })
            })
            .collect()
    }

    /// The byte ranges the query's positive parts found, sorted, overlaps merged.
    pub fn spans(&self, query: &Query) -> Vec<(usize, usize)> {
        let mut spans = Vec::new();
        self.collect_spans(query, &mut spans);
        spans.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
        for (start, end) in spans {
            match merged.last_mut() {
                Some(last) if start < last.1 => last.1 = last.1.max(end),
                _ => merged.push((start, end)),
            }
        }
        merged
    }

    fn collect_spans(&self, query: &Query, out: &mut Vec<(usize, usize)>) {
        let token_span = |index: usize| (self.tokens[index].start, self.tokens[index].end);
        match query {
            Query::Term(term) => out.extend(self.of_term(term).map(token_span)),
            Query::Prefix(prefix) => out.extend(self.with_prefix(prefix).map(token_span)),
            Query::Phrase(terms) => {
                let last_offset = terms.last().map_or(0, |(_, offset)| *offset);
                for start in self.phrase_starts(terms) {
                    let first = &self.tokens[start];
                    let end = first
                        .position
                        .checked_add(last_offset)
                        .and_then(|position| self.at_position(position))
                        .map_or(first.end, |index| self.tokens[index].end);
                    out.push((first.start, end));
                }
            }
            Query::And(operands) | Query::Or(operands) => {
                for operand in operands {
                    self.collect_spans(operand, out);
                }
            }
            // What a NOT excludes is not in a matching document.
            Query::Not(_) => {}
        }
    }
}

/// `text` with each span wrapped in `open` … `close`.
pub fn highlight(text: &str, spans: &[(usize, usize)], open: &str, close: &str) -> String {
    let mut out = String::with_capacity(text.len() + spans.len() * (open.len() + close.len()));
    let mut at = 0;
    for (start, end) in spans {
        out.push_str(&text[at..*start]);
        out.push_str(open);
        out.push_str(&text[*start..*end]);
        out.push_str(close);
        at = *end;
    }
    out.push_str(&text[at..]);
    out
}

/// The part of `text` around the best matches: the window of `max_tokens` consecutive tokens
/// holding the most spans (the earliest such window on a tie; the text's first tokens when
/// nothing matched), from its first token to its last, highlighted, with `ellipsis` where
/// the window cuts the text short.
pub fn snippet(
    text: &str,
    tokens: &[Token],
    spans: &[(usize, usize)],
    marks: (&str, &str, &str),
    max_tokens: usize,
) -> String {
    let (open, close, ellipsis) = marks;
    if tokens.is_empty() || max_tokens == 0 {
        return String::new();
    }
    let width = max_tokens.min(tokens.len());
    let in_window = |first: usize| {
        let (from, to) = (tokens[first].start, tokens[first + width - 1].end);
        spans
            .iter()
            .filter(|(start, _)| *start >= from && *start < to)
            .count()
    };
    let mut best = (0, in_window(0));
    for first in 1..=tokens.len() - width {
        let count = in_window(first);
        if count > best.1 {
            best = (first, count);
        }
    }
    let (from, to) = (tokens[best.0].start, tokens[best.0 + width - 1].end);
    // A span that starts in the window but runs past it is cut at the window's end.
    let inside: Vec<(usize, usize)> = spans
        .iter()
        .filter(|(start, _)| *start >= from && *start < to)
        .map(|(start, end)| (start - from, (*end).min(to) - from))
        .collect();
    let mut out = String::new();
    if best.0 > 0 {
        out.push_str(ellipsis);
    }
    out.push_str(&highlight(&text[from..to], &inside, open, close));
    if best.0 + width < tokens.len() {
        out.push_str(ellipsis);
    }
    out
}
