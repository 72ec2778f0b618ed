#![allow(clippy::unwrap_used)]
use basalt::{Database, Value};

#[test]
fn smoke() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute("CREATE TABLE t1(a INTEGER, b INTEGER, c TEXT)", ())
        .unwrap();
    conn.execute(
        "INSERT INTO t1(a,b,c) VALUES(1,2,'x'),(3,4,'y'),(5,NULL,'z')",
        (),
    )
    .unwrap();
    let mut stmt = conn
        .prepare("SELECT a+b, c FROM t1 WHERE a > ? ORDER BY a DESC")
        .unwrap();
    let rows = stmt
        .query((0,))
        .unwrap()
        .map(|r| Ok((r.get::<Option<i64>>(0)?, r.get::<String>(1)?)))
        .unwrap();
    println!("{rows:?}");
    assert_eq!(
        rows,
        vec![
            (None, "z".into()),
            (Some(7), "y".into()),
            (Some(3), "x".into())
        ]
    );
    let count: i64 = conn
        .query_row("SELECT count(*) FROM t1", (), |r| r.get(0))
        .unwrap();
    assert_eq!(count, 3);
    let v: Value = conn
        .query_row("SELECT sum(b), avg(a) FROM t1", (), |r| r.get(1))
        .unwrap();
    assert_eq!(v, Value::Real(3.0));
}
