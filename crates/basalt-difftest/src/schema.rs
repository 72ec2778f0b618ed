//! Random schemas: tables with typed columns, primary keys, UNIQUE constraints and
//! secondary indexes, and the DDL that creates them on each engine.
//!
//! Every column has one of three storage types and only ever holds values of that type
//! (see the crate docs on type affinity). An INTEGER column may be a "flag": it only holds
//! 0, 1 or NULL, so it can stand in for a boolean in both dialects. Primary key columns are
//! always declared NOT NULL explicitly, because SQLite lets a non-INTEGER primary key hold
//! NULLs while PostgreSQL (and Basalt) do not.

use rand::Rng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;

use crate::ast::{BinaryOperator, Literal};
use crate::values::random_value;

/// The storage type of a column, and the static type of a scalar expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SqlType {
    Integer,
    Real,
    Text,
}

impl SqlType {
    /// The type name used in CREATE TABLE.
    pub fn name(self) -> &'static str {
        match self {
            SqlType::Integer => "INTEGER",
            SqlType::Real => "REAL",
            SqlType::Text => "TEXT",
        }
    }

    /// Whether values of the two types may be compared with each other: numbers with
    /// numbers, text with text (never text with numbers: see the crate docs).
    pub fn comparable_with(self, other: SqlType) -> bool {
        self.is_numeric() == other.is_numeric()
    }

    /// INTEGER or REAL.
    pub fn is_numeric(self) -> bool {
        matches!(self, SqlType::Integer | SqlType::Real)
    }
}

/// Where a column's values come from: the small default domains of `values.rs`, or one
/// of the two kinds of large-table columns (`--large`, see [`crate::large_schema`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Domain {
    /// The small, NULL-heavy domains of `values.rs` (integers within ±100 at most).
    Small,
    /// Integers anywhere in `low..=high`, which may lie far beyond ±100: row ids and unique
    /// keys of large tables. Such a column is never an operand of arithmetic or of an
    /// aggregate other than count / min / max (products of a few would overflow, which is
    /// an error in Basalt and a switch to REAL in SQLite); it is compared with constants
    /// of its range, joined on, and output as it is. The range is a bound, not exact:
    /// the generator widens it as statements move or add keys.
    Wide { low: i64, high: i64 },
    /// Text of about 50–500 bytes: a prefix of `values.rs`' short texts, five digits and a
    /// filler, so a leaf holds few rows and an index on it few keys.
    LongText,
}

impl Domain {
    /// Whether the column may be an operand of arithmetic and aggregates.
    pub fn arithmetic(self) -> bool {
        !matches!(self, Domain::Wide { .. })
    }
}

/// One column of a generated table.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub name: String,
    pub sql_type: SqlType,
    pub not_null: bool,
    /// An INTEGER column holding only 0, 1 or NULL.
    pub flag: bool,
    /// Values are drawn from a wider range (used for key columns so inserts can succeed).
    pub wide_domain: bool,
    /// `DEFAULT value` (what an INSERT that omits the column stores).
    pub default: Option<Literal>,
    /// `CHECK (column <operator> value)`; some generated values violate it.
    pub check: Option<(BinaryOperator, Literal)>,
    /// Where its values come from.
    pub domain: Domain,
}

impl Column {
    /// Whether `value` satisfies the column's CHECK (NULL always does, as in SQL).
    pub fn accepts(&self, value: &Literal) -> bool {
        let Some((operator, bound)) = &self.check else {
            return true;
        };
        let order = match (value, bound) {
            (Literal::Integer(value), Literal::Integer(bound)) => value.cmp(bound),
            (Literal::Real(value), Literal::Real(bound)) => value
                .partial_cmp(bound)
                .unwrap_or(std::cmp::Ordering::Equal),
            (Literal::Text(value), Literal::Text(bound)) => value.as_bytes().cmp(bound.as_bytes()),
            _ => return true,
        };
        match operator {
            BinaryOperator::GreaterOrEqual => order.is_ge(),
            BinaryOperator::LessOrEqual => order.is_le(),
            _ => order.is_ne(),
        }
    }
}

/// How a table's rows are identified.
#[derive(Debug, Clone, PartialEq)]
pub enum PrimaryKey {
    /// No primary key.
    None,
    /// `INTEGER PRIMARY KEY` on the column with this position: the row id.
    RowId(usize),
    /// `PRIMARY KEY (...)` over these column positions (never the row id).
    Composite(Vec<usize>),
}

/// A generated table.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub name: String,
    pub columns: Vec<Column>,
    pub primary_key: PrimaryKey,
    /// Table-level `UNIQUE (...)` constraints, as column positions.
    pub unique_constraints: Vec<Vec<usize>>,
    /// Thousands of rows or more (`--large`): queries read it in at most one FROM item
    /// (other joined items are small tables), and subqueries never read it.
    pub large: bool,
}

/// A secondary index created with CREATE [UNIQUE] INDEX.
#[derive(Debug, Clone, PartialEq)]
pub struct Index {
    pub name: String,
    pub table: String,
    /// Column positions with a descending flag.
    pub columns: Vec<(usize, bool)>,
    pub unique: bool,
}

