//! SQLSTATE codes: every error code Basalt can raise, as a named constant.
//!
//! Each error the engine reports carries a five-character SQLSTATE, the code a PostgreSQL
//! client would see for the same mistake, so drivers and the future wire server can branch
//! on it. This module is the one place those codes are written down: [`SqlState`] has a
//! private field, so outside this module a code can only be one of the constants below and a
//! misspelled code (`UNDEFINED_TABEL`, or a transposed `"42P10"` for `"42P01"`) is a compile
//! error rather than a wrong code at run time. Each constant is named after PostgreSQL's
//! condition name (its errcodes appendix) and documents when Basalt raises it.
//!
//! How it fits: the bottom layers raise these — the storage mapping
//! (`From<StorageError> for ExecError`), the value semantics (`TypeError::sqlstate`), the
//! parser (`SqlSyntaxError`), the binder (`BindError`) and the executor (`ExecError`) — and
//! the API's [`crate::Error`] carries the code up to the caller (`Error::sqlstate`, or
//! `Error::code` as text).

use std::fmt;

/// A SQLSTATE code; the only values are the constants of this module.
///
/// ```
/// use basalt::sqlstate;
///
/// let conn = basalt::Database::open_in_memory()?.connect();
/// let error = conn.execute("SELECT * FROM missing", ()).unwrap_err();
/// assert_eq!(error.sqlstate(), sqlstate::UNDEFINED_TABLE);
/// assert_eq!(error.code(), "42P01");
/// # Ok::<(), basalt::Error>(())
/// ```
///
/// A code that is not one of the constants does not compile, since the field is private:
///
/// ```compile_fail
/// let typo = basalt::SqlState("42P0l");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SqlState(&'static str);

impl SqlState {
    /// The five-character code, e.g. `"42P01"`.
    pub const fn code(self) -> &'static str {
        self.0
    }

    /// The class: the code's first two characters (`"23"` for every integrity constraint
    /// violation), which is how the SQL standard groups codes.
    pub fn class(self) -> &'static str {
        // Every code is five ASCII characters (the tests check it), so the split never
        // fails; the fallback only keeps this free of a panic path.
        self.0.get(..2).unwrap_or(self.0)
    }
}

impl fmt::Display for SqlState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

// Class 08 — Connection Exception. Basalt has no connection protocol yet; PostgreSQL reports
// a mismatch between a statement's parameters and the values bound to it in this class.

/// A statement's parameters and the values supplied for them do not match in number or name.
pub const PROTOCOL_VIOLATION: SqlState = SqlState("08P01");

// Class 0A — Feature Not Supported.

/// SQL that parses but uses something Basalt does not implement.
pub const FEATURE_NOT_SUPPORTED: SqlState = SqlState("0A000");

// Class 21 — Cardinality Violation.

/// A scalar subquery returned more than one row.
pub const CARDINALITY_VIOLATION: SqlState = SqlState("21000");

// Class 22 — Data Exception: a value that is malformed, out of range or not allowed.

