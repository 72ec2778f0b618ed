#![allow(clippy::unwrap_used, clippy::panic, reason = "tests")]

use super::analyzer::{Analyzer, Token, fold};
use super::matcher::{Document, highlight, snippet};
use super::query::{Query, parse};
use crate::sqlstate;

fn terms(analyzer: &Analyzer, text: &str) -> Vec<(String, u32)> {
    let mut tokens = Vec::new();
    analyzer.analyze(text, 0, &mut tokens);
    tokens.into_iter().map(|t| (t.term, t.position)).collect()
}

fn english() -> Analyzer {
    Analyzer::from_options([("stemmer", "english"), ("stopwords", "english")]).unwrap()
}

#[test]
fn words_are_lowercased_folded_and_located() {
    let text = "Café au LAIT, s'il vous plaît: naïve résumé!";
    let mut tokens = Vec::new();
    let next = Analyzer::default().analyze(text, 0, &mut tokens);
    let words: Vec<&str> = tokens.iter().map(|t| t.term.as_str()).collect();
    assert_eq!(
        words,
        [
            "cafe", "au", "lait", "s'il", "vous", "plait", "naive", "resume"
        ]
    );
    assert_eq!(next, 8);
    // Byte ranges point at the words as written.
    for token in &tokens {
        assert_eq!(
            fold(text[token.start..token.end].to_lowercase()),
            token.term
        );
    }
    assert_eq!(&text[tokens[2].start..tokens[2].end], "LAIT");
}

#[test]
fn scripts_other_than_latin() {
    let default = Analyzer::default();
    // German: ß does not decompose and stays; umlauts fold.
    assert_eq!(
        terms(&default, "Straße GRÖSSE Größe"),
        [
            ("straße".into(), 0),
            ("grosse".into(), 1),
            ("große".into(), 2)
        ]
    );
    // Turkish dotted capital I lowercases to i + a combining dot, which folding drops.
    assert_eq!(terms(&default, "İstanbul"), [("istanbul".into(), 0)]);
    // Cyrillic and Greek lowercase; Greek accents fold.
    assert_eq!(
        terms(&default, "Москва Ἀθῆναι"),
        [("москва".into(), 0), ("αθηναι".into(), 1)]
    );
    // Han characters are one word each under UAX #29.
    assert_eq!(
        terms(&default, "東京 tower"),
        [("東".into(), 0), ("京".into(), 1), ("tower".into(), 2)]
    );
    // Numbers are words; punctuation is not.
    assert_eq!(
        terms(&default, "v2.0 -- 3,5 ... 42"),
        [("v2.0".into(), 0), ("3,5".into(), 1), ("42".into(), 2)]
    );
}

#[test]
fn stemmers_and_stop_words() {
    assert_eq!(
        terms(&english(), "The running foxes jumped over the lazy dogs"),
        [
            ("run".into(), 1),
            ("fox".into(), 2),
            ("jump".into(), 3),
            ("over".into(), 4),
            ("lazi".into(), 6),
            ("dog".into(), 7),
        ]
    );
    let french = Analyzer::from_options([("stemmer", "French")]).unwrap();
    // The stemmer sees the accents (it needs them), folding comes after.
    assert_eq!(terms(&french, "Continuellement"), [("continuel".into(), 0)]);
    let russian = Analyzer::from_options([("stemmer", "russian")]).unwrap();
    assert_eq!(
        terms(&russian, "книги книга"),
        [("книг".into(), 0), ("книг".into(), 1)]
    );
    let listed = Analyzer::from_option_text("stopwords = 'le, la , les'").unwrap();
    assert_eq!(
        terms(&listed, "le chat et la souris"),
        [("chat".into(), 1), ("et".into(), 2), ("souris".into(), 4)]
    );
}

#[test]
fn options_are_checked() {
    for (text, wanted) in [
        ("stemmer = klingon", "unknown stemmer \"klingon\""),
        ("tokenizer = porter", "unknown full-text tokenizer"),
        (
            "tokenizer = trigram, stemmer = english",
            "the trigram tokenizer takes no stemmer",
        ),
        (
            "stopwords = english, tokenizer = trigram",
            "the trigram tokenizer takes no stemmer",
        ),
        ("colour = blue", "unknown full-text option \"colour\""),
        ("stemmer english", "malformed full-text options"),
        ("stopwords = 'a, b", "malformed full-text options"),
        ("stemmer = english stopwords = english", "unknown stemmer"),
    ] {
        let error = Analyzer::from_option_text(text).unwrap_err();
        assert_eq!(
            error.sqlstate(),
            sqlstate::INVALID_PARAMETER_VALUE,
            "{text}"
        );
        assert!(error.to_string().contains(wanted), "{text}: {error}");
    }
    Analyzer::from_option_text("").unwrap();
    Analyzer::from_option_text(" tokenizer = unicode , stemmer = none, stopwords = none ").unwrap();
    Analyzer::from_option_text("tokenizer = TRIGRAM, stemmer = none").unwrap();
}

