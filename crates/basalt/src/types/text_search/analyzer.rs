//! The analyzer: text to the terms full-text search indexes and matches — words found by
//! Unicode word segmentation (UAX #29, the `unicode-segmentation` crate), lowercased, stop
//! words dropped, optionally stemmed by a Snowball stemmer (`rust-stemmers`), and folded to
//! their base letters (`Café` and `cafe` are one term). With `tokenizer = trigram` the terms
//! are instead every three consecutive characters, lowercased and folded (substring search).
//!
//! What it guarantees: the same text gives the same tokens, each with its position (the
//! index of the word among all the words of the text, stop words included, so a phrase with a
//! stop word in it still matches only where its words stand that far apart) and the byte
//! range of the word in the text (for highlighting). A query term goes through the same steps
//! ([`Analyzer::analyze`] on the term's text), so a document and a query agree on what a term
//! is. An analyzer is described by its options (`tokenizer`, `stemmer`, `stopwords`), which
//! an index will store with itself.
//!
//! Order of the steps, and why: lowercase first (stop lists and stemmers expect it), then the
//! stop list, then the stemmer (Snowball's French and German stemmers read accents, so they
//! see them), then diacritic folding (canonical decomposition with the combining marks
//! dropped).

use std::collections::HashSet;

use rust_stemmers::{Algorithm, Stemmer};
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;
use unicode_segmentation::UnicodeSegmentation;

use crate::types::TypeError;

/// The English stop list: the 33 words of Lucene's classic English analyzer.
pub const ENGLISH_STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
    "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
    "they", "this", "to", "was", "will", "with",
];

/// The stemmers, by the names the `stemmer` option takes.
const STEMMERS: &[(&str, Algorithm)] = &[
    ("arabic", Algorithm::Arabic),
    ("danish", Algorithm::Danish),
    ("dutch", Algorithm::Dutch),
    ("english", Algorithm::English),
    ("finnish", Algorithm::Finnish),
    ("french", Algorithm::French),
    ("german", Algorithm::German),
    ("greek", Algorithm::Greek),
    ("hungarian", Algorithm::Hungarian),
    ("italian", Algorithm::Italian),
    ("norwegian", Algorithm::Norwegian),
    ("portuguese", Algorithm::Portuguese),
    ("romanian", Algorithm::Romanian),
    ("russian", Algorithm::Russian),
    ("spanish", Algorithm::Spanish),
    ("swedish", Algorithm::Swedish),
    ("tamil", Algorithm::Tamil),
    ("turkish", Algorithm::Turkish),
];

/// How many positions lie between the columns of one document ([`Analyzer::analyze_texts`]):
/// more words than any phrase query has, so no phrase matches across two columns.
pub const COLUMN_GAP: u32 = 1 << 20;

/// One word of a text, as a term.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// The term: lowercased, stemmed if the analyzer stems, folded.
    pub term: String,
    /// The word's index among the text's words (stop words counted).
    pub position: u32,
    /// The word's byte range in the text.
    pub start: usize,
    pub end: usize,
}

/// How text becomes terms (see the module doc).
pub struct Analyzer {
    /// The `trigram` tokenizer: every three consecutive characters a term (see
    /// [`Analyzer::trigrams`]), instead of Unicode words.
    trigram: bool,
    stemmer: Option<(&'static str, Stemmer)>,
    stop_words: HashSet<String>,
    /// How the `stopwords` option was given (`none`, `english`, or the list), for display.
    stop_words_option: String,
}

impl std::fmt::Debug for Analyzer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Analyzer")
            .field("trigram", &self.trigram)
            .field("stemmer", &self.stemmer.as_ref().map(|(name, _)| *name))
            .field("stopwords", &self.stop_words_option)
            .finish()
    }
}