/// A value an operation does not allow, without a more specific code (pgvector's
/// dimension mismatches).
pub const DATA_EXCEPTION: SqlState = SqlState("22000");
/// Text longer than a `VARCHAR(n)` / `CHAR(n)` column allows.
pub const STRING_DATA_RIGHT_TRUNCATION: SqlState = SqlState("22001");
/// A number outside its type's range: overflow, an out-of-range literal, exhausted row ids.
pub const NUMERIC_VALUE_OUT_OF_RANGE: SqlState = SqlState("22003");
/// A NULL where a function or frame clause needs a value.
pub const NULL_VALUE_NOT_ALLOWED: SqlState = SqlState("22004");
/// Text that is not a date or timestamp in any accepted format.
pub const INVALID_DATETIME_FORMAT: SqlState = SqlState("22007");
/// A date, time or interval field out of range, or date arithmetic leaving the range.
pub const DATETIME_FIELD_OVERFLOW: SqlState = SqlState("22008");
/// Interval text with a field too large for a 32-bit integer, or a time field out of range.
pub const INTERVAL_FIELD_OVERFLOW: SqlState = SqlState("22015");
/// `nextval` past a sequence's maximum (or minimum) without CYCLE.
pub const SEQUENCE_GENERATOR_LIMIT_EXCEEDED: SqlState = SqlState("2200H");
/// A negative length passed to `substr`.
pub const SUBSTRING_ERROR: SqlState = SqlState("22011");
/// Division or remainder by zero.
pub const DIVISION_BY_ZERO: SqlState = SqlState("22012");
/// A negative `PRECEDING` / `FOLLOWING` offset in a window frame.
pub const INVALID_PRECEDING_OR_FOLLOWING_SIZE: SqlState = SqlState("22013");
/// `ntile` with a bucket count that is not positive.
pub const INVALID_ARGUMENT_FOR_NTILE_FUNCTION: SqlState = SqlState("22014");
/// `nth_value` with a position that is not positive.
pub const INVALID_ARGUMENT_FOR_NTH_VALUE_FUNCTION: SqlState = SqlState("22016");
/// A regular expression that does not compile.
pub const INVALID_REGULAR_EXPRESSION: SqlState = SqlState("2201B");
/// The logarithm of zero or a negative number.
pub const INVALID_ARGUMENT_FOR_LOGARITHM: SqlState = SqlState("2201E");
/// `sqrt` of a negative number, or `power` without a real result.
pub const INVALID_ARGUMENT_FOR_POWER_FUNCTION: SqlState = SqlState("2201F");
/// A negative LIMIT.
pub const INVALID_ROW_COUNT_IN_LIMIT_CLAUSE: SqlState = SqlState("2201W");
/// An argument, option or setting with a value it does not accept (a zero step, `SET`).
pub const INVALID_PARAMETER_VALUE: SqlState = SqlState("22023");
/// A LIKE pattern ending in its escape character.
pub const INVALID_ESCAPE_SEQUENCE: SqlState = SqlState("22025");
/// Text that does not spell a value of the target type (a number, JSON, a UUID, hex).
pub const INVALID_TEXT_REPRESENTATION: SqlState = SqlState("22P02");
/// A jsonpath `.datetime()` on a value that is not a string, or a string in no recognized
/// date/time format.
pub const INVALID_ARGUMENT_FOR_SQL_JSON_DATETIME_FUNCTION: SqlState = SqlState("22031");
/// A strict jsonpath array subscript out of bounds, or not a single number.
pub const INVALID_SQL_JSON_SUBSCRIPT: SqlState = SqlState("22033");
/// A jsonpath operand or `jsonb_path_match` result that must be one item and is not.
pub const SINGLETON_SQL_JSON_ITEM_REQUIRED: SqlState = SqlState("22038");
/// A strict jsonpath array accessor or `.size()` on something that is not an array.
pub const SQL_JSON_ARRAY_NOT_FOUND: SqlState = SqlState("22039");
/// A strict jsonpath member accessor on a non-object, or a key the object lacks.
pub const SQL_JSON_MEMBER_NOT_FOUND: SqlState = SqlState("2203A");
/// A jsonpath unary `+` / `-` on something that is not a number.
pub const SQL_JSON_NUMBER_NOT_FOUND: SqlState = SqlState("2203B");
/// A strict jsonpath `.*` or `.keyvalue()` on something that is not an object.
pub const SQL_JSON_OBJECT_NOT_FOUND: SqlState = SqlState("2203C");
/// A jsonpath numeric item method (`.abs()`, `.double()` ...) on a value it cannot take.
pub const NON_NUMERIC_SQL_JSON_ITEM: SqlState = SqlState("22036");
/// Array subscript or shape error, e.g. concatenating arrays of different dimensions.
pub const ARRAY_SUBSCRIPT_ERROR: SqlState = SqlState("2202E");
/// A character the target cannot hold, such as `\u0000` in text or jsonb.
pub const UNTRANSLATABLE_CHARACTER: SqlState = SqlState("22P05");

