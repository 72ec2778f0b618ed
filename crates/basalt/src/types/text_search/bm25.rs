//! BM25 ranking: how well one document matches a query, given statistics of the corpus it
//! belongs to (the documents of one column of one table).
//!
//! The score is Okapi BM25 with k1 = 1.2 and b = 0.75, summed over the query's positive
//! items — its terms, prefixes and phrases not under a NOT — each scored as a unit:
//!
//! ```text
//! score(D, Q) = Σ idf(q) · tf(q, D) · (k1 + 1) / (tf(q, D) + k1 · (1 − b + b · |D| / avgdl))
//! idf(q)      = ln(1 + (N − df(q) + 0.5) / (df(q) + 0.5))
//! ```
//!
//! where tf(q, D) is how often the item occurs in D (a prefix: the occurrences of every term
//! it begins; a phrase: its occurrences), |D| the document's length in tokens (stop words
//! not counted), N the number of documents (non-NULL values), avgdl their mean length, and
//! df(q) the number of documents in which q occurs. The IDF is Lucene's, which stays positive
//! however common a term is (the classic Robertson–Spärck Jones form goes negative for a term
//! in more than half the documents). A document that does not match the query as a whole
//! scores 0.
//!
//! What it guarantees: the same query, document and statistics give the same score, whether
//! the statistics come from a scan of the table or from a full-text index.

use super::matcher::Document;
use super::query::Query;

/// The SQL function that ranks by BM25.
pub const FUNCTION: &str = "bm25_score";

/// BM25's term-frequency saturation.
pub const K1: f64 = 1.2;
/// BM25's length normalization.
pub const B: f64 = 0.75;

/// A corpus's statistics for one query.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CorpusStats {
    /// Documents (non-NULL values).
    pub documents: u64,
    /// Their total length in tokens.
    pub total_length: u64,
    /// For each of the query's items ([`items`]), the documents it occurs in.
    pub item_documents: Vec<u64>,
}

impl CorpusStats {
    /// No documents yet, for a query with these items.
    pub fn new(items: &[&Query]) -> CorpusStats {
        CorpusStats {
            item_documents: vec![0; items.len()],
            ..CorpusStats::default()
        }
    }

    /// Counts one more document: its length and which items (those given to
    /// [`CorpusStats::new`]) occur in it.
    pub fn add(&mut self, document: &Document<'_>, items: &[&Query]) {
        self.documents += 1;
        self.total_length += document.length() as u64;
        for (count, item) in self.item_documents.iter_mut().zip(items) {
            if document.occurrences(item) > 0 {
                *count += 1;
            }
        }
    }
}

/// The query's positive items (terms, prefixes, phrases not under a NOT), in query order.
pub fn items(query: &Query) -> Vec<&Query> {
    let mut out = Vec::new();
    collect(query, &mut out);
    out
}

fn collect<'q>(query: &'q Query, out: &mut Vec<&'q Query>) {
    match query {
        Query::Term(_) | Query::Prefix(_) | Query::Phrase(_) => out.push(query),
        Query::And(operands) | Query::Or(operands) => {
            for operand in operands {
                collect(operand, out);
            }
        }
        Query::Not(_) => {}
    }
}

/// The inverse document frequency of an item in `df` of `documents` documents.
pub fn idf(documents: u64, df: u64) -> f64 {
    let (n, df) = (documents as f64, df as f64);
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
}

/// The length normalization of a document of `length` tokens: `k1 · (1 − b + b · |D| /
/// avgdl)`, or `k1` when every document is empty.
pub fn length_norm(length: usize, stats: &CorpusStats) -> f64 {
    let average = stats.total_length as f64 / stats.documents as f64;
    if average > 0.0 {
        K1 * (1.0 - B + B * length as f64 / average)
    } else {
        K1
    }
}

/// One item's part of a score: `idf · tf · (k1 + 1) / (tf + norm)`, 0 when it does not
/// occur. The index's top-k search (`exec::index_access::fts`) computes scores with this and
/// [`length_norm`], summed in item order as [`score`] sums them, so both give the same bits.
pub fn item_score(idf: f64, tf: f64, norm: f64) -> f64 {
    if tf == 0.0 {
        0.0
    } else {
        idf * tf * (K1 + 1.0) / (tf + norm)
    }
}

/// `document`'s score for `query` (whose items are `items`) in a corpus with `stats`.
pub fn score(query: &Query, items: &[&Query], document: &Document<'_>, stats: &CorpusStats) -> f64 {
    if stats.documents == 0 || !document.matches(query) {
        return 0.0;
    }
    let norm = length_norm(document.length(), stats);
    items
        .iter()
        .zip(&stats.item_documents)
        .map(|(item, df)| {
            item_score(
                idf(stats.documents, *df),
                document.occurrences(item) as f64,
                norm,
            )
        })
        .sum()
}
