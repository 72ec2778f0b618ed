//! Errors of the storage layer.
//!
//! Every failure below the SQL engine is one of these variants, each carrying enough context
//! (which page, which file, what was expected) to diagnose a problem from the message alone.
//! Corruption is always an error value: no byte sequence read from a file may cause a panic,
//! an endless loop or an out-of-bounds read. The API layer maps these to SQLSTATE-style codes.

use std::io;

use super::page::PageNo;

/// The result type of the storage layer.
pub type Result<T, E = StorageError> = std::result::Result<T, E>;

/// What went wrong in the storage layer.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    /// The operating system (or the VFS) reported an I/O failure.
    #[error("I/O error during {operation} on {path}: {source}")]
    Io {
        operation: &'static str,
        path: String,
        #[source]
        source: io::Error,
    },
    /// A write failed because the disk (or the VFS quota) is full. Nothing committed is lost.
    #[error("disk full while {operation} on {path}")]
    DiskFull {
        operation: &'static str,
        path: String,
    },
    /// A page or header failed validation.
    #[error("database file is corrupt: {}{reason}", page_prefix(*.page))]
    Corrupt {
        page: Option<PageNo>,
        reason: String,
    },
    /// The file is not a Basalt database, or is of an unknown format version.
    #[error("{path} is not a Basalt database: {reason}")]
    NotADatabase { path: String, reason: String },
    /// Another process holds the database file's lock.
    #[error("database {path} is locked by another process")]
    LockedByAnotherProcess { path: String },
    /// The single writer slot stayed taken for longer than the busy timeout.
    #[error("database is busy: another write transaction is active (waited {waited_ms} ms)")]
    Busy { waited_ms: u64 },
    /// An index entry (key plus value) is larger than an index page can hold.
    #[error("index entry of {size} bytes exceeds the maximum of {max} bytes")]
    KeyTooLarge { size: usize, max: usize },
    /// A row has so many columns that even with every long value moved to overflow pages it
    /// does not fit in a leaf page.
    #[error("row of {columns} columns does not fit in a {page_size}-byte page")]
    RowTooWide { columns: usize, page_size: usize },
    /// A caller broke an API precondition (for example an out-of-range page size).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// An earlier I/O failure left this handle unable to guarantee consistency; reopen the
    /// database to recover from the write-ahead log.
    #[error("database handle is poisoned by an earlier I/O failure; reopen it: {0}")]
    Poisoned(String),
}

fn page_prefix(page: Option<PageNo>) -> String {
    match page {
        Some(page) => format!("page {page}: "),
        None => String::new(),
    }
}

impl StorageError {
    /// A corruption error about one page.
    pub fn corrupt_page(page: PageNo, reason: impl Into<String>) -> Self {
        StorageError::Corrupt {
            page: Some(page),
            reason: reason.into(),
        }
    }

    /// A corruption error not tied to one page (a header, the write-ahead log).
    pub fn corrupt(reason: impl Into<String>) -> Self {
        StorageError::Corrupt {
            page: None,
            reason: reason.into(),
        }
    }

    /// Wraps an I/O error, recognising a full disk.
    pub fn io(operation: &'static str, path: &str, source: io::Error) -> Self {
        if source.kind() == io::ErrorKind::StorageFull {
            StorageError::DiskFull {
                operation,
                path: path.to_string(),
            }
        } else {
            StorageError::Io {
                operation,
                path: path.to_string(),
                source,
            }
        }
    }
}