// Class 23 — Integrity Constraint Violation: the statement is rolled back.

/// A NULL written to a NOT NULL column.
pub const NOT_NULL_VIOLATION: SqlState = SqlState("23502");
/// A foreign key without its parent row, or a parent row still referenced.
pub const FOREIGN_KEY_VIOLATION: SqlState = SqlState("23503");
/// A duplicate key in a primary key or unique index.
pub const UNIQUE_VIOLATION: SqlState = SqlState("23505");
/// A row for which a CHECK constraint is false.
pub const CHECK_VIOLATION: SqlState = SqlState("23514");

// Class 25 — Invalid Transaction State: the API used at the wrong point of a transaction.

/// A transaction ended while a query on it is still being read.
pub const INVALID_TRANSACTION_STATE: SqlState = SqlState("25000");
/// BEGIN inside a transaction, or VACUUM inside a transaction block.
pub const ACTIVE_SQL_TRANSACTION: SqlState = SqlState("25001");
/// DECLARE CURSOR without WITH HOLD outside a transaction block.
pub const NO_ACTIVE_SQL_TRANSACTION: SqlState = SqlState("25P01");
/// `nextval` / `setval` in a read-only transaction.
pub const READ_ONLY_SQL_TRANSACTION: SqlState = SqlState("25006");

// Class 26 — Invalid SQL Statement Name.

/// A prepared statement described, bound or closed by a name the session does not have.
pub const INVALID_SQL_STATEMENT_NAME: SqlState = SqlState("26000");

// Class 2B — Dependent Privilege Descriptors Still Exist.

/// DROP of an object that another needs: a constraint, view, generated column, default.
pub const DEPENDENT_OBJECTS_STILL_EXIST: SqlState = SqlState("2BP01");

// Class 34 — Invalid Cursor Name.

/// A portal executed, described or closed by a name the session has no portal under.
pub const INVALID_CURSOR_NAME: SqlState = SqlState("34000");

// Class 3B — Savepoint Exception.

/// RELEASE or ROLLBACK TO a savepoint that does not exist.
pub const INVALID_SAVEPOINT_SPECIFICATION: SqlState = SqlState("3B001");

// Class 40 — Transaction Rollback.

/// A deferred write transaction whose snapshot went stale: another connection committed.
pub const SERIALIZATION_FAILURE: SqlState = SqlState("40001");

// Class 42 — Syntax Error or Access Rule Violation: the binder's errors.

