//! The PEP 249 exception hierarchy and how Basalt's errors map onto it.
//!
//! Every exception the module raises for a database failure is one of PEP 249's classes
//! (`Warning`, `Error` and its subclasses) and carries the SQLSTATE in `.sqlstate`: the
//! engine's code for an engine error, and a PostgreSQL-style code chosen here for the few
//! errors the binding itself detects (a closed connection, a parameter of an unsupported
//! type). The class follows from the SQLSTATE ([`class_for`]), so one code always gives one
//! class. Nothing here panics: building an exception that fails to build gives the failure
//! of building it instead.

use pyo3::exceptions::PyException;
use pyo3::prelude::*;

pyo3::create_exception!(
    basalt,
    Warning,
    PyException,
    "PEP 249: important warnings (Basalt raises none today)."
);
pyo3::create_exception!(
    basalt,
    Error,
    PyException,
    "PEP 249: the base class of every error the module raises; `.sqlstate` holds the code."
);
pyo3::create_exception!(
    basalt,
    InterfaceError,
    Error,
    "PEP 249: misuse of the module itself (a value of a type it cannot bind)."
);
pyo3::create_exception!(
    basalt,
    DatabaseError,
    Error,
    "PEP 249: an error of the database; the base of the classes below."
);
pyo3::create_exception!(
    basalt,
    DataError,
    DatabaseError,
    "PEP 249: bad data: out of range, malformed, division by zero (SQLSTATE 21, 22, 54)."
);
pyo3::create_exception!(
    basalt,
    OperationalError,
    DatabaseError,
    "PEP 249: the database's operation failed: busy, interrupted, I/O, disk full (40, 53, 55, 57, 58)."
);
pyo3::create_exception!(
    basalt,
    IntegrityError,
    DatabaseError,
    "PEP 249: a constraint was violated, or a trigger raised an error (23, P0001)."
);
pyo3::create_exception!(
    basalt,
    InternalError,
    DatabaseError,
    "PEP 249: an internal error of the database: a bug or a damaged file (XX)."
);
pyo3::create_exception!(
    basalt,
    ProgrammingError,
    DatabaseError,
    "PEP 249: wrong SQL or API use: syntax, unknown table, wrong parameter count (42, 08, 25, 26, 34, 3B)."
);
pyo3::create_exception!(
    basalt,
    NotSupportedError,
    DatabaseError,
    "PEP 249: something Basalt does not support (0A)."
);

/// The PEP 249 classes, for [`class_for`] and the module's registration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    Interface,
    Database,
    Data,
    Operational,
    Integrity,
    Internal,
    Programming,
    NotSupported,
}

/// The class an error with SQLSTATE `code` raises.
pub(crate) fn class_for(code: &str) -> Class {
    match code {
        "P0001" => return Class::Integrity,
        // Wrong parameter count, a closed connection: the caller's mistake, as sqlite3 says.
        "08P01" | "08003" => return Class::Programming,
        _ => {}
    }
    match code.get(..2).unwrap_or(code) {
        "23" => Class::Integrity,
        "21" | "22" | "54" => Class::Data,
        "42" | "2B" | "08" | "24" | "25" | "26" | "34" | "3B" => Class::Programming,
        "0A" => Class::NotSupported,
        "40" | "53" | "55" | "57" | "58" => Class::Operational,
        "XX" => Class::Internal,
        "HY" => Class::Interface,
        _ => Class::Database,
    }
}

/// A failure, raised in Python as an exception of its SQLSTATE's class.
#[derive(Debug)]
pub(crate) enum Failure {
    /// An error from the engine.
    Engine(basalt::Error),
    /// An error the binding detected, with the code it reports.
    Binding { code: &'static str, message: String },
    /// A Python exception, raised as it is.
    Python(PyErr),
}

impl From<basalt::Error> for Failure {
    fn from(error: basalt::Error) -> Self {
        Failure::Engine(error)
    }
}

impl From<PyErr> for Failure {
    fn from(error: PyErr) -> Self {
        Failure::Python(error)
    }
}

impl From<Failure> for PyErr {
    fn from(failure: Failure) -> PyErr {
        match failure {
            Failure::Python(error) => error,
            Failure::Engine(error) => {
                let message = match error.caret() {
                    Some(caret) => format!("{error}\n{caret}"),
                    None => error.to_string(),
                };
                Python::attach(|py| raise(py, error.code(), message))
            }
            Failure::Binding { code, message } => Python::attach(|py| raise(py, code, message)),
        }
    }
}

/// A binding error with `code`.
pub(crate) fn binding(code: &'static str, message: impl Into<String>) -> Failure {
    Failure::Binding {
        code,
        message: message.into(),
    }
}

/// The error for using a closed connection or cursor (sqlite3 raises ProgrammingError).
pub(crate) fn closed(what: &str) -> Failure {
    binding("08003", format!("cannot operate on a closed {what}"))
}

/// The result type inside the binding.
pub(crate) type Outcome<T> = Result<T, Failure>;

/// An exception of `code`'s class with `message`, its `sqlstate` attribute set.
fn raise(py: Python<'_>, code: &str, message: String) -> PyErr {
    let error = match class_for(code) {
        Class::Interface => InterfaceError::new_err(message),
        Class::Database => DatabaseError::new_err(message),
        Class::Data => DataError::new_err(message),
        Class::Operational => OperationalError::new_err(message),
        Class::Integrity => IntegrityError::new_err(message),
        Class::Internal => InternalError::new_err(message),
        Class::Programming => ProgrammingError::new_err(message),
        Class::NotSupported => NotSupportedError::new_err(message),
    };
    match error.value(py).setattr("sqlstate", code) {
        Ok(()) => error,
        Err(failed) => failed,
    }
}

/// Adds the exception classes to the module, each with a `sqlstate` class attribute
/// (`None`) so that every instance has one.
pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    let classes = [
        ("Warning", py.get_type::<Warning>()),
        ("Error", py.get_type::<Error>()),
        ("InterfaceError", py.get_type::<InterfaceError>()),
        ("DatabaseError", py.get_type::<DatabaseError>()),
        ("DataError", py.get_type::<DataError>()),
        ("OperationalError", py.get_type::<OperationalError>()),
        ("IntegrityError", py.get_type::<IntegrityError>()),
        ("InternalError", py.get_type::<InternalError>()),
        ("ProgrammingError", py.get_type::<ProgrammingError>()),
        ("NotSupportedError", py.get_type::<NotSupportedError>()),
    ];
    for (name, class) in classes {
        class.setattr("sqlstate", py.None())?;
        module.add(name, class)?;
    }
    Ok(())
}