impl Table {
    /// Column positions that belong to a primary key, UNIQUE constraint or unique index:
    /// UPDATE only assigns constants to these (see the crate docs on uniqueness checks).
    pub fn key_columns(&self, indexes: &[Index]) -> Vec<usize> {
        let mut keys: Vec<usize> = match &self.primary_key {
            PrimaryKey::None => Vec::new(),
            PrimaryKey::RowId(position) => vec![*position],
            PrimaryKey::Composite(positions) => positions.clone(),
        };
        keys.extend(self.unique_constraints.iter().flatten().copied());
        for index in indexes
            .iter()
            .filter(|index| index.unique && index.table == self.name)
        {
            keys.extend(index.columns.iter().map(|(position, _)| *position));
        }
        keys.sort_unstable();
        keys.dedup();
        keys
    }

    /// Every set of columns that must be unique: the primary key, UNIQUE constraints and
    /// unique indexes (what an `ON CONFLICT (...)` target may name).
    pub fn unique_keys(&self, indexes: &[Index]) -> Vec<Vec<usize>> {
        let mut keys: Vec<Vec<usize>> = match &self.primary_key {
            PrimaryKey::None => Vec::new(),
            PrimaryKey::RowId(position) => vec![vec![*position]],
            PrimaryKey::Composite(positions) => vec![positions.clone()],
        };
        keys.extend(self.unique_constraints.iter().cloned());
        for index in indexes
            .iter()
            .filter(|index| index.unique && index.table == self.name)
        {
            keys.push(
                index
                    .columns
                    .iter()
                    .map(|(position, _)| *position)
                    .collect(),
            );
        }
        keys
    }

    /// Columns an index can seek on: the row id, and the first column of the primary key,
    /// of each UNIQUE constraint and of each index.
    pub fn seekable_columns(&self, indexes: &[Index]) -> Vec<usize> {
        let mut columns: Vec<usize> = self
            .unique_keys(indexes)
            .iter()
            .filter_map(|key| key.first().copied())
            .collect();
        columns.extend(
            indexes
                .iter()
                .filter(|index| index.table == self.name)
                .filter_map(|index| index.columns.first().map(|(position, _)| *position)),
        );
        columns.sort_unstable();
        columns.dedup();
        columns
    }

    /// The row id column, if the table has one.
    pub fn row_id(&self) -> Option<usize> {
        match self.primary_key {
            PrimaryKey::RowId(position) => Some(position),
            _ => None,
        }
    }

    /// CREATE TABLE for this table. Without `with_keys` the primary key and UNIQUE
    /// constraints are left out (NOT NULL stays): the index-free twin database.
    pub fn create_sql(&self, with_keys: bool) -> String {
        let mut parts: Vec<String> = self
            .columns
            .iter()
            .enumerate()
            .map(|(position, column)| {
                let mut text = format!("{} {}", column.name, column.sql_type.name());
                let row_id = self.row_id() == Some(position);
                if row_id && with_keys {
                    text.push_str(" PRIMARY KEY");
                } else if column.not_null || row_id {
                    text.push_str(" NOT NULL");
                }
                if let Some(default) = &column.default {
                    text.push_str(&format!(" DEFAULT {default}"));
                }
                if let Some((operator, bound)) = &column.check {
                    text.push_str(&format!(
                        " CHECK ({} {} {bound})",
                        column.name,
                        operator.symbol()
                    ));
                }
                text
            })
            .collect();
        if with_keys {
            if let PrimaryKey::Composite(positions) = &self.primary_key {
                parts.push(format!("PRIMARY KEY ({})", self.column_list(positions)));
            }
            for unique in &self.unique_constraints {
                parts.push(format!("UNIQUE ({})", self.column_list(unique)));
            }
        }
        format!("CREATE TABLE {} ({})", self.name, parts.join(", "))
    }