/// SQL that does not parse, or that parses but is structurally invalid.
pub const SYNTAX_ERROR: SqlState = SqlState("42601");
/// A column named twice (in a column list, a CREATE TABLE, an ADD COLUMN).
pub const DUPLICATE_COLUMN: SqlState = SqlState("42701");
/// A column reference that more than one table in scope could mean.
pub const AMBIGUOUS_COLUMN: SqlState = SqlState("42702");
/// A column that does not exist.
pub const UNDEFINED_COLUMN: SqlState = SqlState("42703");
/// An index, trigger, type, collation, window, constraint or setting that does not exist.
pub const UNDEFINED_OBJECT: SqlState = SqlState("42704");
/// A schema that does not exist (`'x'::regnamespace`).
pub const UNDEFINED_SCHEMA: SqlState = SqlState("3F000");
/// A constraint or trigger name already used on the table.
pub const DUPLICATE_OBJECT: SqlState = SqlState("42710");
/// A table name used twice in one FROM clause.
pub const DUPLICATE_ALIAS: SqlState = SqlState("42712");
/// An operator call that more than one operator could match.
pub const AMBIGUOUS_FUNCTION: SqlState = SqlState("42725");
/// An aggregate or grouping misuse.
pub const GROUPING_ERROR: SqlState = SqlState("42803");
/// An expression of the wrong type where a specific type is required.
pub const DATATYPE_MISMATCH: SqlState = SqlState("42804");
/// A polymorphic expression whose type cannot be determined, e.g. `ARRAY[]` without a cast.
pub const INDETERMINATE_DATATYPE: SqlState = SqlState("42P18");
/// An object of the wrong kind: a view where a table is needed, DISTINCT on a non-aggregate.
pub const WRONG_OBJECT_TYPE: SqlState = SqlState("42809");
/// A foreign key whose referenced columns are not a primary key or unique, or mismatch.
pub const INVALID_FOREIGN_KEY: SqlState = SqlState("42830");
/// A cast between two types that have none.
pub const CANNOT_COERCE: SqlState = SqlState("42846");
/// No function or operator accepts these argument types.
pub const UNDEFINED_FUNCTION: SqlState = SqlState("42883");
/// A value other than DEFAULT written to a GENERATED ALWAYS column.
pub const GENERATED_ALWAYS: SqlState = SqlState("428C9");
/// A table, view or sequence that does not exist.
pub const UNDEFINED_TABLE: SqlState = SqlState("42P01");
/// CREATE of a table, view, index or sequence whose name is taken.
pub const DUPLICATE_TABLE: SqlState = SqlState("42P07");
/// A portal opened under a name already in use.
pub const DUPLICATE_CURSOR: SqlState = SqlState("42P03");
/// A statement prepared under a name already in use.
pub const DUPLICATE_PREPARED_STATEMENT: SqlState = SqlState("42P05");
/// A bad column reference: ORDER BY, DISTINCT, ON CONFLICT, a CTE's column list.
pub const INVALID_COLUMN_REFERENCE: SqlState = SqlState("42P10");
/// An invalid table definition: two primary keys, AUTOINCREMENT off an INTEGER PRIMARY KEY.
pub const INVALID_TABLE_DEFINITION: SqlState = SqlState("42P16");
/// A generated column's expression that is not immutable or uses another generated column.
pub const INVALID_OBJECT_DEFINITION: SqlState = SqlState("42P17");
/// A recursive CTE of a form that cannot be evaluated.
pub const INVALID_RECURSION: SqlState = SqlState("42P19");
/// A window function or window clause misused.
pub const WINDOWING_ERROR: SqlState = SqlState("42P20");

// Class 53 — Insufficient Resources.

/// The disk filled while writing the database, its log or a spill file.
pub const DISK_FULL: SqlState = SqlState("53100");

// Class 54 — Program Limit Exceeded: a fixed limit of Basalt, not a resource running out.

/// A key, row or value larger than Basalt allows, or JSON nested too deeply.
pub const PROGRAM_LIMIT_EXCEEDED: SqlState = SqlState("54000");
/// Views, triggers or grouping sets nested or multiplied past their limit.
pub const STATEMENT_TOO_COMPLEX: SqlState = SqlState("54001");
/// A table with more columns than Basalt allows.
pub const TOO_MANY_COLUMNS: SqlState = SqlState("54011");
/// GROUPING with more arguments than Basalt allows.
pub const TOO_MANY_ARGUMENTS: SqlState = SqlState("54023");

// Class 55 — Object Not In Prerequisite State.

/// `currval` of a sequence before `nextval` was called on it in this session.
pub const OBJECT_NOT_IN_PREREQUISITE_STATE: SqlState = SqlState("55000");
/// The database file is locked by another process.
pub const OBJECT_IN_USE: SqlState = SqlState("55006");
/// Another connection holds the write lock past the busy timeout.
pub const LOCK_NOT_AVAILABLE: SqlState = SqlState("55P03");

// Class 57 — Operator Intervention.

/// A statement interrupted through its `InterruptHandle`.
pub const QUERY_CANCELED: SqlState = SqlState("57014");

