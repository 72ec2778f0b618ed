//! Arrays through the public API: `Vec`s bind as array parameters (`= ANY($1)`) and read
//! back as `Vec`s; an array column in a table of many pages, beside an indexed column,
//! survives closing and reopening the database; `= ANY($1)` with an array parameter answers
//! as the same IN list written out, through index seeks; arrays sort through a sort that spills to disk in
//! PostgreSQL's array order; and the integrity check passes.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

use basalt::{Array, DataType, Database, Value};

fn ints(conn: &basalt::Connection, sql: &str, params: impl basalt::Params) -> Vec<i64> {
    let mut statement = conn.prepare(sql).unwrap();
    let mut rows = statement.query(params).unwrap();
    let mut out = Vec::new();
    while let Some(row) = rows.next().unwrap() {
        out.push(row.get::<i64>(0).unwrap());
    }
    out
}

/// Row `id`'s array: one to four elements derived from the id, a NULL in every seventh.
fn tags_of(id: i64) -> Vec<Option<i64>> {
    let length = (id % 4 + 1) as usize;
    (0..length)
        .map(|i| {
            if (id + i as i64) % 7 == 0 {
                None
            } else {
                Some((id * 31 + i as i64 * 17) % 50)
            }
        })
        .collect()
}

#[test]
fn parameters_and_results_are_vecs() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    let back: Vec<i64> = conn
        .query_row("SELECT ?::int[] || 4", (vec![1_i64, 2, 3],), |row| {
            row.get(0)
        })
        .unwrap();
    assert_eq!(back, [1, 2, 3, 4]);
    let texts: Vec<Option<String>> = conn
        .query_row(
            "SELECT array_append($1, NULL)",
            (vec!["a b", "{c}"],),
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(
        texts,
        [Some("a b".to_owned()), Some("{c}".to_owned()), None]
    );
    let text: String = conn
        .query_row("SELECT CAST($1 AS text)", (vec!["a b", "{c}"],), |row| {
            row.get(0)
        })
        .unwrap();
    assert_eq!(text, r#"{"a b","{c}"}"#);
    let array: Array = conn
        .query_row("SELECT '[0:1][1:1]={{1},{2}}'::int[]", (), |row| row.get(0))
        .unwrap();
    assert_eq!(array.ndims(), 2);
    assert_eq!(array.dimensions()[0].lower, 0);
    assert_eq!(array.elements(), [Value::Integer(1), Value::Integer(2)]);
    let described = conn
        .session()
        .prepare_named("q", "SELECT 1 WHERE 2 = ANY($1)")
        .unwrap();
    assert_eq!(
        described.parameters[0].data_type,
        DataType::Integer.array_of().unwrap()
    );
    let error = conn
        .query_row("SELECT '{1,2'::int[]", (), |row| row.get::<Value>(0))
        .unwrap_err();
    assert_eq!(error.code(), "22P02");
    assert!(
        error.to_string().contains("malformed array literal"),
        "{error}"
    );
}

#[test]
fn an_array_column_survives_reopening_and_spilling() {
    let dir = std::env::temp_dir().join(format!("basalt-arrays-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("arrays.basalt");
    let rows = 12_000_i64;
    {
        let db = Database::open(&path).unwrap();
        let conn = db.connect();
        conn.execute_batch(
            "CREATE TABLE ev (id INTEGER PRIMARY KEY, k INTEGER NOT NULL, tags INT[], \
             names TEXT[]);
             CREATE INDEX ev_k ON ev (k);",
        )
        .unwrap();
        conn.execute_batch("BEGIN").unwrap();
        for id in 0..rows {
            let names: Vec<String> = tags_of(id)
                .iter()
                .map(|t| t.map_or_else(|| "none".to_owned(), |t| format!("n {t}")))
                .collect();
            conn.execute(
                "INSERT INTO ev VALUES (?, ?, ?, ?)",
                (id, id % 1000, tags_of(id), names),
            )
            .unwrap();
        }
        conn.execute_batch("COMMIT").unwrap();
    }
    let db = Database::open(&path).unwrap();
    let conn = db.connect();
    // Every row's array read back as written.
    let mut statement = conn
        .prepare("SELECT id, tags, names FROM ev ORDER BY id")
        .unwrap();
    let mut result = statement.query(()).unwrap();
    let mut count = 0;
    while let Some(row) = result.next().unwrap() {
        let id: i64 = row.get(0).unwrap();
        assert_eq!(
            row.get::<Vec<Option<i64>>>(1).unwrap(),
            tags_of(id),
            "row {id}"
        );
        assert_eq!(row.get::<Vec<String>>(2).unwrap().len(), tags_of(id).len());
        count += 1;
    }
    assert_eq!(count, rows);
    drop(result);

    // `k = ANY($1)` with an array parameter answers as the IN list (through the index on k).
    let wanted: Vec<i64> = vec![3, 77, 500, 999, 1000, -1];
    let listed = wanted
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let by_list = ints(
        &conn,
        &format!("SELECT id FROM ev WHERE k IN ({listed}) ORDER BY id"),
        (),
    );
    let by_array = ints(
        &conn,
        "SELECT id FROM ev WHERE k = ANY($1) ORDER BY id",
        (wanted.clone(),),
    );
    assert_eq!(by_array.len(), 48);
    // The array's elements are seeks through the index on k.
    let mut explain = conn
        .prepare("EXPLAIN SELECT id FROM ev WHERE k = ANY($1)")
        .unwrap();
    let mut lines = explain.query((vec![1_i64, 2],)).unwrap();
    let mut plan = String::new();
    while let Some(row) = lines.next().unwrap() {
        plan.push_str(&row.get::<String>(0).unwrap());
        plan.push('\n');
    }
    assert!(
        plan.contains("Index Seeks using ev_k on ev (the elements of an array)"),
        "{plan}"
    );
    drop(lines);
    // NULL elements and a NULL array seek nothing; duplicates seek once.
    assert_eq!(
        ints(
            &conn,
            "SELECT count(*) FROM ev WHERE k = ANY($1)",
            (vec![Some(5_i64), None, Some(5)],),
        ),
        [12]
    );
    assert_eq!(
        ints(
            &conn,
            "SELECT count(*) FROM ev WHERE k = ANY($1)",
            (Value::Null,),
        ),
        [0]
    );
    assert_eq!(by_array, by_list);
    let none = ints(
        &conn,
        "SELECT count(*) FROM ev WHERE k <> ALL($1)",
        (wanted,),
    );
    assert_eq!(none, [rows - 48]);
    // An element inside the stored arrays.
    let with_seven = ints(&conn, "SELECT count(*) FROM ev WHERE 7 = ANY(tags)", ());
    let expected = (0..rows)
        .filter(|&id| tags_of(id).contains(&Some(7)))
        .count() as i64;
    assert_eq!(with_seven, [expected]);

    // A spilled sort orders arrays as PostgreSQL does: element by element, NULL above any
    // value, a prefix before its extensions.
    conn.execute_batch("SET work_mem = '64kB'").unwrap();
    let sorted = ints(&conn, "SELECT id FROM ev ORDER BY tags, id", ());
    let mut expected: Vec<i64> = (0..rows).collect();
    let key = |tags: &Vec<Option<i64>>| -> Vec<(u8, i64)> {
        // None sorts above Some in PostgreSQL: map to (1, 0) against (0, value).
        tags.iter().map(|t| t.map_or((1, 0), |v| (0, v))).collect()
    };
    expected.sort_by(|a, b| key(&tags_of(*a)).cmp(&key(&tags_of(*b))).then(a.cmp(b)));
    assert_eq!(sorted, expected);
    let groups = ints(&conn, "SELECT count(DISTINCT tags) FROM ev", ());
    let mut distinct: Vec<Vec<Option<i64>>> = (0..rows).map(tags_of).collect();
    distinct.sort();
    distinct.dedup();
    assert_eq!(groups, [distinct.len() as i64]);

    let check: String = conn
        .query_row("PRAGMA integrity_check", (), |row| row.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    drop(conn);
    drop(db);
    std::fs::remove_dir_all(&dir).unwrap();
}
