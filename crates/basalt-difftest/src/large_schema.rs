//! Large tables for `--large`: thousands to tens of thousands of wide rows, so that every
//! table and index spans many pages and range scans cross leaf boundaries (issue 15: a
//! row-id range stopped at the end of the first leaf, and tables of 0–150 rows never showed
//! it because they fit in one leaf).
//!
//! A large table's columns are of these kinds: the row id; a *unique integer* (distinct
//! values spread over the row count, never NULL-free by force); *dense* integers, reals and
//! short texts over the small domains of `values.rs` (so many rows share a key and equal
//! keys span leaves); 0/1 flags; and *long text* of 50–500 bytes (a short prefix, five
//! digits that are distinct per row, a filler), at least one per table, so a leaf holds
//! few rows and an index on it few keys. Unique constraints and unique indexes only cover
//! a unique integer or long text column, whose loaded values are distinct.
//!
//! The rows are made in SQL by one [`Load`] statement per table: each column is an
//! expression of the row number `g` that both engines evaluate alike, built from
//! permutations `(g * P + R) % n` (P prime to the capacity n, so values are distinct and
//! arrive in scrambled order, splitting pages in the middle, not only at the end) and
//! hashes `(g * A + B) % 9973` cut down to a domain.

use rand::Rng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;

use crate::ast::Literal;
use crate::schema::{
    Column, Domain, Index, PrimaryKey, Schema, SqlType, Table, random_index, random_table,
};
use crate::statement::Load;
use crate::values::{TEXTS, WIDE_TEXTS, random_column_value, random_value};

/// The most rows a large table may have (the five digits of long texts number them).
pub const MOST_ROWS: usize = 90_000;

/// Prefixes of long texts: some of `values.rs`' short texts, with LIKE's wildcards.
pub const LONG_TEXT_PREFIXES: &[&str] = &["a", "ab", "b", "ba", "A", "Ab", "c", "x%", "a_b", "0"];

/// What a large table's column holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    RowId,
    UniqueInteger,
    DenseInteger { wide: bool },
    Flag,
    Real { wide: bool },
    ShortText { wide: bool },
    LongText,
}

/// A large schema: one or two large tables, then one or two small ones (the default
/// generator's), with their indexes; and the loads of the large tables.
pub fn random_large_schema(random: &mut StdRng, most_rows: usize) -> (Schema, Vec<Load>) {
    let most_rows = most_rows.clamp(100, MOST_ROWS);
    let large_count = random.gen_range(1..=2);
    let small_count = random.gen_range(1..=2);
    let mut tables = Vec::new();
    let mut indexes = Vec::new();
    let mut loads = Vec::new();
    for number in 0..large_count {
        // Log-uniform between a twelfth of the most and the most: mostly a few thousand.
        let smallest = (most_rows / 12).max(50) as f64;
        let exponent = random.gen_range(0.0..=1.0);
        let rows = (smallest * (most_rows as f64 / smallest).powf(exponent)) as u64;
        let (mut table, kinds) = large_table(random, number);
        let index_count = random.gen_range(2..=4);
        for index_number in 0..index_count {
            let name = format!("{}_index{index_number}", table.name);
            indexes.push(large_index(random, &table, &kinds, &name));
        }
        loads.push(load(random, &mut table, &kinds, rows));
        tables.push(table);
    }
    for number in large_count..large_count + small_count {
        let mut table = random_table(random, number);
        for index_number in 0..random.gen_range(0..=2) {
            let name = format!("{}_index{index_number}", table.name);
            indexes.push(random_index(random, &mut table, &name));
        }
        tables.push(table);
    }
    (Schema { tables, indexes }, loads)
}

fn column(name: String, sql_type: SqlType, not_null: bool, domain: Domain) -> Column {
    Column {
        name,
        sql_type,
        not_null,
        flag: false,
        wide_domain: false,
        default: None,
        check: None,
        domain,
    }
}

