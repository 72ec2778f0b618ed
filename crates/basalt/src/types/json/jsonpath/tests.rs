//! Unit tests of the jsonpath parser (normalized text, errors and their positions, the
//! depth bound) and the evaluator (lax and strict modes, soft and hard errors).

use super::*;

fn normalized(text: &str) -> String {
    normalize(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn parse_error(text: &str) -> ParseError {
    match parse::parse(text) {
        Ok(path) => panic!("{text} parsed as {path:?}"),
        Err(error) => error,
    }
}

/// The items of `path` over `doc` as jsonb texts, or the error's SQLSTATE.
fn run(doc: &str, path: &str) -> Result<Vec<String>, &'static str> {
    run_with(doc, path, None, false)
}

fn run_with(
    doc: &str,
    path: &str,
    vars: Option<&str>,
    silent: bool,
) -> Result<Vec<String>, &'static str> {
    let path = parse_path(path).map_err(|e| e.code())?;
    let doc = Item::from_json_text(doc).map_err(|e| e.code())?;
    let vars = vars.map(|v| Item::from_json_text(v).unwrap());
    let outcome = query(&path, &doc, vars.as_ref(), silent, false).map_err(|e| e.code())?;
    if outcome.failed {
        return Err("silent");
    }
    Ok(outcome
        .items
        .iter()
        .map(|i| i.to_jsonb().unwrap())
        .collect())
}

#[test]
fn printing_matches_postgresql() {
    for (input, output) in [
        ("$.a", "$.\"a\""),
        (
            "strict $.a[1 to last, 2].**{2 to last}",
            "strict $.\"a\"[1 to last,2].**{2 to last}",
        ),
        ("1 + 2", "(1 + 2)"),
        ("1 + 2 + 3", "((1 + 2) + 3)"),
        ("1 - (2 - 3)", "(1 - (2 - 3))"),
        ("1 + 2 * 3", "(1 + 2 * 3)"),
        ("-$.a * 2", "(-$.\"a\" * 2)"),
        ("- - 1", "1"),
        ("-1", "-1"),
        ("+$", "(+$)"),
        ("$x.y", "$\"x\".\"y\""),
        ("1.5e3", "1500"),
        (".5", "0.5"),
        ("1.", "1"),
        ("$ ? (!exists(@.a))", "$?(!(exists (@.\"a\")))"),
        ("$.a ? (@ > 1) ? (@ < 5)", "$.\"a\"?(@ > 1)?(@ < 5)"),
        (
            "$.a == 1 || $.b == 2 && $.c == 3",
            "($.\"a\" == 1 || $.\"b\" == 2 && $.\"c\" == 3)",
        ),
        ("$ ? ((@ > 1) is unknown)", "$?((@ > 1) is unknown)"),
        ("$.a <> 1", "($.\"a\" != 1)"),
        (
            "$ ? (@ like_regex \"a\" flag \"smi\")",
            "$?(@ like_regex \"a\" flag \"ism\")",
        ),
        ("$.**{1}", "$.**{1}"),
        ("$.**{last}", "$.**{last}"),
        ("(1).a", "(1).\"a\""),
        ("($ > 1).type()", "($ > 1).type()"),
        ("null.type()", "null.type()"),
        ("\"\\u0041\\x41\\t\"", "\"AA\\t\""),
        ("$.\"\\uD83D\\uDE00\"", "$.\"\u{1F600}\""),
        ("$.datetime()", "$.datetime()"),
        ("$.type", "$.\"type\""),
        ("lax $", "$"),
    ] {
        assert_eq!(normalized(input), output, "{input}");
        // The normalized text is itself a path with the same text.
        assert_eq!(normalized(output), output, "{output}");
    }
}

