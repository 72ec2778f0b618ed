//! Bound DDL and session statements: the binder's output for statements that do not run
//! through operators. The executor (`crate::exec::ddl`) applies them to the catalog and the
//! storage trees inside the current write transaction.

use crate::catalog::{ColumnDef, ForeignKeyDef};
use crate::storage::keys::KeyOrder;

/// `CREATE TABLE`. Column `slot`s are assigned 0.. in order; root pages are allocated when
/// the statement executes.
#[derive(Clone, Debug, PartialEq)]
pub struct CreateTable {
    pub name: String,
    pub if_not_exists: bool,
    pub columns: Vec<ColumnDef>,
    /// The column that is the row id (`INTEGER PRIMARY KEY`, not DESC), if any.
    pub row_id_column: Option<usize>,
    /// PRIMARY KEY columns (also set when it is the row id column).
    pub primary_key: Vec<usize>,
    /// UNIQUE constraints (column-level and table-level), each becoming an implicit unique
    /// index; a PRIMARY KEY that is not the row id is the first entry.
    pub unique_constraints: Vec<Vec<usize>>,
    pub checks: Vec<String>,
    pub foreign_keys: Vec<ForeignKeyDef>,
    /// `CREATE TABLE ... AS SELECT`: the query's SQL, whose rows are inserted.
    pub as_query: Option<String>,
    /// The sequences of SERIAL columns, created with the table and owned by it.
    pub sequences: Vec<crate::catalog::SequenceDef>,
}

/// `CREATE [UNIQUE] INDEX`.
#[derive(Clone, Debug, PartialEq)]
pub struct CreateIndex {
    pub name: String,
    pub table: String,
    pub columns: Vec<(usize, KeyOrder)>,
    pub unique: bool,
    /// The access method (`USING`), chosen by [`crate::catalog::IndexMethod::from_name`].
    pub method: crate::catalog::IndexMethod,
    /// `WITH (name = value, ...)`: checked by the method, kept as the catalog stores them.
    pub options: Vec<(String, String)>,
    pub if_not_exists: bool,
}

/// `ALTER TABLE` actions.
#[derive(Clone, Debug, PartialEq)]
pub enum AlterTable {
    AddColumn {
        table: String,
        column: ColumnDef,
        /// `REFERENCES` on the new column (validated; at most one, in practice).
        foreign_keys: Vec<ForeignKeyDef>,
        if_not_exists: bool,
    },
    DropColumn {
        table: String,
        column: String,
        if_exists: bool,
    },
    RenameColumn {
        table: String,
        old_name: String,
        new_name: String,
    },
    RenameTable {
        table: String,
        new_name: String,
    },
    /// `ADD [CONSTRAINT name] FOREIGN KEY ...` (validated; existing rows are checked when it
    /// runs).
    AddForeignKey {
        table: String,
        key: ForeignKeyDef,
    },
    /// `ADD [CONSTRAINT name] PRIMARY KEY (columns)` or `UNIQUE (columns)`: a unique index
    /// over the columns (positions, validated), built from the existing rows; a primary key
    /// also makes its columns NOT NULL.
    AddUnique {
        table: String,
        name: Option<String>,
        columns: Vec<usize>,
        primary: bool,
    },
    /// `ALTER [COLUMN] c SET DEFAULT expr` / `DROP DEFAULT` (the expression validated as
    /// for CREATE TABLE; the column by position).
    SetDefault {
        table: String,
        column: usize,
        default: Option<String>,
    },
    /// `ALTER [COLUMN] c ADD GENERATED ... AS IDENTITY`: the column (an integer column,
    /// NOT NULL, without a default) takes `nextval` of the new sequence owned by the table.
    AddIdentity {
        table: String,
        column: usize,
        sequence: crate::catalog::SequenceDef,
    },
    /// `DROP CONSTRAINT name`: a foreign key.
    DropConstraint {
        table: String,
        name: String,
        if_exists: bool,
    },
}

/// Kinds of object for DROP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectKind {
    Table,
    Index,
    View,
}

/// PostgreSQL's four isolation levels, as a transaction asks for them. Basalt runs every
/// transaction the same way (one snapshot per transaction, one writer at a time, 40001 when a
/// transaction writes after another connection's commit made its reads stale), which is
/// serializable; the level asked for is kept only to be shown (`SHOW transaction_isolation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IsolationLevel {
    ReadUncommitted,
    ReadCommitted,
    RepeatableRead,
    Serializable,
}

impl IsolationLevel {
    /// The name `SHOW transaction_isolation` gives, as PostgreSQL spells it.
    pub fn name(self) -> &'static str {
        match self {
            IsolationLevel::ReadUncommitted => "read uncommitted",
            IsolationLevel::ReadCommitted => "read committed",
            IsolationLevel::RepeatableRead => "repeatable read",
            IsolationLevel::Serializable => "serializable",
        }
    }
}

/// The modes a BEGIN or SET TRANSACTION gives (`None`: not given).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TransactionModes {
    pub isolation: Option<IsolationLevel>,
    /// `READ ONLY` (true) or `READ WRITE` (false).
    pub read_only: Option<bool>,
}

