//! [`TypeError`]: everything that can go wrong while casting, comparing, computing on, or
//! calling a function with SQL values.
//!
//! Every variant maps to the PostgreSQL SQLSTATE a client would see for the same mistake
//! ([`TypeError::sqlstate`]), so the wire layer can report errors the way PostgreSQL drivers
//! expect. Messages follow PostgreSQL's wording where one exists.

use super::DataType;
use crate::sqlstate::{self, SqlState};

/// An error from the value semantics in [`crate::types`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TypeError {
    /// A computation left the range of its result type (22003), e.g. `i64::MAX + 1`.
    #[error("{type_name} out of range")]
    NumericOutOfRange {
        /// The SQL name of the overflowing type (`integer`, `real`).
        type_name: &'static str,
    },
    /// Parsed text names a number outside the range of the target type (22003).
    #[error("value \"{text}\" is out of range for type {type_name}")]
    ValueOutOfRange {
        /// The offending input.
        text: String,
        /// The SQL name of the target type.
        type_name: &'static str,
    },
    /// A number out of its type's range, with the message PostgreSQL or pgvector gives
    /// for it (22003), e.g. `"1e39" is out of range for type vector`.
    #[error("{0}")]
    OutOfRange(String),
    /// Division or remainder by zero, for integers and reals alike (22012).
    #[error("division by zero")]
    DivisionByZero,
    /// Text that does not spell a value of the target type (22P02).
    #[error("invalid input syntax for type {type_name}: \"{text}\"")]
    InvalidTextRepresentation {
        /// The SQL name of the target type.
        type_name: &'static str,
        /// The offending input.
        text: String,
    },
    /// Text that is not one well-formed JSON value (22P02); the message names the position.
    #[error("invalid input syntax for type json: {0}")]
    InvalidJson(String),
    /// A `text[]` literal (a JSON path for `#>`) that is not `{elem,elem,...}` (22P02).
    #[error("malformed array literal: \"{0}\"")]
    MalformedArrayLiteral(String),
    /// A character the target cannot hold, such as `\u0000` in jsonb or text (22P05).
    #[error("{0}")]
    UntranslatableCharacter(&'static str),
    /// Text that is not a date or timestamp in any accepted format (22007).
    #[error("invalid input syntax for type {type_name}: \"{text}\"")]
    InvalidDatetimeFormat {
        /// `date` or `timestamp`.
        type_name: &'static str,
        /// The offending input.
        text: String,
    },
    /// A well-formed date or time with a field out of range, e.g. `2023-02-29` (22008).
    #[error("date/time field value out of range: \"{text}\"")]
    DatetimeFieldOverflow {
        /// The offending input.
        text: String,
    },
    /// Interval text with a field too large for an interval, or a time field out of its
    /// range (22015, as PostgreSQL).
    #[error("interval field value out of range: \"{text}\"")]
    IntervalFieldOverflow {
        /// The offending input.
        text: String,
    },
    /// A date or timestamp computation left the representable range (22008).
    #[error("{type_name} out of range")]
    DatetimeOutOfRange {
        /// `date`, `timestamp` or `interval`.
        type_name: &'static str,
    },
    /// Text longer than a `VARCHAR(n)` / `CHAR(n)` column allows (22001).
    #[error("value too long for type character varying({max})")]
    StringTooLong {
        /// The declared maximum length in characters.
        max: usize,
    },
    /// A value the operation does not allow, in pgvector's class-22 general code (22000),
    /// e.g. vectors of different dimensions.
    #[error("{0}")]
    DataException(String),
    /// A function argument with a value the function does not accept (22023).
    #[error("{0}")]
    InvalidArgument(String),
    /// A negative length passed to `substr` (22011).
    #[error("negative substring length not allowed")]
    NegativeSubstringLength,
    /// A logarithm of zero or a negative number (2201E).
    #[error("{0}")]
    InvalidLogarithmArgument(&'static str),
    /// `sqrt` of a negative number, or `power` without a real result (2201F).
    #[error("{0}")]
    InvalidPowerArgument(&'static str),
    /// A NULL where a function needs a value (22004), e.g. `format('%I', NULL)`.
    #[error("{0}")]
    NullValueNotAllowed(&'static str),
    /// A regular expression that does not compile (2201B).
    #[error("invalid regular expression: {0}")]
    InvalidRegularExpression(String),
    /// A LIKE pattern ending in its escape character (22025).
    #[error("LIKE pattern must not end with escape character")]
    InvalidEscapeSequence,
    /// A result larger than Basalt allows for one value (54000).
    #[error("{0}")]
    ProgramLimitExceeded(&'static str),
    /// Arrays of shapes an operation cannot combine (2202E), e.g. `ARRAY[ARRAY[1], ARRAY[1,2]]`.
    #[error("{0}")]
    ArraySubscript(String),
    /// A limit exceeded, with a message naming the numbers (54000), e.g. an array of more
    /// than six dimensions.
    #[error("{0}")]
    ProgramLimit(String),
    /// `RAISE(ABORT, message)` in a trigger program (P0001, PostgreSQL's raise_exception).
    #[error("{0}")]
    RaiseException(String),
    /// A full-text query that does not follow the query language (42601); the message names
    /// the character position.
    #[error("{0}")]
    TextSearchSyntax(String),
    /// A request PostgreSQL defines but does not support either (0A000), e.g. the day of
    /// the week of an interval.
    #[error("{0}")]
    FeatureNotSupported(String),
    /// An error with its own SQLSTATE and PostgreSQL's message: the jsonpath language's
    /// syntax (42601) and execution errors (the 2203x family, 42704 for an unknown variable).
    #[error("{message}")]
    Coded {
        /// The SQLSTATE.
        state: SqlState,
        /// The message.
        message: String,
    },
    /// An expression of the wrong type where a specific type is required (42804).
    #[error("{0}")]
    DatatypeMismatch(String),
    /// No function with this name accepts these argument types (42883).
    #[error("function {name}({}) does not exist", type_list(.args))]
    UndefinedFunction {
        /// The function name as called.
        name: String,
        /// The argument types it was called with.
        args: Vec<DataType>,
    },
    /// No operator accepts these operand types (42883), e.g. `integer + text`.
    #[error("operator does not exist: {}", operator_signature(.op, .left, .right))]
    UndefinedOperator {
        /// The operator's spelling (`+`, `||`, ...).
        op: &'static str,
        /// The left operand's type, absent for prefix operators.
        left: Option<DataType>,
        /// The right (or only) operand's type.
        right: DataType,
    },
    /// Two values whose types have no comparison between them (42883).
    #[error("cannot compare {left} with {right}")]
    Incomparable {
        /// The left value's type.
        left: DataType,
        /// The right value's type.
        right: DataType,
    },
    /// No cast exists between the two types (42846).
    #[error("cannot cast type {from} to {to}")]
    CannotCoerce {
        /// The source type.
        from: DataType,
        /// The target type.
        to: DataType,
    },
}

impl TypeError {
    /// The PostgreSQL SQLSTATE for this error.
    pub fn sqlstate(&self) -> SqlState {
        match self {
            TypeError::NumericOutOfRange { .. }
            | TypeError::ValueOutOfRange { .. }
            | TypeError::OutOfRange(_) => sqlstate::NUMERIC_VALUE_OUT_OF_RANGE,
            TypeError::DivisionByZero => sqlstate::DIVISION_BY_ZERO,
            TypeError::InvalidTextRepresentation { .. }
            | TypeError::InvalidJson(_)
            | TypeError::MalformedArrayLiteral(_) => sqlstate::INVALID_TEXT_REPRESENTATION,
            TypeError::UntranslatableCharacter(_) => sqlstate::UNTRANSLATABLE_CHARACTER,
            TypeError::InvalidDatetimeFormat { .. } => sqlstate::INVALID_DATETIME_FORMAT,
            TypeError::DatetimeFieldOverflow { .. } | TypeError::DatetimeOutOfRange { .. } => {
                sqlstate::DATETIME_FIELD_OVERFLOW
            }
            TypeError::IntervalFieldOverflow { .. } => sqlstate::INTERVAL_FIELD_OVERFLOW,
            TypeError::StringTooLong { .. } => sqlstate::STRING_DATA_RIGHT_TRUNCATION,
            TypeError::InvalidArgument(_) => sqlstate::INVALID_PARAMETER_VALUE,
            TypeError::DataException(_) => sqlstate::DATA_EXCEPTION,
            TypeError::ArraySubscript(_) => sqlstate::ARRAY_SUBSCRIPT_ERROR,
            TypeError::NegativeSubstringLength => sqlstate::SUBSTRING_ERROR,
            TypeError::InvalidLogarithmArgument(_) => sqlstate::INVALID_ARGUMENT_FOR_LOGARITHM,
            TypeError::InvalidPowerArgument(_) => sqlstate::INVALID_ARGUMENT_FOR_POWER_FUNCTION,
            TypeError::InvalidEscapeSequence => sqlstate::INVALID_ESCAPE_SEQUENCE,
            TypeError::InvalidRegularExpression(_) => sqlstate::INVALID_REGULAR_EXPRESSION,
            TypeError::NullValueNotAllowed(_) => sqlstate::NULL_VALUE_NOT_ALLOWED,
            TypeError::ProgramLimitExceeded(_) | TypeError::ProgramLimit(_) => {
                sqlstate::PROGRAM_LIMIT_EXCEEDED
            }
            TypeError::DatatypeMismatch(_) => sqlstate::DATATYPE_MISMATCH,
            TypeError::FeatureNotSupported(_) => sqlstate::FEATURE_NOT_SUPPORTED,
            TypeError::Coded { state, .. } => *state,
            TypeError::TextSearchSyntax(_) => sqlstate::SYNTAX_ERROR,
            TypeError::RaiseException(_) => sqlstate::RAISE_EXCEPTION,
            TypeError::UndefinedFunction { .. }
            | TypeError::UndefinedOperator { .. }
            | TypeError::Incomparable { .. } => sqlstate::UNDEFINED_FUNCTION,
            TypeError::CannotCoerce { .. } => sqlstate::CANNOT_COERCE,
        }
    }

    /// The SQLSTATE as text, e.g. 22003 (what tests compare against).
    pub fn code(&self) -> &'static str {
        self.sqlstate().code()
    }

    /// Shorthand for [`TypeError::UndefinedFunction`] from a call's argument values.
    pub(crate) fn undefined_function(name: &str, args: &[super::Value]) -> TypeError {
        TypeError::UndefinedFunction {
            name: name.to_owned(),
            args: args.iter().map(super::Value::data_type).collect(),
        }
    }

    /// Shorthand for [`TypeError::UndefinedFunction`] from argument types.
    pub(crate) fn undefined_signature(name: &str, args: &[DataType]) -> TypeError {
        TypeError::UndefinedFunction {
            name: name.to_owned(),
            args: args.to_vec(),
        }
    }

    /// Integer overflow (`integer out of range`).
    pub(crate) fn integer_overflow() -> TypeError {
        TypeError::NumericOutOfRange {
            type_name: "integer",
        }
    }

    /// Real overflow or underflow (`real out of range`).
    pub(crate) fn real_overflow() -> TypeError {
        TypeError::NumericOutOfRange { type_name: "real" }
    }
}

fn type_list(args: &[DataType]) -> String {
    args.iter().map(|t| t.name()).collect::<Vec<_>>().join(", ")
}

fn operator_signature(op: &str, left: &Option<DataType>, right: &DataType) -> String {
    match left {
        Some(left) => format!("{left} {op} {right}"),
        None => format!("{op} {right}"),
    }
}