impl Default for Analyzer {
    /// Unicode words, lowercased and folded; no stemmer, no stop words: what the full-text
    /// functions use on a column without a full-text index.
    fn default() -> Self {
        Analyzer {
            trigram: false,
            stemmer: None,
            stop_words: HashSet::new(),
            stop_words_option: "none".into(),
        }
    }
}

impl Analyzer {
    /// The analyzer an index's options describe: `tokenizer` (`unicode`, or `trigram`, which
    /// takes no stemmer and no stop words),
    /// `stemmer` (`none` or a language: `english`, `french`, ... — [`stemmer_names`]),
    /// `stopwords` (`none`, `english`, or the words themselves, separated by commas). Names
    /// are case-insensitive; an unknown option or value is 22023.
    pub fn from_options<'a>(
        options: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Analyzer, TypeError> {
        let mut analyzer = Analyzer::default();
        for (name, value) in options {
            let value_lower = value.trim().to_lowercase();
            match name.to_lowercase().as_str() {
                "tokenizer" => {
                    analyzer.trigram = match value_lower.as_str() {
                        "unicode" => false,
                        "trigram" => true,
                        _ => {
                            return Err(TypeError::InvalidArgument(format!(
                                "unknown full-text tokenizer \"{value}\" (unicode or trigram)"
                            )));
                        }
                    };
                }
                "stemmer" => {
                    analyzer.stemmer = if value_lower == "none" {
                        None
                    } else {
                        let (name, algorithm) = STEMMERS
                            .iter()
                            .find(|(name, _)| *name == value_lower)
                            .ok_or_else(|| {
                                TypeError::InvalidArgument(format!(
                                    "unknown stemmer \"{value}\" (none, or one of: {})",
                                    stemmer_names().collect::<Vec<_>>().join(", ")
                                ))
                            })?;
                        Some((*name, Stemmer::create(*algorithm)))
                    };
                }
                "stopwords" => {
                    analyzer.stop_words = match value_lower.as_str() {
                        "none" => HashSet::new(),
                        "english" => ENGLISH_STOP_WORDS.iter().map(|w| (*w).to_owned()).collect(),
                        list => list
                            .split(',')
                            .map(str::trim)
                            .filter(|word| !word.is_empty())
                            .map(str::to_owned)
                            .collect(),
                    };
                    analyzer.stop_words_option = value_lower;
                }
                other => {
                    return Err(TypeError::InvalidArgument(format!(
                        "unknown full-text option \"{other}\" (tokenizer, stemmer, stopwords)"
                    )));
                }
            }
        }
        if analyzer.trigram && (analyzer.stemmer.is_some() || !analyzer.stop_words.is_empty()) {
            return Err(TypeError::InvalidArgument(
                "the trigram tokenizer takes no stemmer and no stop words".into(),
            ));
        }
        Ok(analyzer)
    }

    /// Whether this analyzer makes trigrams (`tokenizer = trigram`) rather than words.
    pub fn is_trigram(&self) -> bool {
        self.trigram
    }

    /// The analyzer an options string describes, as `fts_terms` takes it: `name = value`
    /// pairs separated by commas, a value in single quotes when it holds commas itself
    /// (`stemmer = english, stopwords = 'a, the'`). An empty string is the default analyzer;
    /// a pair without `=` or an unterminated quote is 22023.
    pub fn from_option_text(text: &str) -> Result<Analyzer, TypeError> {
        let malformed = || {
            TypeError::InvalidArgument(format!(
                "malformed full-text options \"{text}\" (expected name = value, ...)"
            ))
        };
        let mut pairs: Vec<(String, String)> = Vec::new();
        let mut rest = text.trim();
        while !rest.is_empty() {
            let (name, after) = rest.split_once('=').ok_or_else(malformed)?;
            let after = after.trim_start();
            let (value, after) = if let Some(quoted) = after.strip_prefix('\'') {
                let (value, after) = quoted.split_once('\'').ok_or_else(malformed)?;
                (value.to_owned(), after.trim_start())
            } else {
                let end = after.find(',').unwrap_or(after.len());
                (after[..end].trim().to_owned(), &after[end..])
            };
            pairs.push((name.trim().to_owned(), value));
            rest = match after.strip_prefix(',') {
                Some(next) => next.trim_start(),
                None if after.is_empty() => "",
                None => return Err(malformed()),
            };
        }
        Analyzer::from_options(pairs.iter().map(|(n, v)| (n.as_str(), v.as_str())))
    }