/// Transaction control.
#[derive(Clone, Debug, PartialEq)]
pub enum TransactionControl {
    /// BEGIN; `immediate` for SQLite's `BEGIN IMMEDIATE` and `BEGIN EXCLUSIVE`, which take
    /// the writer slot at once (waiting up to the busy timeout) instead of at the first write.
    Begin {
        immediate: bool,
        /// `ISOLATION LEVEL ...`, `READ ONLY` / `READ WRITE` given with BEGIN.
        modes: TransactionModes,
    },
    /// `SET TRANSACTION ...` (`session: false`: this transaction's modes) or `SET SESSION
    /// CHARACTERISTICS AS TRANSACTION ...` (`session: true`: the defaults of transactions
    /// begun afterwards).
    SetTransaction {
        modes: TransactionModes,
        session: bool,
    },
    Commit,
    Rollback,
    Savepoint(String),
    ReleaseSavepoint(String),
    RollbackToSavepoint(String),
}

/// A bound statement that is not a query or DML.
#[derive(Clone, Debug, PartialEq)]
pub enum DdlStatement {
    CreateTable(CreateTable),
    CreateIndex(CreateIndex),
    CreateView {
        name: String,
        column_names: Vec<String>,
        query: String,
        if_not_exists: bool,
        or_replace: bool,
    },
    /// `TRUNCATE` of existing tables (each named once, as written).
    Truncate {
        tables: Vec<String>,
        restart_identity: bool,
        cascade: bool,
    },
    Drop {
        kind: ObjectKind,
        names: Vec<String>,
        if_exists: bool,
        /// `DROP TABLE ... CASCADE`: also drop the foreign keys of other tables that
        /// reference the dropped tables (PostgreSQL's meaning; the tables themselves stay).
        cascade: bool,
    },
    /// `CREATE TRIGGER` (validated: the table, timing and every statement bound).
    CreateTrigger {
        trigger: crate::catalog::TriggerDef,
        if_not_exists: bool,
    },
    /// `DROP TRIGGER [IF EXISTS] name`.
    DropTrigger {
        name: String,
        if_exists: bool,
    },
    /// `CREATE SEQUENCE` (options validated; the root page is allocated when it runs).
    CreateSequence {
        sequence: crate::catalog::SequenceDef,
        if_not_exists: bool,
    },
    /// `ALTER SEQUENCE`: the sequence's new definition and the value to restart at, or
    /// `None` for `IF EXISTS` on a sequence that does not exist.
    AlterSequence {
        name: String,
        change: Option<(crate::catalog::SequenceDef, Option<i64>)>,
    },
    /// `DROP SEQUENCE [IF EXISTS] name, ...`.
    DropSequence {
        names: Vec<String>,
        if_exists: bool,
    },
    AlterTable(AlterTable),
    Transaction(TransactionControl),
    /// `PRAGMA name [= value]` / `SET name = value` / `SHOW name`: value as text, if given.
    Setting {
        name: String,
        value: Option<String>,
        show: bool,
    },
    /// `RESET name` / `SET name TO DEFAULT` (`Some`), `RESET ALL` (`None`): back to the
    /// session's defaults (see `Session::keep_settings_as_defaults`).
    Reset {
        name: Option<String>,
    },
    /// `ANALYZE [table]`.
    Analyze {
        table: Option<String>,
    },
    /// `REINDEX [name]`: rebuild these indexes (resolved at bind time: the named index, every
    /// index of the named table, or every index).
    Reindex {
        indexes: Vec<String>,
    },
    /// `DECLARE`, `FETCH`, `MOVE` and `CLOSE` of a session's cursors.
    Cursor(CursorStatement),
    /// `VACUUM [FULL] [table]`: rewrite the whole file without free pages (a named table is
    /// checked to exist; the whole file is rewritten all the same, as there is one file).
    /// With ANALYZE, `analyze` holds the table to analyze afterwards (`None` inside: every
    /// table).
    Vacuum {
        analyze: Option<Option<String>>,
    },
    /// A statement accepted for compatibility that changes nothing Basalt stores: pg_dump's
    /// `ALTER TABLE ... OWNER TO` (Basalt has no roles) and `COMMENT ON` (comments are not
    /// kept). The binder has checked that the object named exists.
    NoEffect,
}

/// A cursor statement (the session runs it: cursors are per-session state).
#[derive(Clone, Debug, PartialEq)]
pub enum CursorStatement {
    /// `DECLARE name [NO] SCROLL CURSOR [WITH | WITHOUT HOLD] FOR query`.
    Declare {
        name: String,
        /// The query, bound once here to report its errors and parameters at DECLARE; it
        /// is planned again when the cursor opens.
        query: Box<sqlparser::ast::Query>,
        /// `SCROLL` (`Some(true)`), `NO SCROLL` (`Some(false)`) or neither.
        scroll: Option<bool>,
        hold: bool,
    },
    /// `FETCH` (rows returned) or `MOVE` (`fetch: false`: the position moves, no rows).
    Fetch {
        name: String,
        direction: CursorDirection,
        fetch: bool,
    },
    /// `CLOSE name`, or `CLOSE ALL` (`None`).
    Close(Option<String>),
}

/// Where a FETCH or MOVE goes, in PostgreSQL's terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CursorDirection {
    /// `ABSOLUTE n` (`FIRST` is 1, `LAST` -1; negative counts from the end).
    Absolute(i64),
    /// `RELATIVE n` (`NEXT` is 1, `PRIOR` -1, 0 re-reads the current row).
    Relative(i64),
    /// `n`, `FORWARD n` and `ALL` / `FORWARD ALL` (`None`): up to n rows forward.
    Forward(Option<i64>),
    /// `BACKWARD n` and `BACKWARD ALL` (`None`): up to n rows backward.
    Backward(Option<i64>),
}
