//! jsonpath through the public API: a 12,000-row table of jsonb documents (many pages)
//! filtered by `@?`, `@@` and `jsonb_path_exists` answers exactly as the same filters
//! written with `->` / `->>` operators, with the path bound as a parameter too; `?|` and
//! `?&` work beside `$n` parameters and beside `?` placeholders; a deeply nested path is an
//! error, not a crash.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

use basalt::Database;

const ROWS: i64 = 12_000;

fn ids(conn: &basalt::Connection, sql: &str, params: impl basalt::Params) -> Vec<i64> {
    let mut statement = conn.prepare(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    let mut rows = statement.query(params).unwrap();
    let mut out = Vec::new();
    while let Some(row) = rows.next().unwrap() {
        out.push(row.get::<i64>(0).unwrap());
    }
    out
}

fn setup() -> basalt::Connection {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute("CREATE TABLE docs (id INTEGER PRIMARY KEY, doc JSONB)", ())
        .unwrap();
    // Documents of several shapes: a number, a nested object, an array of tags, a name;
    // some members missing, some of another type, so lax and strict paths differ.
    conn.execute(
        "INSERT INTO docs SELECT g, jsonb_build_object(
             'n', g % 100,
             'name', 'user' || (g % 37),
             'tags', jsonb_build_array('t' || (g % 3), 't' || (g % 5)),
             'addr', CASE WHEN g % 4 = 0 THEN jsonb_build_object('zip', (g % 10)::text, 'city', 'c' || (g % 6))
                          WHEN g % 4 = 1 THEN jsonb_build_object('city', 'c' || (g % 6))
                          ELSE jsonb_build_object('zip', g % 10) END)
           FROM generate_series(1, $1) AS g",
        (ROWS,),
    )
    .unwrap();
    conn
}

#[test]
fn path_filters_agree_with_arrow_operators_on_many_rows() {
    let conn = setup();
    let cases = [
        (
            "SELECT id FROM docs WHERE doc @? '$.n ? (@ > 90)' ORDER BY id",
            "SELECT id FROM docs WHERE (doc ->> 'n')::integer > 90 ORDER BY id",
        ),
        (
            "SELECT id FROM docs WHERE jsonb_path_exists(doc, '$.tags[*] ? (@ == \"t4\")') ORDER BY id",
            "SELECT id FROM docs WHERE doc -> 'tags' ->> 0 = 't4' OR doc -> 'tags' ->> 1 = 't4' ORDER BY id",
        ),
        (
            "SELECT id FROM docs WHERE doc @? '$.addr ? (@.city starts with \"c2\" && @.zip == \"4\")' ORDER BY id",
            "SELECT id FROM docs WHERE doc -> 'addr' ->> 'city' = 'c2' AND doc -> 'addr' -> 'zip' = '\"4\"' ORDER BY id",
        ),
        (
            "SELECT id FROM docs WHERE doc @@ '$.n < 10 && $.name like_regex \"^user1\"' ORDER BY id",
            "SELECT id FROM docs WHERE (doc ->> 'n')::integer < 10 AND doc ->> 'name' LIKE 'user1%' ORDER BY id",
        ),
        (
            // Strict: a document without addr.zip is an error inside the filter (unknown),
            // so only documents with a numeric zip pass; lax would compare the string zips
            // too (and find them not equal to a number).
            "SELECT id FROM docs WHERE doc @? 'strict $ ? (@.addr.zip == 3)' ORDER BY id",
            "SELECT id FROM docs WHERE jsonb_typeof(doc -> 'addr' -> 'zip') = 'number' AND (doc -> 'addr' ->> 'zip')::integer = 3 ORDER BY id",
        ),
        (
            "SELECT id FROM docs WHERE NOT doc @? '$.addr.city' ORDER BY id",
            "SELECT id FROM docs WHERE doc -> 'addr' -> 'city' IS NULL ORDER BY id",
        ),
    ];
    for (path, arrows) in cases {
        let by_path = ids(&conn, path, ());
        let by_arrows = ids(&conn, arrows, ());
        assert!(!by_path.is_empty(), "{path}");
        assert!(by_path.len() < ROWS as usize, "{path}");
        assert_eq!(by_path, by_arrows, "{path}");
    }
    // The path and its variables as parameters.
    let by_parameter = ids(
        &conn,
        "SELECT id FROM docs WHERE jsonb_path_exists(doc, $1, $2) ORDER BY id",
        ("$.n ? (@ >= $lo && @ < $hi)", r#"{"lo": 20, "hi": 25}"#),
    );
    let by_arrows = ids(
        &conn,
        "SELECT id FROM docs WHERE (doc ->> 'n')::integer BETWEEN 20 AND 24 ORDER BY id",
        (),
    );
    assert_eq!(by_parameter, by_arrows);
    assert_eq!(by_parameter.len(), 600);
    // jsonb_path_query in the SELECT list and in FROM give the same rows.
    let listed: i64 = conn
        .query_row(
            "SELECT count(*) FROM (SELECT jsonb_path_query(doc, '$.tags[*] ? (@ == \"t0\")') FROM docs) AS q",
            (),
            |row| row.get(0),
        )
        .unwrap();
    let joined: i64 = conn
        .query_row(
            "SELECT count(*) FROM docs, jsonb_path_query(doc, '$.tags[*] ? (@ == \"t0\")')",
            (),
            |row| row.get(0),
        )
        .unwrap();
    let arrows: i64 = conn
        .query_row(
            "SELECT count(*) FILTER (WHERE doc -> 'tags' ->> 0 = 't0') + count(*) FILTER (WHERE doc -> 'tags' ->> 1 = 't0') FROM docs",
            (),
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!((listed, joined), (arrows, arrows));
}

#[test]
fn key_list_operators_beside_placeholders() {
    let conn = setup();
    let with_dollar = ids(
        &conn,
        "SELECT id FROM docs WHERE doc -> 'addr' ?| $1 AND doc -> 'addr' ?& $2 AND id < $3 ORDER BY id",
        (vec!["zip", "nothing"], vec!["city"], 200_i64),
    );
    let with_question = ids(
        &conn,
        "SELECT id FROM docs WHERE doc -> 'addr' ?| ? AND doc -> 'addr' ? ? AND id < ? ORDER BY id",
        (vec!["zip", "nothing"], "city", 200_i64),
    );
    let expected: Vec<i64> = (1..200).filter(|g| g % 4 == 0).collect();
    assert_eq!(with_dollar, expected);
    assert_eq!(with_question, expected);
    let literal = ids(
        &conn,
        "SELECT id FROM docs WHERE doc ?& '{n,name,tags}' AND doc->'addr' ?|'{city}' AND id <= 8 ORDER BY id",
        (),
    );
    assert_eq!(literal, [1, 4, 5, 8]);
}

#[test]
fn deep_and_bad_paths_are_errors() {
    let conn = Database::open_in_memory().unwrap().connect();
    let deep = format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000));
    let error = conn
        .query_row(
            "SELECT jsonb_path_query_first('1', $1)",
            (deep.as_str(),),
            |row| row.get::<Option<String>>(0),
        )
        .unwrap_err();
    assert_eq!(error.code(), "42601");
    let error = conn
        .query_row("SELECT '$.a ='::jsonpath", (), |row| row.get::<String>(0))
        .unwrap_err();
    assert_eq!(error.code(), "42601");
    assert!(
        error.to_string().contains("syntax error at or near \"=\""),
        "{error}"
    );
    let error = conn
        .execute("CREATE TABLE paths (p JSONPATH)", ())
        .unwrap_err();
    assert_eq!(error.code(), "0A000");
}
