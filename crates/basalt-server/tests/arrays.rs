//! Arrays on the wire: columns described with PostgreSQL's array OIDs (`_int8`, `_text`,
//! ...), values in `array_out`'s text form (simple query) and in `array_send`'s binary form
//! (tokio-postgres reads results in binary), and array parameters in binary (`array_recv`,
//! as tokio-postgres sends a `Vec`) for `= ANY($1)` and for storing into array columns.

mod common;

use common::TestServer;
use tokio_postgres::SimpleQueryMessage;
use tokio_postgres::types::Type;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arrays_in_text_and_binary_and_as_parameters() {
    let server = TestServer::start().await;
    let client = server.client().await;
    client
        .batch_execute(
            "CREATE TABLE docs (id INT PRIMARY KEY, tags TEXT[], scores INT[], d DATE[]);
             INSERT INTO docs VALUES (1, '{\"a b\",NULL,c}', '{3,1,2}', '{2024-02-29}'),
                                     (2, '{}', '[0:1]={5,NULL}', NULL);",
        )
        .await
        .expect("create");

    // Text: array_out's form.
    let messages = client
        .simple_query("SELECT tags, scores FROM docs ORDER BY id")
        .await
        .expect("select");
    let rows: Vec<Vec<Option<String>>> = messages
        .iter()
        .filter_map(|message| match message {
            SimpleQueryMessage::Row(row) => Some(
                (0..row.len())
                    .map(|index| row.get(index).map(str::to_owned))
                    .collect(),
            ),
            _ => None,
        })
        .collect();
    assert_eq!(
        rows,
        [
            [
                Some(r#"{"a b",NULL,c}"#.to_owned()),
                Some("{3,1,2}".to_owned())
            ],
            [Some("{}".to_owned()), Some("[0:1]={5,NULL}".to_owned())],
        ]
    );

    // Binary, with the array OIDs in the RowDescription.
    let statement = client
        .prepare("SELECT tags, scores, d FROM docs WHERE id = $1")
        .await
        .expect("prepare");
    let types: Vec<Type> = statement
        .columns()
        .iter()
        .map(|column| column.type_().clone())
        .collect();
    assert_eq!(
        types,
        [Type::TEXT_ARRAY, Type::INT8_ARRAY, Type::DATE_ARRAY]
    );
    let row = client.query_one(&statement, &[&1i64]).await.expect("row");
    assert_eq!(
        row.get::<_, Vec<Option<String>>>(0),
        [Some("a b".to_owned()), None, Some("c".to_owned())]
    );
    assert_eq!(row.get::<_, Vec<i64>>(1), [3, 1, 2]);
    assert_eq!(
        row.get::<_, Vec<chrono::NaiveDate>>(2),
        [chrono::NaiveDate::from_ymd_opt(2024, 2, 29).expect("date")]
    );
    let row = client.query_one(&statement, &[&2i64]).await.expect("row");
    assert!(row.get::<_, Vec<String>>(0).is_empty());
    assert_eq!(row.get::<_, Vec<Option<i64>>>(1), [Some(5), None]);
    assert_eq!(row.get::<_, Option<Vec<chrono::NaiveDate>>>(2), None);

    // `= ANY($1)`: the parameter is inferred as an array and sent in binary.
    let any = client
        .prepare("SELECT id FROM docs WHERE id = ANY($1) ORDER BY id")
        .await
        .expect("prepare any");
    assert_eq!(any.params(), [Type::INT8_ARRAY]);
    let ids: Vec<i64> = client
        .query(&any, &[&vec![2i64, 7, 1]])
        .await
        .expect("any")
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert_eq!(ids, [1, 2]);
    let ids: Vec<i64> = client
        .query(&any, &[&Vec::<i64>::new()])
        .await
        .expect("any of nothing")
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert!(ids.is_empty());

    // Array parameters stored and read back; an int4[] parameter converts to the column.
    let insert = client
        .prepare_typed(
            "INSERT INTO docs (id, tags, scores) VALUES ($1, $2, $3)",
            &[Type::INT8, Type::TEXT_ARRAY, Type::INT4_ARRAY],
        )
        .await
        .expect("prepare insert");
    client
        .execute(
            &insert,
            &[
                &3i64,
                &vec![Some("x,y"), None, Some("")],
                &vec![Some(i32::MIN), None],
            ],
        )
        .await
        .expect("insert");
    let row = client
        .query_one(
            "SELECT tags, scores, CAST(tags AS TEXT) FROM docs WHERE id = 3",
            &[],
        )
        .await
        .expect("read back");
    assert_eq!(
        row.get::<_, Vec<Option<String>>>(0),
        [Some("x,y".to_owned()), None, Some(String::new())]
    );
    assert_eq!(
        row.get::<_, Vec<Option<i64>>>(1),
        [Some(i64::from(i32::MIN)), None]
    );
    assert_eq!(row.get::<_, String>(2), r#"{"x,y",NULL,""}"#);
}