#[test]
fn syntax_errors_name_the_token_and_its_position() {
    for (input, position, message) in [
        ("$.a ? (@ == 1", 13, "syntax error at end of jsonpath input"),
        (
            "$ = 1",
            2,
            "syntax error at or near \"=\" of jsonpath input",
        ),
        (
            "$.a &",
            4,
            "syntax error at or near \"&\" of jsonpath input",
        ),
        (
            "$.a $.b",
            4,
            "syntax error at or near \"$\" of jsonpath input",
        ),
        (
            "$[1,]",
            4,
            "syntax error at or near \"]\" of jsonpath input",
        ),
        (
            "$ ? (@.a)",
            8,
            "syntax error at or near \")\" of jsonpath input",
        ),
        (
            "$ ? (@ > 1 > 2)",
            11,
            "syntax error at or near \">\" of jsonpath input",
        ),
        (
            "($ > 1) + 2",
            8,
            "syntax error at or near \"+\" of jsonpath input",
        ),
        (
            "1.type()",
            0,
            "trailing junk after numeric literal at or near \"1.t\" of jsonpath input",
        ),
        (
            "$.1a",
            1,
            "trailing junk after numeric literal at or near \".1a\" of jsonpath input",
        ),
        (
            "01",
            0,
            "trailing junk after numeric literal at or near \"01\" of jsonpath input",
        ),
        (
            "1e",
            0,
            "invalid numeric literal at or near \"1e\" of jsonpath input",
        ),
        (
            "$.\"abc",
            2,
            "unexpected end of quoted string at end of jsonpath input",
        ),
        ("@.a", 0, "@ is not allowed in root expressions"),
        ("last", 0, "LAST is allowed only in array subscripts"),
    ] {
        let error = parse_error(input);
        assert_eq!(
            (error.position, error.message.as_str()),
            (position, message),
            "{input}"
        );
        assert_eq!(TypeError::from(error).code(), "42601", "{input}");
    }
    assert_eq!(TypeError::from(parse_error("")).code(), "22P02");
    assert_eq!(TypeError::from(parse_error("  ")).code(), "22P02");
    let flag = TypeError::from(parse_error("$ ? (@ like_regex \"a\" flag \"x\")"));
    assert_eq!(flag.code(), "0A000");
    assert_eq!(
        parse_path("$ ? (@ like_regex \"(\")").unwrap_err().code(),
        "2201B"
    );
}

#[test]
fn deep_paths_are_errors_not_stack_overflows() {
    for text in [
        "(".repeat(10_000) + "1" + &")".repeat(10_000),
        "-".repeat(10_000) + "$",
        "$".to_owned() + &" + 1".repeat(10_000),
        "$".to_owned() + &".a".repeat(10_000),
        "$".to_owned() + &" ? (@ > 1)".repeat(10_000),
        "$ ? (".repeat(5_000) + "@ > 1" + &")".repeat(5_000),
        "$ ? (".to_owned() + &"@ > 1 && ".repeat(10_000) + "@ > 1)",
    ] {
        let error = parse_error(&text);
        assert!(error.message.contains("maximum depth"), "{}", error.message);
    }
    // Within the bound, everything works.
    assert_eq!(
        normalized(&("$".to_owned() + &".a".repeat(100))).len(),
        1 + 4 * 100
    );
}

