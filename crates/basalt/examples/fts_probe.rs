use basalt::{Database, Value};
fn main() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute_batch("CREATE TABLE docs (id INTEGER PRIMARY KEY, body TEXT NOT NULL); CREATE INDEX docs_fts ON docs USING fts (body)").unwrap();
    let mut state = 0x1234_5678_u64;
    let mut next = move || { state ^= state << 13; state ^= state >> 7; state ^= state << 17; state };
    let n: i64 = std::env::args().nth(1).map_or(10000, |a| a.parse().unwrap());
    let start = std::time::Instant::now();
    conn.execute_batch("BEGIN").unwrap();
    for id in 1..=n {
        let len = 50 + next() % 100;
        let mut text = String::new();
        for _ in 0..len {
            let u = (next() >> 11) as f64 / (1u64 << 53) as f64;
            let rank = ((20000f64).powf(u) - 1.0) as u64;
            text.push_str(&format!("t{rank} "));
        }
        conn.execute("INSERT INTO docs VALUES ($1, $2)", vec![Value::Integer(id), Value::Text(text)]).unwrap();
    }
    conn.execute_batch("COMMIT").unwrap();
    eprintln!("insert {:?} per row", start.elapsed() / n as u32);
}
