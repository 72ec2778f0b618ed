//! Matching a parsed [`Query`] against one analyzed document, and marking where it matched:
//! what `fts_match`, `fts_highlight` and `fts_snippet` compute for a row.
//!
//! What it guarantees: [`Document::matches`] is the query's boolean meaning over the
//! document's terms (a phrase needs its terms at exactly the query's distances; a prefix
//! matches any term beginning with it; NOT is the complement). [`Document::spans`] are the
//! byte ranges of the document text that the query's positive parts (those not under a NOT)
//! found — a term or prefix its token, a phrase from its first token to its last — sorted
//! and with overlapping ranges merged, so marking them never nests.

use std::collections::HashMap;

use super::analyzer::Token;
use super::query::Query;

/// One document's tokens, indexed by term.
#[derive(Debug)]
pub struct Document<'t> {
    tokens: &'t [Token],
    /// Each term's indexes into `tokens`, in position order.
    by_term: HashMap<&'t str, Vec<usize>>,
    /// Each position's index into `tokens`.
    by_position: HashMap<u32, usize>,
}

impl<'t> Document<'t> {
    /// Indexes `tokens` (in position order, as the analyzer produced them).
    pub fn new(tokens: &'t [Token]) -> Document<'t> {
        let mut by_term: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut by_position = HashMap::with_capacity(tokens.len());
        for (index, token) in tokens.iter().enumerate() {
            by_term.entry(token.term.as_str()).or_default().push(index);
            by_position.insert(token.position, index);
        }
        Document {
            tokens,
            by_term,
            by_position,
        }
    }

    /// The document's length: its tokens (stop words are not tokens).
    pub fn length(&self) -> usize {
        self.tokens.len()
    }

    /// How often an item occurs: a term's tokens, the tokens of every term a prefix begins,
    /// a phrase's occurrences; 0 for an AND, OR or NOT (not items).
    pub fn occurrences(&self, item: &Query) -> usize {
        match item {
            Query::Term(term) => self.by_term.get(term.as_str()).map_or(0, Vec::len),
            Query::Prefix(prefix) => self
                .by_term
                .iter()
                .filter(|(term, _)| term.starts_with(prefix.as_str()))
                .map(|(_, indexes)| indexes.len())
                .sum(),
            Query::Phrase(terms) => self.phrase_starts(terms).len(),
            Query::And(_) | Query::Or(_) | Query::Not(_) => 0,
        }
    }

    /// Whether the document matches `query`.
    pub fn matches(&self, query: &Query) -> bool {
        match query {
            Query::Term(term) => self.by_term.contains_key(term.as_str()),
            Query::Prefix(prefix) => self.by_term.keys().any(|term| term.starts_with(prefix)),
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
        let Some(starts) = self.by_term.get(first.as_str()) else {
            return Vec::new();
        };
        starts
            .iter()
            .copied()
            .filter(|start| {
                let base = self.tokens[*start].position;
                rest.iter().all(|(term, offset)| {
                    base.checked_add(*offset)
                        .and_then(|position| self.by_position.get(&position))
                        .is_some_and(|index| self.tokens[*index].term == *term)
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
            Query::Term(term) => {
                if let Some(indexes) = self.by_term.get(term.as_str()) {
                    out.extend(indexes.iter().map(|index| token_span(*index)));
                }
            }
            Query::Prefix(prefix) => {
                for (term, indexes) in &self.by_term {
                    if term.starts_with(prefix.as_str()) {
                        out.extend(indexes.iter().map(|index| token_span(*index)));
                    }
                }
            }
            Query::Phrase(terms) => {
                let last_offset = terms.last().map_or(0, |(_, offset)| *offset);
                for start in self.phrase_starts(terms) {
                    let first = &self.tokens[start];
                    let end = first
                        .position
                        .checked_add(last_offset)
                        .and_then(|position| self.by_position.get(&position))
                        .map_or(first.end, |index| self.tokens[*index].end);
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