    /// Appends the tokens of `text` to `out`, positions counted from `first_position`.
    /// Returns the position after the last word (stop words counted), so that several texts
    /// (the columns of one document) can be numbered as one.
    pub fn analyze(&self, text: &str, first_position: u32, out: &mut Vec<Token>) -> u32 {
        if self.trigram {
            return trigrams(text, first_position, &mut |term, position, range| {
                out.push(Token {
                    term: term.to_owned(),
                    position,
                    start: range.start,
                    end: range.end,
                });
            });
        }
        let mut position = first_position;
        let mut lower = String::new();
        for (start, word) in text.unicode_word_indices() {
            if let Some(term) = self.with_term(word, &mut lower, str::to_owned) {
                out.push(Token {
                    term,
                    position,
                    start,
                    end: start + word.len(),
                });
            }
            position = position.saturating_add(1);
        }
        position
    }

    /// Appends the tokens of a document of several texts (the columns of a multi-column
    /// index, in any order; `None` for NULL, which adds nothing). Each text after the first
    /// is numbered from [`COLUMN_GAP`] past the position after the one before, so a phrase
    /// never spans two of them: a phrase's terms stand at most its number of words apart.
    /// Returns whether any text was there (a document of NULLs alone is no document).
    pub fn analyze_texts<'t>(
        &self,
        texts: impl IntoIterator<Item = Option<&'t str>>,
        out: &mut Vec<Token>,
    ) -> bool {
        let mut next: Option<u32> = None;
        for text in texts.into_iter().flatten() {
            let first = next.map_or(0, |after| after.saturating_add(COLUMN_GAP));
            next = Some(self.analyze(text, first, out));
        }
        next.is_some()
    }

    /// The terms [`Analyzer::analyze_texts`] would make of the texts, each given to `sink`
    /// with its position instead of kept as a [`Token`]: no allocation per word for ASCII
    /// text (the bulk build of an index, where a `String` per token was a quarter of the
    /// work). Returns whether any text was there.
    pub fn each_term_of_texts<'t>(
        &self,
        texts: impl IntoIterator<Item = Option<&'t str>>,
        sink: &mut dyn FnMut(&str, u32),
    ) -> bool {
        let mut next: Option<u32> = None;
        let mut lower = String::new();
        for text in texts.into_iter().flatten() {
            let mut position = next.map_or(0, |after| after.saturating_add(COLUMN_GAP));
            if self.trigram {
                next = Some(trigrams(text, position, &mut |term, position, _| {
                    sink(term, position);
                }));
                continue;
            }
            for word in text.unicode_words() {
                self.with_term(word, &mut lower, |term| sink(term, position));
                position = position.saturating_add(1);
            }
            next = Some(position);
        }
        next.is_some()
    }

    /// `f` of the term one word becomes (`None` for a stop word, without calling `f`):
    /// lowercased into `lower`, checked against the stop words, stemmed, folded. An ASCII
    /// word allocates nothing (its lowercase is ASCII, which folding leaves alone).
    fn with_term<R>(&self, word: &str, lower: &mut String, f: impl FnOnce(&str) -> R) -> Option<R> {
        lower.clear();
        if word.is_ascii() {
            lower.push_str(word);
            lower.make_ascii_lowercase();
        } else {
            lower.push_str(&word.to_lowercase());
        }
        if !self.stop_words.is_empty() && self.stop_words.contains(lower.as_str()) {
            return None;
        }
        Some(match &self.stemmer {
            Some((_, stemmer)) => {
                let stemmed = stemmer.stem(lower);
                if stemmed.is_ascii() {
                    f(&stemmed)
                } else {
                    f(&fold(stemmed.into_owned()))
                }
            }
            None if lower.is_ascii() => f(lower),
            None => f(&fold(lower.clone())),
        })
    }

    /// The term a prefix (`word*`) matches the beginnings of: lowercased and folded, never
    /// stemmed (a stemmer would cut a prefix as if it were a word).
    pub fn prefix(&self, word: &str) -> String {
        fold(word.to_lowercase())
    }
}

