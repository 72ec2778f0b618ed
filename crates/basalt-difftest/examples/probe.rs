//! Runs `;`-separated SQL from stdin on Basalt and SQLite side by side (a debugging aid).
#![allow(clippy::unwrap_used)]
use std::io::Read;
fn main() {
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text).unwrap();
    let database = basalt::Database::open_in_memory().unwrap();
    let basalt_main = database.connect();
    let twin_database = basalt::Database::open_in_memory().unwrap();
    let twin = twin_database.connect();
    let sqlite = rusqlite::Connection::open_in_memory().unwrap();
    sqlite
        .execute_batch("PRAGMA case_sensitive_like=ON")
        .unwrap();
    for sql in text.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        // `twin:` runs a statement on a second Basalt database instead of the first.
        let (basalt, sql) = match sql.strip_prefix("twin:") {
            Some(rest) => (&twin, rest.trim()),
            None => (&basalt_main, sql),
        };
        println!("> {sql}");
        let b = (|| -> Result<Vec<String>, String> {
            let mut st = basalt.prepare(sql).map_err(|e| e.to_string())?;
            if st.column_count() == 0 {
                let n = st.execute(()).map_err(|e| e.to_string())?;
                return Ok(vec![format!("{n} changed")]);
            }
            let n = st.column_count();
            let mut rows = st.query(()).map_err(|e| e.to_string())?;
            let mut out = vec![];
            while let Some(r) = rows.next().map_err(|e| e.to_string())? {
                out.push(
                    (0..n)
                        .map(|i| format!("{:?}", r.get_ref(i).unwrap()))
                        .collect::<Vec<_>>()
                        .join(" | "),
                );
            }
            Ok(out)
        })();
        let s = (|| -> Result<Vec<String>, String> {
            let mut st = sqlite.prepare(sql).map_err(|e| e.to_string())?;
            let n = st.column_count();
            if n == 0 {
                let c = st.execute([]).map_err(|e| e.to_string())?;
                return Ok(vec![format!("{c} changed")]);
            }
            let mut rows = st.query([]).map_err(|e| e.to_string())?;
            let mut out = vec![];
            while let Some(r) = rows.next().map_err(|e| e.to_string())? {
                out.push(
                    (0..n)
                        .map(|i| format!("{:?}", r.get_ref(i).unwrap()))
                        .collect::<Vec<_>>()
                        .join(" | "),
                );
            }
            Ok(out)
        })();
        println!("  basalt: {b:?}\n  sqlite: {s:?}");
    }
}
