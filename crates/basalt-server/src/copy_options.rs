//! COPY's options: PostgreSQL's list (`FORMAT`, `DELIMITER`, `NULL`, `HEADER`, `QUOTE`,
//! `ESCAPE`, `FORCE_QUOTE`, `FORCE_NOT_NULL`, `FORCE_NULL`, `FREEZE`, `ENCODING`) as
//! [`crate::copy_statement`] reads them, then completed with the format's defaults and
//! checked for consistency.
//!
//! What it guarantees: [`check_options`] is PostgreSQL's `ProcessCopyOptions` — the same
//! defaults (tab and `\N` in text, comma, empty NULL and `"` in CSV), the same rules and
//! SQLSTATEs (22023 for a value not allowed, 0A000 for a CSV option in text mode or a
//! direction it does not apply to, 42601 for an option given twice). Options it accepts can
//! be used by the readers and writers of [`crate::copy_format`] and [`crate::copy_binary`]
//! without further checks.

use crate::error::{FEATURE_NOT_SUPPORTED, WireError};

/// 22023: an option's value is not allowed.
const INVALID_PARAMETER_VALUE: &str = "22023";
/// 42601 too in PostgreSQL: an option given twice ("conflicting or redundant options").
const REDUNDANT_OPTION: &str = "42601";

/// The data format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    Text,
    Csv,
    /// PostgreSQL's binary COPY format ([`crate::copy_binary`]).
    Binary,
}

/// Which columns FORCE_QUOTE / FORCE_NOT_NULL / FORCE_NULL apply to.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(crate) enum ColumnSet {
    #[default]
    None,
    All,
    /// Column names, as PostgreSQL folds them (unquoted lower-cased).
    Some(Vec<String>),
}

impl ColumnSet {
    pub(crate) fn contains(&self, column: &str) -> bool {
        match self {
            ColumnSet::None => false,
            ColumnSet::All => true,
            ColumnSet::Some(names) => names.iter().any(|name| name.eq_ignore_ascii_case(column)),
        }
    }

    pub(crate) fn names(&self) -> &[String] {
        match self {
            ColumnSet::Some(names) => names,
            _ => &[],
        }
    }
}

/// COPY's options, defaults filled in for the format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CopyOptions {
    pub(crate) format: Format,
    pub(crate) delimiter: u8,
    pub(crate) null: String,
    pub(crate) header: bool,
    pub(crate) quote: u8,
    pub(crate) escape: u8,
    pub(crate) force_quote: ColumnSet,
    pub(crate) force_not_null: ColumnSet,
    pub(crate) force_null: ColumnSet,
}

/// The options as written, before defaults and checks.
#[derive(Debug, Default)]
pub(crate) struct GivenOptions {
    pub(crate) format: Option<String>,
    pub(crate) freeze: Option<bool>,
    pub(crate) delimiter: Option<String>,
    pub(crate) null: Option<String>,
    pub(crate) header: Option<bool>,
    pub(crate) quote: Option<String>,
    pub(crate) escape: Option<String>,
    pub(crate) force_quote: Option<ColumnSet>,
    pub(crate) force_not_null: Option<ColumnSet>,
    pub(crate) force_null: Option<ColumnSet>,
    pub(crate) encoding: Option<String>,
}

fn redundant() -> WireError {
    WireError::new(REDUNDANT_OPTION, "conflicting or redundant options")
}

pub(crate) fn set<T>(slot: &mut Option<T>, value: T) -> Result<(), WireError> {
    if slot.is_some() {
        return Err(redundant());
    }
    *slot = Some(value);
    Ok(())
}

/// One-byte character option (delimiter, quote, escape).
fn single_byte(value: &str, what: &str) -> Result<u8, WireError> {
    match value.as_bytes() {
        [byte] if byte.is_ascii() => Ok(*byte),
        _ => Err(WireError::new(
            FEATURE_NOT_SUPPORTED,
            format!("COPY {what} must be a single one-byte character"),
        )),
    }
}

fn invalid(message: &str) -> WireError {
    WireError::new(INVALID_PARAMETER_VALUE, message)
}

fn csv_only(what: &str) -> WireError {
    WireError::new(
        FEATURE_NOT_SUPPORTED,
        format!("COPY {what} available only in CSV mode"),
    )
}