/// The trigram tokenizer: the text's characters lowercased and folded as words are (each
/// character on its own, keeping the byte range of the character it came from), then every
/// run of three consecutive ones a term, at consecutive positions from `first_position` —
/// spaces and punctuation included, so a query's text matches where it stands in the text
/// as a substring (a word of the query becomes the phrase of its trigrams). A text of fewer
/// than three characters has no terms. Gives each term, its position and its byte range to
/// `sink`; returns the position after the last.
fn trigrams(
    text: &str,
    first_position: u32,
    sink: &mut dyn FnMut(&str, u32, std::ops::Range<usize>),
) -> u32 {
    // The folded characters, each with the byte range of the character it came from.
    let mut folded: Vec<(char, std::ops::Range<usize>)> = Vec::with_capacity(text.len());
    for (start, c) in text.char_indices() {
        let range = start..start + c.len_utf8();
        if c.is_ascii() {
            folded.push((c.to_ascii_lowercase(), range));
            continue;
        }
        for lower in c.to_lowercase() {
            for base in std::iter::once(lower)
                .nfd()
                .filter(|c| !is_combining_mark(*c))
            {
                folded.push((base, range.clone()));
            }
        }
    }
    let mut position = first_position;
    let mut term = String::with_capacity(12);
    for window in folded.windows(3) {
        term.clear();
        term.extend(window.iter().map(|(c, _)| *c));
        let (Some(first), Some(last)) = (window.first(), window.last()) else {
            continue;
        };
        sink(&term, position, first.1.start..last.1.end);
        position = position.saturating_add(1);
    }
    position
}

thread_local! {
    /// Analyzers by their options text: building one (a stop-word set, a stemmer) costs
    /// more than analyzing a short text, and every row a full-text function or index reads
    /// or writes needs one.
    static ANALYZERS: std::cell::RefCell<std::collections::HashMap<String, std::rc::Rc<Analyzer>>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// The analyzer an options text describes ([`Analyzer::from_option_text`]), built once per
/// thread and options text.
pub fn cached(options: &str) -> Result<std::rc::Rc<Analyzer>, TypeError> {
    if let Some(analyzer) = ANALYZERS.with(|cache| cache.borrow().get(options).cloned()) {
        return Ok(analyzer);
    }
    let analyzer = std::rc::Rc::new(Analyzer::from_option_text(options)?);
    ANALYZERS.with(|cache| {
        cache
            .borrow_mut()
            .insert(options.to_owned(), std::rc::Rc::clone(&analyzer))
    });
    Ok(analyzer)
}

/// The names the `stemmer` option takes, besides `none`.
pub fn stemmer_names() -> impl Iterator<Item = &'static str> {
    STEMMERS.iter().map(|(name, _)| *name)
}

/// `text` without its diacritics: canonical decomposition with the combining marks dropped
/// (`é` → `e`, `İ` lowercased to `i̇` → `i`). Letters that do not decompose (`ß`, `ø`, `æ`)
/// stay as they are. Text with nothing to fold is returned as it is.
/// `text` is returned as it is when it has nothing to fold (every ASCII word, the common
/// case), without a copy.
pub fn fold(text: String) -> String {
    if text.is_ascii() {
        return text;
    }
    text.nfd().filter(|c| !is_combining_mark(*c)).collect()
}