#[test]
fn trigrams_are_every_three_folded_characters_with_their_byte_ranges() {
    let trigram = Analyzer::from_option_text("tokenizer = trigram").unwrap();
    let text = "Café au";
    let mut tokens = Vec::new();
    assert_eq!(trigram.analyze(text, 10, &mut tokens), 15);
    let got: Vec<(&str, u32, &str)> = tokens
        .iter()
        .map(|t| (t.term.as_str(), t.position, &text[t.start..t.end]))
        .collect();
    assert_eq!(
        got,
        [
            ("caf", 10, "Caf"),
            ("afe", 11, "afé"),
            ("fe ", 12, "fé "),
            ("e a", 13, "é a"),
            (" au", 14, " au"),
        ]
    );
    // Fewer than three characters: no terms, and the position does not move.
    tokens.clear();
    assert_eq!(trigram.analyze("ab", 3, &mut tokens), 3);
    assert!(tokens.is_empty());
    // A decomposed accent folds away as a precomposed one does.
    let mut decomposed = Vec::new();
    trigram.analyze("cafe\u{301}s", 0, &mut decomposed);
    let mut composed = Vec::new();
    trigram.analyze("CAFÉS", 0, &mut composed);
    let terms = |tokens: &[Token]| tokens.iter().map(|t| t.term.clone()).collect::<Vec<_>>();
    assert_eq!(terms(&decomposed), ["caf", "afe", "fes"]);
    assert_eq!(terms(&decomposed), terms(&composed));
    // The sink form gives the same terms and positions, columns COLUMN_GAP apart.
    let mut sunk = Vec::new();
    assert!(trigram.each_term_of_texts(
        [Some("abcd"), None, Some("xyz")],
        &mut |term, position| {
            sunk.push((term.to_owned(), position));
        }
    ));
    assert_eq!(
        sunk,
        [
            ("abc".to_owned(), 0),
            ("bcd".to_owned(), 1),
            ("xyz".to_owned(), 2 + super::analyzer::COLUMN_GAP),
        ]
    );
}

#[test]
fn a_trigram_query_word_is_the_phrase_of_its_trigrams() {
    let trigram = Analyzer::from_option_text("tokenizer = trigram").unwrap();
    let parse = |text: &str| parse(text, &trigram).unwrap();
    assert_eq!(parse("abc"), Some(Query::Term("abc".into())));
    assert_eq!(parse("abc*"), Some(Query::Term("abc".into())));
    assert_eq!(
        parse("Lait"),
        Some(Query::Phrase(vec![("lai".into(), 0), ("ait".into(), 1)]))
    );
    // A quoted phrase keeps its space: the trigrams across it.
    assert_eq!(parse("\"u l\""), Some(Query::Term("u l".into())));
    // Too short to make a trigram: left out, as a stop word is.
    assert_eq!(parse("ab"), None);
    assert_eq!(parse("ab lait"), parse("lait"));
}

fn q(text: &str) -> Option<Query> {
    parse(text, &Analyzer::default()).unwrap()
}

fn term(t: &str) -> Query {
    Query::Term(t.into())
}

#[test]
fn the_query_language() {
    assert_eq!(q("cat"), Some(term("cat")));
    // Juxtaposition is AND, which binds tighter than OR; NOT is unary.
    assert_eq!(
        q("a b OR c NOT d"),
        Some(Query::Or(vec![
            Query::And(vec![term("a"), term("b")]),
            Query::And(vec![term("c"), Query::Not(Box::new(term("d")))]),
        ]))
    );
    assert_eq!(
        q("a AND (b OR c)"),
        Some(Query::And(vec![
            term("a"),
            Query::Or(vec![term("b"), term("c")])
        ]))
    );
    // Operators only in capitals.
    assert_eq!(
        q("cats or dogs"),
        Some(Query::And(vec![term("cats"), term("or"), term("dogs")]))
    );
    assert_eq!(q("Data*"), Some(Query::Prefix("data".into())));
    assert_eq!(
        q("\"New  York\" e-mail"),
        Some(Query::And(vec![
            Query::Phrase(vec![("new".into(), 0), ("york".into(), 1)]),
            Query::Phrase(vec![("e".into(), 0), ("mail".into(), 1)]),
        ]))
    );
    // A stop word inside a phrase keeps its place; alone it drops out.
    let english = english();
    assert_eq!(
        parse("\"state of the art\"", &english).unwrap(),
        Some(Query::Phrase(vec![("state".into(), 0), ("art".into(), 3)]))
    );
    assert_eq!(parse("the cats", &english).unwrap(), Some(term("cat")));
    assert_eq!(parse("the OR a", &english).unwrap(), None);
    assert_eq!(q(""), None);
    assert_eq!(q("  ... !!"), None);
}