fn large_table(random: &mut StdRng, number: usize) -> (Table, Vec<Kind>) {
    let width = random.gen_range(4..=7);
    let primary = random.gen_range(0..10);
    let mut kinds = vec![if primary < 6 {
        Kind::RowId
    } else {
        Kind::UniqueInteger
    }];
    kinds.push(Kind::LongText);
    while kinds.len() < width {
        let wide = random.gen_bool(0.5);
        kinds.push(
            *[
                Kind::DenseInteger { wide },
                Kind::DenseInteger { wide },
                Kind::Flag,
                Kind::Real { wide },
                Kind::ShortText { wide },
                Kind::LongText,
                Kind::UniqueInteger,
            ]
            .choose(random)
            .unwrap_or(&Kind::Flag),
        );
    }
    kinds[1..].shuffle(random);
    let columns: Vec<Column> = kinds
        .iter()
        .enumerate()
        .map(|(position, &kind)| {
            let name = format!("c{position}");
            let not_null = random.gen_bool(0.25);
            let mut column = match kind {
                Kind::RowId => column(name, SqlType::Integer, false, Domain::Small),
                Kind::UniqueInteger => column(name, SqlType::Integer, not_null, Domain::Small),
                Kind::DenseInteger { .. } | Kind::Flag => {
                    column(name, SqlType::Integer, not_null, Domain::Small)
                }
                Kind::Real { .. } => column(name, SqlType::Real, not_null, Domain::Small),
                Kind::ShortText { .. } => column(name, SqlType::Text, not_null, Domain::Small),
                Kind::LongText => column(name, SqlType::Text, not_null, Domain::LongText),
            };
            column.flag = kind == Kind::Flag;
            column.wide_domain = matches!(
                kind,
                Kind::DenseInteger { wide: true }
                    | Kind::Real { wide: true }
                    | Kind::ShortText { wide: true }
            );
            if column.domain == Domain::Small
                && !matches!(kind, Kind::RowId | Kind::UniqueInteger)
                && random.gen_bool(0.1)
            {
                column.default = Some(match column.flag {
                    true => Literal::Integer(random.gen_range(0..=1)),
                    false => random_value(random, column.sql_type, column.wide_domain),
                });
            }
            column
        })
        .collect();
    let unique_positions: Vec<usize> = kinds
        .iter()
        .enumerate()
        .filter(|(_, kind)| matches!(kind, Kind::UniqueInteger | Kind::LongText))
        .map(|(position, _)| position)
        .collect();
    let primary_key = match (kinds[0], primary) {
        (Kind::RowId, _) => PrimaryKey::RowId(0),
        // A one-column INTEGER primary key would be SQLite's row id: pair it with another.
        (_, 6 | 7) => PrimaryKey::Composite(vec![0, random.gen_range(1..width)]),
        // A long text alone (there is one at least).
        (_, 8) => PrimaryKey::Composite(vec![
            kinds
                .iter()
                .position(|&kind| kind == Kind::LongText)
                .unwrap_or(1),
        ]),
        _ => PrimaryKey::None,
    };
    let mut table = Table {
        name: format!("t{number}"),
        columns,
        primary_key,
        unique_constraints: Vec::new(),
        large: true,
    };
    if let PrimaryKey::Composite(positions) = &table.primary_key {
        for &position in positions {
            table.columns[position].not_null = true;
        }
    }
    if random.gen_bool(0.3)
        && let Some(&position) = unique_positions.choose(random)
        && table.row_id() != Some(position)
    {
        table.unique_constraints.push(vec![position]);
    }
    (table, kinds)
}

/// An index of one to three columns, some descending; unique only when it covers a column
/// whose loaded values are distinct.
fn large_index(random: &mut StdRng, table: &Table, kinds: &[Kind], name: &str) -> Index {
    let width = random.gen_range(1..=3.min(table.columns.len()));
    let mut positions: Vec<usize> = (0..table.columns.len()).collect();
    positions.shuffle(random);
    positions.truncate(width);
    // Basalt limits an index entry to 1019 bytes (54000), SQLite does not: at most one
    // long text per index.
    if let Some(first) = positions
        .iter()
        .copied()
        .find(|&position| kinds[position] == Kind::LongText)
    {
        positions.retain(|&position| position == first || kinds[position] != Kind::LongText);
    }
    let distinct = positions
        .iter()
        .any(|&position| matches!(kinds[position], Kind::UniqueInteger | Kind::LongText));
    Index {
        name: name.to_owned(),
        table: table.name.clone(),
        columns: positions
            .into_iter()
            .map(|position| (position, random.gen_bool(0.4)))
            .collect(),
        unique: distinct && random.gen_bool(0.3),
    }
}

const PRIMES: &[u64] = &[
    7919, 104_729, 15_485_863, 32_452_843, 49_979_687, 86_028_121,
];

/// `(g * P + R) % n`: a permutation of 0..n with P prime to n.
fn permutation(random: &mut StdRng, n: u64) -> String {
    let prime = PRIMES
        .iter()
        .copied()
        .filter(|prime| !n.is_multiple_of(*prime))
        .collect::<Vec<_>>()
        .choose(random)
        .copied()
        .unwrap_or(1);
    // Keep g * P below 2^63: g < 90,000 and P < 10^8.
    format!("((g * {prime} + {}) % {n})", random.gen_range(0..n))
}

/// `(g * A + B) % 9973`: a scrambled number in 0..9973.
fn hash(random: &mut StdRng) -> String {
    format!(
        "((g * {} + {}) % 9973)",
        random.gen_range(1..9973),
        random.gen_range(0..9973)
    )
}

/// `CASE h % k WHEN 0 THEN 'x' ... END` over `choices`.
fn choose_text(random: &mut StdRng, choices: &[&str]) -> String {
    let arms: Vec<String> = choices
        .iter()
        .enumerate()
        .map(|(position, text)| format!("WHEN {position} THEN '{}'", text.replace('\'', "''")))
        .collect();
    format!(
        "(CASE ({} % {}) {} END)",
        hash(random),
        choices.len(),
        arms.join(" ")
    )
}