/// PostgreSQL's `ProcessCopyOptions`: defaults for the format, then the consistency rules.
pub(crate) fn check_options(given: GivenOptions, from: bool) -> Result<CopyOptions, WireError> {
    let format = match given.format.as_deref() {
        None | Some("text") => Format::Text,
        Some("csv") => Format::Csv,
        Some("binary") => Format::Binary,
        Some(other) => {
            return Err(invalid(&format!("COPY format \"{other}\" not recognized")));
        }
    };
    if let Some(encoding) = &given.encoding {
        let normalized = encoding.to_ascii_lowercase().replace(['-', '_'], "");
        if normalized != "utf8" {
            return Err(invalid(&format!(
                "COPY encoding \"{encoding}\" is not supported: Basalt speaks only UTF8"
            )));
        }
    }
    if format == Format::Binary {
        // PostgreSQL's rules: the text formats' options make no sense in binary (42601).
        for (given, name) in [
            (given.delimiter.is_some(), "DELIMITER"),
            (given.null.is_some(), "NULL"),
            (given.header.is_some(), "HEADER"),
        ] {
            if given {
                return Err(WireError::new(
                    REDUNDANT_OPTION,
                    format!("cannot specify {name} in BINARY mode"),
                ));
            }
        }
    }
    let csv = format == Format::Csv;
    let delimiter = match &given.delimiter {
        Some(delimiter) => single_byte(delimiter, "delimiter")?,
        None if csv => b',',
        None => b'\t',
    };
    let null = given
        .null
        .clone()
        .unwrap_or_else(|| if csv { String::new() } else { "\\N".to_owned() });
    if !csv {
        if given.quote.is_some() {
            return Err(csv_only("quote"));
        }
        if given.escape.is_some() {
            return Err(csv_only("escape"));
        }
        if given.force_quote.is_some() {
            return Err(csv_only("force quote"));
        }
        if given.force_not_null.is_some() {
            return Err(csv_only("force not null"));
        }
        if given.force_null.is_some() {
            return Err(csv_only("force null"));
        }
    }
    let quote = match &given.quote {
        Some(quote) => single_byte(quote, "quote")?,
        None => b'"',
    };
    let escape = match &given.escape {
        Some(escape) => single_byte(escape, "escape")?,
        None => quote,
    };
    if delimiter == b'\r' || delimiter == b'\n' {
        return Err(invalid(
            "COPY delimiter cannot be newline or carriage return",
        ));
    }
    if null.contains(['\r', '\n']) {
        return Err(invalid(
            "COPY null representation cannot use newline or carriage return",
        ));
    }
    if !csv && (delimiter.is_ascii_alphanumeric() || delimiter == b'\\' || delimiter == b'.') {
        return Err(invalid(&format!(
            "COPY delimiter cannot be \"{}\"",
            char::from(delimiter)
        )));
    }
    if csv && delimiter == quote {
        return Err(invalid("COPY delimiter and quote must be different"));
    }
    if csv && null.as_bytes().contains(&delimiter) {
        return Err(invalid(
            "COPY delimiter character must not appear in the NULL specification",
        ));
    }
    if csv && null.as_bytes().contains(&quote) {
        return Err(invalid(
            "CSV quote character must not appear in the NULL specification",
        ));
    }
    if from && given.force_quote.is_some() {
        return Err(WireError::new(
            FEATURE_NOT_SUPPORTED,
            "COPY force quote only available using COPY TO",
        ));
    }
    if !from && given.force_not_null.is_some() {
        return Err(WireError::new(
            FEATURE_NOT_SUPPORTED,
            "COPY force not null only available using COPY FROM",
        ));
    }
    if !from && given.force_null.is_some() {
        return Err(WireError::new(
            FEATURE_NOT_SUPPORTED,
            "COPY force null only available using COPY FROM",
        ));
    }
    // FREEZE is accepted and changes nothing: Basalt's rows need no freezing, and a COPY's
    // rows are one transaction's either way.
    let _ = given.freeze;
    Ok(CopyOptions {
        format,
        delimiter,
        null,
        header: given.header.unwrap_or(false),
        quote,
        escape,
        force_quote: given.force_quote.unwrap_or_default(),
        force_not_null: given.force_not_null.unwrap_or_default(),
        force_null: given.force_null.unwrap_or_default(),
    })
}