    fn column_list(&self, positions: &[usize]) -> String {
        positions
            .iter()
            .map(|&position| self.columns[position].name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl Index {
    /// CREATE [UNIQUE] INDEX for this index.
    pub fn create_sql(&self, table: &Table) -> String {
        let columns: Vec<String> = self
            .columns
            .iter()
            .map(|&(position, descending)| {
                let name = &table.columns[position].name;
                if descending {
                    format!("{name} DESC")
                } else {
                    name.clone()
                }
            })
            .collect();
        format!(
            "CREATE {}INDEX {} ON {} ({})",
            if self.unique { "UNIQUE " } else { "" },
            self.name,
            self.table,
            columns.join(", ")
        )
    }
}

/// A random schema: 2–4 tables and their indexes.
#[derive(Debug, Clone, PartialEq)]
pub struct Schema {
    pub tables: Vec<Table>,
    pub indexes: Vec<Index>,
}

impl Schema {
    /// The table called `name`.
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|table| table.name == name)
    }
}

/// Generates a schema.
pub fn random_schema(random: &mut StdRng) -> Schema {
    let table_count = random.gen_range(2..=4);
    let mut tables = Vec::new();
    let mut indexes = Vec::new();
    for table_number in 0..table_count {
        let mut table = random_table(random, table_number);
        let index_count = random.gen_range(0..=3);
        for index_number in 0..index_count {
            let name = format!("{}_index{index_number}", table.name);
            indexes.push(random_index(random, &mut table, &name));
        }
        tables.push(table);
    }
    Schema { tables, indexes }
}

pub fn random_table(random: &mut StdRng, table_number: usize) -> Table {
    let column_count = random.gen_range(2..=5);
    let mut columns: Vec<Column> = (0..column_count)
        .map(|position| {
            let sql_type = *[
                SqlType::Integer,
                SqlType::Integer,
                SqlType::Real,
                SqlType::Text,
                SqlType::Text,
            ]
            .choose(random)
            .unwrap_or(&SqlType::Integer);
            let flag = sql_type == SqlType::Integer && random.gen_bool(0.2);
            Column {
                name: format!("c{position}"),
                sql_type,
                not_null: random.gen_bool(0.25),
                flag,
                wide_domain: false,
                default: None,
                check: None,
                domain: Domain::Small,
            }
        })
        .collect();
    let primary_key = match random.gen_range(0..3) {
        0 => PrimaryKey::None,
        1 => {
            // The row id is the first column, an INTEGER (or another, below).
            columns[0].sql_type = SqlType::Integer;
            columns[0].flag = false;
            columns[0].wide_domain = true;
            PrimaryKey::RowId(0)
        }
        _ => {
            let width = random.gen_range(1..=2.min(columns.len()));
            let mut positions: Vec<usize> = (0..columns.len()).collect();
            positions.shuffle(random);
            positions.truncate(width);
            for &position in &positions {
                columns[position].not_null = true;
                columns[position].flag = false;
                columns[position].wide_domain = width == 1 || random.gen_bool(0.5);
            }
            // In SQLite a one-column INTEGER primary key is the row id however declared.
            match positions[..] {
                [position] if columns[position].sql_type == SqlType::Integer => {
                    columns[position].not_null = false;
                    PrimaryKey::RowId(position)
                }
                _ => PrimaryKey::Composite(positions),
            }
        }
    };
    let mut unique_constraints = Vec::new();
    if random.gen_bool(0.3) {
        let position = random.gen_range(0..columns.len());
        if !matches!(primary_key, PrimaryKey::RowId(p) if p == position) {
            columns[position].wide_domain = true;
            columns[position].flag = false;
            let mut unique = vec![position];
            if random.gen_bool(0.4) {
                let other = random.gen_range(0..columns.len());
                if other != position {
                    unique.push(other);
                }
            }
            unique_constraints.push(unique);
        }
    }
    // Defaults and CHECKs last, once every column's type is settled; none on the row id.
    let row_id = match primary_key {
        PrimaryKey::RowId(position) => Some(position),
        _ => None,
    };
    for (position, column) in columns.iter_mut().enumerate() {
        if row_id == Some(position) {
            continue;
        }
        let sql_type = column.sql_type;
        column.default = random.gen_bool(0.15).then(|| match column.flag {
            true => Literal::Integer(random.gen_range(0..=1)),
            false => random_value(random, sql_type, false),
        });
        column.check = random.gen_bool(0.15).then(|| match sql_type {
            SqlType::Integer if column.flag => (BinaryOperator::NotEqual, Literal::Integer(1)),
            SqlType::Integer => (BinaryOperator::GreaterOrEqual, Literal::Integer(-2)),
            SqlType::Real => (BinaryOperator::LessOrEqual, Literal::Real(2.0)),
            SqlType::Text => (BinaryOperator::NotEqual, Literal::Text("ab".to_owned())),
        });
    }
    Table {
        name: format!("t{table_number}"),
        columns,
        primary_key,
        unique_constraints,
        large: false,
    }
}

/// A random index on `table` called `name`; a unique one widens its columns' domains.
pub fn random_index(random: &mut StdRng, table: &mut Table, name: &str) -> Index {
    let width = random.gen_range(1..=3.min(table.columns.len()));
    let mut positions: Vec<usize> = (0..table.columns.len()).collect();
    positions.shuffle(random);
    positions.truncate(width);
    // Basalt limits an index entry to 1019 bytes: at most one long text per index.
    if let Some(first) = positions
        .iter()
        .position(|&position| table.columns[position].domain == Domain::LongText)
    {
        let first = positions[first];
        positions.retain(|&position| {
            position == first || table.columns[position].domain != Domain::LongText
        });
    }
    let columns: Vec<(usize, bool)> = positions
        .into_iter()
        .map(|position| (position, random.gen_bool(0.3)))
        .collect();
    // Unique indexes reject rows on narrow domains; keep them rare and their columns wide.
    let unique = random.gen_bool(0.15);
    if unique {
        for &(position, _) in &columns {
            table.columns[position].wide_domain = true;
            table.columns[position].flag = false;
        }
    }
    Index {
        name: name.to_owned(),
        table: table.name.clone(),
        columns,
        unique,
    }
}