#[test]
fn malformed_queries_name_the_position() {
    for (text, wanted) in [
        ("\"open phrase", "at character 1: unterminated phrase"),
        ("cat OR", "at character 7: expected a word"),
        ("(cat dog", "at character 9: expected \")\""),
        ("()", "at character 1: empty parentheses"),
        ("cat ) dog", "at character 5: unexpected \")\""),
        ("*cat", "at character 1: \"*\" must follow a word"),
        (
            "AND cat",
            "at character 1: expected a word, a phrase or \"(\", found AND",
        ),
        (
            "cat AND OR dog",
            "at character 9: expected a word, a phrase or \"(\", found OR",
        ),
        ("\"a b\"*", "at character 6: \"*\" must follow a word"),
        ("e-ma*", "at character 1: a prefix must be a single word"),
        ("café NOT", "at character 9: expected a word"),
    ] {
        let error = parse(text, &Analyzer::default()).unwrap_err();
        assert_eq!(error.sqlstate(), sqlstate::SYNTAX_ERROR, "{text}");
        assert!(error.to_string().contains(wanted), "{text}: {error}");
    }
}

fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    english().analyze(text, 0, &mut out);
    out
}

#[test]
fn matching() {
    let text = "The state of the art in search engines: ranking documents by relevance";
    let tokens = tokens(text);
    let document = Document::new(&tokens);
    let yes = |query: &str| {
        let query = parse(query, &english()).unwrap().unwrap();
        document.matches(&query)
    };
    assert!(yes("search"));
    assert!(yes("Searching engine"));
    assert!(!yes("search database"));
    assert!(yes("search database OR relevance"));
    assert!(yes("\"state of the art\""));
    assert!(!yes("\"art state\""));
    // The stop words keep their places: "state" and "art" are three words apart, so the
    // phrase without the stop words between does not match.
    assert!(!yes("\"state art\""));
    assert!(yes("rank*"));
    assert!(yes("relev*"));
    assert!(!yes("rel* NOT relev*"));
    assert!(yes("NOT database"));
    assert!(!yes("NOT (search OR database)"));
}

#[test]
fn highlights_and_snippets() {
    let text = "Rust makes systems programming safe. Many systems are written in C; \
                Rust systems avoid memory bugs.";
    let tokens = tokens(text);
    let document = Document::new(&tokens);
    let query = parse("\"rust systems\" OR memor* NOT java", &english())
        .unwrap()
        .unwrap();
    let spans = document.spans(&query);
    assert_eq!(
        highlight(text, &spans, "[", "]"),
        "Rust makes systems programming safe. Many systems are written in C; \
         [Rust systems] avoid [memory] bugs."
    );
    assert_eq!(
        snippet(text, &tokens, &spans, ("[", "]", "…"), 5),
        "…C; [Rust systems] avoid [memory]…"
    );
    // Nothing matched: the first tokens.
    assert_eq!(
        snippet(text, &tokens, &[], ("[", "]", "…"), 3),
        "Rust makes systems…"
    );
    // A window wider than the text: all of it, no ellipsis.
    assert_eq!(
        snippet("one two", &tokens_of("one two"), &[], ("[", "]", "…"), 10),
        "one two"
    );
}

fn tokens_of(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    Analyzer::default().analyze(text, 0, &mut out);
    out
}

#[test]
fn the_texts_of_one_document_are_numbered_apart_so_no_phrase_spans_two() {
    use super::analyzer::COLUMN_GAP;
    let analyzer = english();
    let mut tokens = Vec::new();
    // "the" is a stop word: it keeps its position, so "fox the dog" is three positions.
    assert!(analyzer.analyze_texts([Some("red fox"), None, Some("dog runs")], &mut tokens));
    let positions: Vec<(&str, u32)> = tokens
        .iter()
        .map(|t| (t.term.as_str(), t.position))
        .collect();
    assert_eq!(
        positions,
        [
            ("red", 0),
            ("fox", 1),
            ("dog", 2 + COLUMN_GAP),
            ("run", 3 + COLUMN_GAP)
        ]
    );
    let document = Document::new(&tokens);
    for (query, matches) in [
        ("\"fox dog\"", false),
        ("\"fox the dog\"", false),
        ("\"dog runs\"", true),
        ("fox dog", true),
    ] {
        let parsed = parse(query, &analyzer).unwrap().unwrap();
        assert_eq!(document.matches(&parsed), matches, "{query}");
    }
    // In one text, the same words are a phrase.
    tokens.clear();
    assert!(analyzer.analyze_texts([Some("red fox the dog")], &mut tokens));
    let parsed = parse("\"fox the dog\"", &analyzer).unwrap().unwrap();
    assert!(Document::new(&tokens).matches(&parsed));
    // NULLs alone are no document.
    tokens.clear();
    assert!(!analyzer.analyze_texts([None, None], &mut tokens));
    assert!(tokens.is_empty());
}

#[test]
fn a_phrase_longer_than_the_gap_between_columns_is_refused() {
    let words = "w ".repeat(super::analyzer::COLUMN_GAP as usize + 1);
    let error = parse(&format!("\"{words}\""), &Analyzer::default()).unwrap_err();
    assert_eq!(error.sqlstate(), sqlstate::PROGRAM_LIMIT_EXCEEDED);
}