#[test]
fn lax_mode_wraps_and_unwraps() {
    assert_eq!(
        run(r#"[{"a": 1}, {"a": 2}, {"b": 3}]"#, "$.a"),
        Ok(vec!["1".into(), "2".into()])
    );
    assert_eq!(run("1", "$[0]"), Ok(vec!["1".into()]));
    assert_eq!(run("1", "$[*]"), Ok(vec!["1".into()]));
    assert_eq!(run("[1, 2, 3]", "$[5]"), Ok(vec![]));
    assert_eq!(run("[1, 2, 3]", "$[1.7]"), Ok(vec!["2".into()]));
    assert_eq!(
        run("[1, 2, 3]", "$[last - 1 to last]"),
        Ok(vec!["2".into(), "3".into()])
    );
    assert_eq!(run(r#"{"a": 1}"#, "$.b"), Ok(vec![]));
    assert_eq!(run(r#""x""#, "$.a"), Ok(vec![]));
    // Lax `.b` unwraps the array at level 1 and meets the object again at level 2, as in
    // PostgreSQL.
    assert_eq!(
        run(r#"{"a": [1, {"b": 2}]}"#, "$.**.b"),
        Ok(vec!["2".into(), "2".into()])
    );
    assert_eq!(
        run(r#"{"a": [1, {"b": 2}]}"#, "strict $.**.b"),
        Ok(vec!["2".into()])
    );
    assert_eq!(
        run(r#"{"a": [1, {"b": 2}]}"#, "$.**{last}"),
        Ok(vec!["1".into(), "2".into()])
    );
    assert_eq!(run("[1, 2, 3]", "$.size()"), Ok(vec!["3".into()]));
    assert_eq!(run(r#"{"a": 1}"#, "$.size()"), Ok(vec!["1".into()]));
}

#[test]
fn strict_mode_reports_structural_errors() {
    assert_eq!(run(r#"{"a": 1}"#, "strict $.b"), Err("2203A"));
    assert_eq!(run("[1]", "strict $.a"), Err("2203A"));
    assert_eq!(run("1", "strict $[0]"), Err("22039"));
    assert_eq!(run("1", "strict $[*]"), Err("22039"));
    assert_eq!(run("[1, 2]", "strict $[2]"), Err("22033"));
    assert_eq!(run("[1, 2]", "strict $[\"a\"]"), Err("22033"));
    assert_eq!(run("1", "strict $.*"), Err("2203C"));
    assert_eq!(run("1", "strict $.size()"), Err("22039"));
    // Suppressed with silent; hard errors are not.
    assert_eq!(
        run_with(r#"{"a": 1}"#, "strict $.b", None, true),
        Err("silent")
    );
    assert_eq!(run_with("{}", "$x", None, true), Err("42704"));
    assert_eq!(run_with("{}", "$x", Some("[]"), true), Err("22023"));
    // Inside a filter an error is unknown.
    assert_eq!(
        run(
            r#"[{"a": 1}, {"b": 2}, {"a": 3}]"#,
            "strict $[*] ? (@.a > 1)"
        ),
        Ok(vec![r#"{"a": 3}"#.into()])
    );
    assert_eq!(run("[1, \"a\", 3]", "strict $ ? (@[*] > 2)"), Ok(vec![]));
    // Lax filters apply to each element of an array.
    assert_eq!(
        run("[1, \"a\", 3]", "lax $ ? (@[*] > 2)"),
        Ok(vec!["3".into()])
    );
}

#[test]
fn arithmetic_methods_and_predicates() {
    assert_eq!(
        run(r#"{"a": 7}"#, "$.a / 2"),
        Ok(vec!["3.5000000000000000".into()])
    );
    assert_eq!(run(r#"{"a": 0.1}"#, "$.a + 0.2"), Ok(vec!["0.3".into()]));
    assert_eq!(run("[1, 2]", "-$[*]"), Ok(vec!["-1".into(), "-2".into()]));
    assert_eq!(run("\"a\"", "$ + 1"), Err("22038"));
    assert_eq!(run("\"a\"", "-$"), Err("2203B"));
    assert_eq!(run("0", "1 / $"), Err("22012"));
    assert_eq!(run("[-1.5]", "$[*].floor()"), Ok(vec!["-2".into()]));
    assert_eq!(run("[\"1.5\"]", "$[*].double()"), Ok(vec!["1.5".into()]));
    assert_eq!(run("true", "$.double()"), Err("22036"));
    assert_eq!(
        run(r#"{"b": 2, "a": 1}"#, "$.keyvalue()"),
        Ok(vec![
            r#"{"id": 0, "key": "a", "value": 1}"#.into(),
            r#"{"id": 0, "key": "b", "value": 2}"#.into()
        ])
    );
    assert_eq!(
        run("\"2017-03-10 12:34:56-08\"", "$.datetime()"),
        Ok(vec!["\"2017-03-10T12:34:56-08:00\"".into()])
    );
    assert_eq!(run("\"x\"", "$.datetime(\"yyyy\")"), Err("22007"));
    assert_eq!(
        run("\"10-03-2017\"", "$.datetime(\"dd-mm-yyyy\")"),
        Ok(vec!["\"2017-03-10\"".into()])
    );
    assert_eq!(
        run("\"10-03-2017 1\"", "$.datetime(\"dd-mm-yyyy\")"),
        Err("22007")
    );
    assert_eq!(
        run("\"12:00 +05\"", "$.datetime(\"HH24:MI TZH\")"),
        Err("0A000")
    );
    assert_eq!(run("[null, 1]", "$[*] ? (@ != null)"), Ok(vec!["1".into()]));
    assert_eq!(
        run(
            "[\"abc\", \"ABD\"]",
            "$[*] ? (@ like_regex \"^ab\" flag \"i\")"
        )
        .map(|v| v.len()),
        Ok(2)
    );
    assert_eq!(
        run("[\"a\\nb\"]", "$[*] ? (@ like_regex \"a.b\")"),
        Ok(vec![])
    );
    assert_eq!(
        run("[\"a\\nb\"]", "$[*] ? (@ like_regex \"a.b\" flag \"s\")").map(|v| v.len()),
        Ok(1)
    );
    assert_eq!(run(r#"{"a": 1}"#, "$.a == 1"), Ok(vec!["true".into()]));
    assert_eq!(
        run("[1, \"a\"]", "strict $[*] > 0"),
        Ok(vec!["null".into()])
    );
    assert_eq!(
        run_with(
            "[1, 2, 3, 4]",
            "$[*] ? (@ >= $min && @ <= $max)",
            Some(r#"{"min": 2, "max": 3}"#),
            false
        ),
        Ok(vec!["2".into(), "3".into()])
    );
}

/// Random text from path-like pieces: parsing never panics, a path that parses prints a
/// normalized text that parses back to the same path (so printing loses nothing), and
/// evaluating it over a few documents, in both modes, gives items or errors, never a panic.
#[test]
fn random_paths_parse_without_panics_and_print_round_trip() {
    const PIECES: [&str; 48] = [
        "$",
        "@",
        ".",
        "a",
        "\"k y\"",
        "[",
        "]",
        "*",
        "**",
        "{",
        "}",
        "1",
        "2.5",
        ".5",
        "0",
        "last",
        "to",
        ",",
        "(",
        ")",
        "?",
        "+",
        "-",
        "*",
        "/",
        "%",
        "==",
        "!=",
        "<",
        ">=",
        "&&",
        "||",
        "!",
        "exists",
        "like_regex",
        "\"x\"",
        "flag",
        "\"i\"",
        "starts",
        "with",
        "is",
        "unknown",
        "type()",
        "size()",
        "$v",
        "strict ",
        "é",
        " ",
    ];
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = |bound: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % bound as u64) as usize
    };
    let mut parsed = 0;
    for _ in 0..30_000 {
        let length = 1 + next(12);
        let text: String = (0..length).map(|_| PIECES[next(PIECES.len())]).collect();
        let Ok(path) = parse::parse(&text) else {
            continue;
        };
        parsed += 1;
        let printed = print::to_text(&path);
        let reparsed =
            parse::parse(&printed).unwrap_or_else(|e| panic!("{text} -> {printed}: {e:?}"));
        assert_eq!(reparsed, path, "{text} -> {printed}");
        assert_eq!(print::to_text(&reparsed), printed);
        let vars = Item::from_json_text(r#"{"v": [1, {"a": 2}]}"#).unwrap();
        for doc in [
            "1",
            r#"{"a": [1, "x", {"a": null}], "k y": 2}"#,
            "[[1.5], [], {}]",
        ] {
            let doc = Item::from_json_text(doc).unwrap();
            for silent in [false, true] {
                let _ = query(&path, &doc, Some(&vars), silent, silent);
            }
        }
    }
    assert!(parsed > 500, "only {parsed} random paths parsed");
}

/// Differences the random comparison with PostgreSQL found, now fixed.
#[test]
fn random_comparison_findings() {
    // Strict structural errors are ignored below `.**` (the level-0 item included).
    assert_eq!(run("[1, [2]]", "strict $.**{0 to 1}.type()[*]"), Ok(vec![]));
    assert_eq!(
        run("[1, [2]]", "strict $.**.size()"),
        Ok(vec!["2".into(), "1".into()])
    );
    // A silent level-0 error under `.**` is dropped; the levels below still run.
    assert_eq!(
        run_with(
            r#"{"a": [1, {"b": 3}]}"#,
            "$.**{0 to 1}.*.abs()",
            None,
            true
        ),
        Ok(vec!["1".into(), "3".into()])
    );
    let path = parse_path("$.**{0 to 1}.*.abs()").unwrap();
    let doc = Item::from_json_text(r#"{"a": [1, {"b": 3}], "c": {"d": -2}}"#).unwrap();
    let outcome = query(&path, &doc, None, true, false).unwrap();
    let items: Vec<String> = outcome
        .items
        .iter()
        .map(|i| i.to_jsonb().unwrap())
        .collect();
    assert_eq!(items, ["1", "3", "2"]);
    assert_eq!(
        run(
            r#"{"a": [1, {"b": 3}], "c": {"d": -2}}"#,
            "$.**{0 to 1}.*.abs()"
        ),
        Err("22036")
    );
    // Both arithmetic operands are evaluated before either is checked.
    assert_eq!(run("[1, 2]", "$[*] + \"x\".abs()"), Err("22036"));
    assert_eq!(run("[1, 2]", "$[*] + 1"), Err("22038"));
}