// Class 58 — System Error: errors from outside Basalt.

/// A read or write of the database, its log or a spill file failed (or an earlier one
/// poisoned the handle).
pub const IO_ERROR: SqlState = SqlState("58030");

// Class P0 — PL/pgSQL Error: Basalt's trigger programs and its query helpers.

/// `RAISE(ABORT, message)` (or FAIL / ROLLBACK) in a trigger program.
pub const RAISE_EXCEPTION: SqlState = SqlState("P0001");
/// `query_row` on a query that returned no rows.
pub const NO_DATA_FOUND: SqlState = SqlState("P0002");

// Class XX — Internal Error.

/// A violated invariant of Basalt itself: a bug, reported rather than panicking.
pub const INTERNAL_ERROR: SqlState = SqlState("XX000");
/// A damaged database file, catalog entry or spill file, or a file that is not a database.
pub const DATA_CORRUPTED: SqlState = SqlState("XX001");

/// Every constant above, in the order declared: lets a caller (a wire server mapping codes,
/// the tests below) enumerate the codes. The tests check it lists each constant once.
pub const ALL: &[SqlState] = &[
    PROTOCOL_VIOLATION,
    FEATURE_NOT_SUPPORTED,
    CARDINALITY_VIOLATION,
    DATA_EXCEPTION,
    STRING_DATA_RIGHT_TRUNCATION,
    NUMERIC_VALUE_OUT_OF_RANGE,
    NULL_VALUE_NOT_ALLOWED,
    INVALID_DATETIME_FORMAT,
    DATETIME_FIELD_OVERFLOW,
    INTERVAL_FIELD_OVERFLOW,
    SEQUENCE_GENERATOR_LIMIT_EXCEEDED,
    SUBSTRING_ERROR,
    DIVISION_BY_ZERO,
    INVALID_PRECEDING_OR_FOLLOWING_SIZE,
    INVALID_ARGUMENT_FOR_NTILE_FUNCTION,
    INVALID_ARGUMENT_FOR_NTH_VALUE_FUNCTION,
    INVALID_REGULAR_EXPRESSION,
    INVALID_ARGUMENT_FOR_LOGARITHM,
    INVALID_ARGUMENT_FOR_POWER_FUNCTION,
    INVALID_ROW_COUNT_IN_LIMIT_CLAUSE,
    INVALID_PARAMETER_VALUE,
    INVALID_ESCAPE_SEQUENCE,
    INVALID_TEXT_REPRESENTATION,
    INVALID_ARGUMENT_FOR_SQL_JSON_DATETIME_FUNCTION,
    INVALID_SQL_JSON_SUBSCRIPT,
    SINGLETON_SQL_JSON_ITEM_REQUIRED,
    SQL_JSON_ARRAY_NOT_FOUND,
    SQL_JSON_MEMBER_NOT_FOUND,
    SQL_JSON_NUMBER_NOT_FOUND,
    SQL_JSON_OBJECT_NOT_FOUND,
    NON_NUMERIC_SQL_JSON_ITEM,
    ARRAY_SUBSCRIPT_ERROR,
    UNTRANSLATABLE_CHARACTER,
    NOT_NULL_VIOLATION,
    FOREIGN_KEY_VIOLATION,
    UNIQUE_VIOLATION,
    CHECK_VIOLATION,
    INVALID_TRANSACTION_STATE,
    ACTIVE_SQL_TRANSACTION,
    NO_ACTIVE_SQL_TRANSACTION,
    READ_ONLY_SQL_TRANSACTION,
    INVALID_SQL_STATEMENT_NAME,
    DEPENDENT_OBJECTS_STILL_EXIST,
    INVALID_CURSOR_NAME,
    INVALID_SAVEPOINT_SPECIFICATION,
    SERIALIZATION_FAILURE,
    SYNTAX_ERROR,
    DUPLICATE_COLUMN,
    AMBIGUOUS_COLUMN,
    UNDEFINED_COLUMN,
    UNDEFINED_OBJECT,
    UNDEFINED_SCHEMA,
    DUPLICATE_OBJECT,
    DUPLICATE_ALIAS,
    AMBIGUOUS_FUNCTION,
    GROUPING_ERROR,
    DATATYPE_MISMATCH,
    INDETERMINATE_DATATYPE,
    WRONG_OBJECT_TYPE,
    INVALID_FOREIGN_KEY,
    CANNOT_COERCE,
    UNDEFINED_FUNCTION,
    GENERATED_ALWAYS,
    UNDEFINED_TABLE,
    DUPLICATE_TABLE,
    DUPLICATE_CURSOR,
    DUPLICATE_PREPARED_STATEMENT,
    INVALID_COLUMN_REFERENCE,
    INVALID_TABLE_DEFINITION,
    INVALID_OBJECT_DEFINITION,
    INVALID_RECURSION,
    WINDOWING_ERROR,
    DISK_FULL,
    PROGRAM_LIMIT_EXCEEDED,
    STATEMENT_TOO_COMPLEX,
    TOO_MANY_COLUMNS,
    TOO_MANY_ARGUMENTS,
    OBJECT_NOT_IN_PREREQUISITE_STATE,
    OBJECT_IN_USE,
    LOCK_NOT_AVAILABLE,
    QUERY_CANCELED,
    IO_ERROR,
    RAISE_EXCEPTION,
    NO_DATA_FOUND,
    INTERNAL_ERROR,
    DATA_CORRUPTED,
];

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::{ALL, SqlState};

    /// The `(name, code)` of every constant declared in this file's source, read from the
    /// text so a constant missing from [`ALL`] cannot go unnoticed.
    fn declared() -> Vec<(&'static str, &'static str)> {
        let source = include_str!("sqlstate.rs");
        let mut found = Vec::new();
        for line in source.lines() {
            let Some(rest) = line.strip_prefix("pub const ") else {
                continue;
            };
            let Some((name, value)) = rest.split_once(": SqlState = SqlState(\"") else {
                // Another constant (ALL), unless someone declared a code in another shape.
                assert!(
                    !rest.contains(": SqlState"),
                    "constant not in the form `pub const NAME: SqlState = SqlState(\"CODE\");`: {line}"
                );
                continue;
            };
            let code = value.strip_suffix("\");");
            found.push((name, code.unwrap_or_else(|| panic!("malformed: {line}"))));
        }
        found
    }

    #[test]
    fn all_lists_every_declared_constant_once() {
        let declared = declared();
        // 68 today; a floor guards against the parser above silently finding nothing.
        assert!(
            declared.len() >= 60,
            "found only {} constants",
            declared.len()
        );
        assert_eq!(
            declared.len(),
            ALL.len(),
            "ALL and the declared constants differ"
        );
        let listed: Vec<&str> = ALL.iter().map(|state| state.code()).collect();
        let in_source: Vec<&str> = declared.iter().map(|(_, code)| *code).collect();
        assert_eq!(
            listed, in_source,
            "ALL is not the declared constants in order"
        );
    }

    #[test]
    fn codes_are_well_formed_and_distinct() {
        let mut seen = HashSet::new();
        for state in ALL {
            let code = state.code();
            assert_eq!(code.len(), 5, "{code}");
            assert!(
                code.bytes()
                    .all(|b| b.is_ascii_digit() || b.is_ascii_uppercase()),
                "{code} is not five characters of [0-9A-Z]"
            );
            assert!(seen.insert(code), "{code} is declared twice");
        }
    }

    #[test]
    fn class_and_display() {
        let state: SqlState = super::UNIQUE_VIOLATION;
        assert_eq!(state.class(), "23");
        assert_eq!(state.to_string(), "23505");
        assert_eq!(super::DATA_CORRUPTED.class(), "XX");
    }
}
