//! A first look at Basalt: builds a small database on disk, runs a few queries through the
//! embedded API, and prints the results as tables.
//!
//! `cargo run --release --example demo [PATH]` (default `demo.basalt` in the current
//! directory; the file is recreated on every run).

use basalt::{Database, Value};

fn print_query(conn: &basalt::Connection, sql: &str) -> basalt::Result<()> {
    println!("\n{sql}");
    let mut statement = conn.prepare(sql)?;
    let names: Vec<String> = statement
        .column_names()
        .iter()
        .map(|name| name.to_string())
        .collect();
    let rows = statement.query(())?.map(|row| {
        (0..names.len())
            .map(|i| {
                row.get::<Value>(i).map(|v| {
                    if v.is_null() {
                        "NULL".into()
                    } else {
                        v.to_string()
                    }
                })
            })
            .collect::<basalt::Result<Vec<String>>>()
    })?;
    let widths: Vec<usize> = (0..names.len())
        .map(|i| {
            rows.iter()
                .map(|row| row[i].chars().count())
                .chain([names[i].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &[String]| {
        cells
            .iter()
            .zip(&widths)
            .map(|(cell, width)| format!(" {cell:<width$} "))
            .collect::<Vec<_>>()
            .join("|")
    };
    println!("{}", line(&names));
    println!(
        "{}",
        widths
            .iter()
            .map(|w| "-".repeat(w + 2))
            .collect::<Vec<_>>()
            .join("+")
    );
    for row in &rows {
        println!("{}", line(row));
    }
    println!("({} rows)", rows.len());
    Ok(())
}

fn main() -> basalt::Result<()> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "demo.basalt".to_string());
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_file(format!("{path}-wal"));
    let db = Database::open(&path)?;
    let conn = db.connect();
    conn.execute_batch(
        "CREATE TABLE regions (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
         CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, region_id INTEGER NOT NULL);
         CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, amount REAL NOT NULL);
         CREATE INDEX orders_by_customer ON orders (customer_id);
         INSERT INTO regions (name) VALUES ('north'), ('south'), ('east'), ('west');",
    )?;
    let tx = conn.transaction()?;
    {
        let mut insert_customer =
            tx.prepare_cached("INSERT INTO customers (name, region_id) VALUES (?, ?)")?;
        for i in 0..1000i64 {
            insert_customer.execute((format!("customer-{i}"), 1 + i % 4))?;
        }
        let mut insert_order =
            tx.prepare_cached("INSERT INTO orders (customer_id, amount) VALUES (?, ?)")?;
        for i in 0..20_000i64 {
            insert_order.execute((1 + (i * 7919) % 1000, ((i * 37) % 500) as f64 + 0.5))?;
        }
    }
    tx.commit()?;
    println!("Created {path}: 4 regions, 1000 customers, 20000 orders.");

    print_query(
        &conn,
        "SELECT count(*) AS orders, sum(amount) AS total, avg(amount) AS average FROM orders",
    )?;
    print_query(
        &conn,
        "SELECT r.name AS region, count(*) AS orders, round(sum(o.amount), 2) AS revenue
         FROM orders o JOIN customers c ON c.id = o.customer_id JOIN regions r ON r.id = c.region_id
         GROUP BY r.name ORDER BY revenue DESC",
    )?;
    print_query(
        &conn,
        "SELECT c.name, count(o.id) AS orders FROM customers c LEFT JOIN orders o ON o.customer_id = c.id
         WHERE c.id <= 5 GROUP BY c.name ORDER BY c.name",
    )?;
    let mut lookup = conn.prepare_cached("SELECT name FROM customers WHERE id = ?")?;
    let name: String = lookup.query_row((42,), |row| row.get(0))?;
    println!("\nPrepared lookup: customer 42 is {name}");
    Ok(())
}