/// The load of `rows` rows into `table`; the row id and unique integer columns get the
/// bounds of their loaded values as their domains.
fn load(random: &mut StdRng, table: &mut Table, kinds: &[Kind], rows: u64) -> Load {
    let filler: String = (0..500)
        .map(|_| {
            *b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789 _%-"
                .choose(random)
                .unwrap_or(&b'x') as char
        })
        .collect();
    let expressions = table
        .columns
        .iter_mut()
        .zip(kinds)
        .map(|(column, &kind)| {
            let value = match kind {
                Kind::RowId | Kind::UniqueInteger => {
                    let step = random.gen_range(1..=3);
                    let offset = random.gen_range(-50..=50);
                    let high = offset + (rows as i64 - 1).max(0) * step;
                    column.domain = Domain::Wide { low: offset, high };
                    format!("({} * {step} + ({offset}))", permutation(random, rows))
                }
                Kind::DenseInteger { wide: false } => format!("({} % 10 - 3)", hash(random)),
                Kind::DenseInteger { wide: true } => format!("({} % 51 - 10)", hash(random)),
                Kind::Flag => format!("({} % 2)", hash(random)),
                Kind::Real { wide: false } => format!("(({} % 17 - 6) / 4.0)", hash(random)),
                Kind::Real { wide: true } => format!("(({} % 121 - 40) / 4.0)", hash(random)),
                Kind::ShortText { wide: false } => choose_text(random, TEXTS),
                Kind::ShortText { wide: true } => choose_text(random, WIDE_TEXTS),
                Kind::LongText => format!(
                    "({} || substr(CAST((100000 + {}) AS TEXT), 2) || substr('{filler}', 1, {}))",
                    choose_text(random, LONG_TEXT_PREFIXES),
                    permutation(random, rows),
                    format_args!("(45 + ({} % 451))", hash(random))
                ),
            };
            let null_share = match random.gen_range(0..4) {
                0 => 0,
                1 => 5,
                2 => 30,
                _ => 60,
            };
            if column.not_null || kind == Kind::RowId || null_share == 0 {
                value
            } else {
                format!(
                    "(CASE WHEN ({} % 100) < {null_share} THEN NULL ELSE {value} END)",
                    hash(random)
                )
            }
        })
        .collect();
    Load {
        table: table.name.clone(),
        columns: table
            .columns
            .iter()
            .map(|column| column.name.clone())
            .collect(),
        expressions,
        rows,
    }
}

/// A random value for a column of a large table (an INSERT's or UPDATE's constant).
pub fn random_large_value(random: &mut StdRng, column: &Column) -> Literal {
    match column.domain {
        Domain::Small => random_column_value(random, column),
        _ if !column.not_null && random.gen_bool(0.05) => Literal::Null,
        Domain::Wide { low, high } => Literal::Integer(wide_constant(random, low, high)),
        Domain::LongText => Literal::Text(long_text(random)),
    }
}

/// How far beyond its domain `low..=high` a wide column's constants may lie: every value
/// such a column holds is within `low - margin ..= high + margin`.
pub fn wide_margin(low: i64, high: i64) -> i64 {
    ((high - low) / 10).max(5)
}

/// A constant in or near `low..=high`: the bounds themselves, values beyond them on
/// either side (at most [`wide_margin`]), and (mostly) values inside.
pub fn wide_constant(random: &mut StdRng, low: i64, high: i64) -> i64 {
    let margin = wide_margin(low, high);
    match random.gen_range(0..20) {
        0 => low,
        1 => high,
        2 => low - random.gen_range(1..=margin),
        3 => high + random.gen_range(1..=margin),
        4 => low + random.gen_range(-2..=2),
        5 => high + random.gen_range(-2..=2),
        _ => random.gen_range(low..=high.max(low)),
    }
}

/// A long text like the loaded ones: a prefix, five digits, a filler of 45–495 bytes.
pub fn long_text(random: &mut StdRng) -> String {
    let prefix = LONG_TEXT_PREFIXES.choose(random).copied().unwrap_or("a");
    let digits = random.gen_range(0..100_000);
    let length = random.gen_range(45..=495);
    let filler: String = (0..length)
        .map(|_| *b"abcxyzABC012 _%-".choose(random).unwrap_or(&b'x') as char)
        .collect();
    format!("{prefix}{digits:05}{filler}")
}

/// A text constant for comparing with long texts: a prefix, perhaps with some digits.
pub fn long_text_bound(random: &mut StdRng) -> String {
    let prefix = LONG_TEXT_PREFIXES.choose(random).copied().unwrap_or("a");
    match random.gen_range(0..4) {
        0 => prefix.to_owned(),
        1 => format!("{prefix}{}", random.gen_range(0..10)),
        2 => format!("{prefix}{:03}", random.gen_range(0..1000)),
        _ => format!("{prefix}{:05}", random.gen_range(0..100_000)),
    }
}
