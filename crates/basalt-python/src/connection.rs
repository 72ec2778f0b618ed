//! `basalt.Connection`: PEP 249's connection — `cursor`, `commit`, `rollback`, `close` —
//! with sqlite3's habits: `execute`/`executemany`/`executescript` shortcuts, the context
//! manager that commits or rolls back, `row_factory`, `in_transaction`, and an `autocommit`
//! attribute.
//!
//! Transactions: with `autocommit` False (the default) an INSERT, UPDATE, DELETE, REPLACE
//! or MERGE outside a transaction first runs BEGIN, and the transaction lasts until
//! `commit()` or `rollback()` (sqlite3's default behaviour); other statements, DDL included,
//! commit on their own when no transaction is open. With `autocommit` True every statement
//! commits on its own unless the program runs BEGIN itself. Closing a connection, or letting
//! it go, rolls back what is uncommitted.

use std::sync::Arc;

use basalt::InterruptHandle;
use parking_lot::Mutex;
use pyo3::prelude::*;
use pyo3::types::{PyTuple, PyType};

use crate::core::Core;
use crate::cursor::Cursor;
use crate::errors::{self, Outcome};

/// A connection to a database.
#[pyclass(module = "basalt")]
#[derive(Debug)]
pub struct Connection {
    core: Arc<Mutex<Core>>,
    interrupt: InterruptHandle,
    /// The `row_factory` new cursors start with.
    #[pyo3(get, set)]
    pub(crate) row_factory: Option<Py<PyAny>>,
}

impl Connection {
    pub(crate) fn open(path: &str, autocommit: bool) -> Outcome<Connection> {
        let database = crate::core::open(path)?;
        let core = Core::new(database, autocommit);
        let interrupt = core.connection()?.interrupt_handle();
        Ok(Connection {
            core: Arc::new(Mutex::new(core)),
            interrupt,
            row_factory: None,
        })
    }

    fn end(&self, py: Python<'_>, commit: bool) -> PyResult<()> {
        let core = self.core.clone();
        py.detach(move || core.lock().end(commit))?;
        Ok(())
    }
}

#[pymethods]
impl Connection {
    /// A new cursor.
    fn cursor(slf: &Bound<'_, Self>) -> PyResult<Cursor> {
        let py = slf.py();
        let core = slf.borrow().core.clone();
        if core.lock().is_closed() {
            return Err(errors::closed("connection").into());
        }
        Ok(Cursor::new(py, slf.clone().unbind(), core))
    }

    /// A new cursor that has run `sql` (sqlite3's shortcut).
    #[pyo3(signature = (sql, parameters = None))]
    fn execute(
        slf: &Bound<'_, Self>,
        sql: &str,
        parameters: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<Cursor>> {
        let cursor = Bound::new(slf.py(), Connection::cursor(slf)?)?;
        Cursor::execute(cursor.borrow_mut(), sql, parameters)?;
        Ok(cursor.unbind())
    }

    /// A new cursor that has run `sql` once per parameter set (sqlite3's shortcut).
    fn executemany(
        slf: &Bound<'_, Self>,
        sql: &str,
        seq_of_parameters: Bound<'_, PyAny>,
    ) -> PyResult<Py<Cursor>> {
        let cursor = Bound::new(slf.py(), Connection::cursor(slf)?)?;
        Cursor::executemany(cursor.borrow_mut(), sql, seq_of_parameters)?;
        Ok(cursor.unbind())
    }

    /// A new cursor that has run every statement of `sql` (sqlite3's shortcut).
    fn executescript(slf: &Bound<'_, Self>, sql: &str) -> PyResult<Py<Cursor>> {
        let cursor = Bound::new(slf.py(), Connection::cursor(slf)?)?;
        Cursor::executescript(cursor.borrow_mut(), sql)?;
        Ok(cursor.unbind())
    }

    /// Commits the open transaction (nothing happens when none is open).
    fn commit(&self, py: Python<'_>) -> PyResult<()> {
        self.end(py, true)
    }

    /// Rolls back the open transaction (nothing happens when none is open).
    fn rollback(&self, py: Python<'_>) -> PyResult<()> {
        self.end(py, false)
    }

    /// Closes the connection, rolling back what is uncommitted. Any later use raises
    /// ProgrammingError, closing it again included (as PEP 249 says).
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let core = self.core.clone();
        py.detach(move || {
            let mut core = core.lock();
            core.connection()?;
            core.close();
            Ok::<_, errors::Failure>(())
        })?;
        Ok(())
    }

    /// Asks the statement running on this connection (in another thread) to stop; it fails
    /// with OperationalError, SQLSTATE 57014.
    fn interrupt(&self) {
        self.interrupt.interrupt();
    }

    /// Whether a transaction is open.
    #[getter]
    fn in_transaction(&self) -> PyResult<bool> {
        let core = self.core.lock();
        Ok(core.connection()?.in_transaction())
    }

    /// True: every statement commits on its own. False (the default): a modification opens
    /// a transaction that lasts until commit() or rollback(). Setting it to True commits an
    /// open transaction first.
    #[getter]
    fn autocommit(&self) -> bool {
        self.core.lock().autocommit
    }

    #[setter]
    fn set_autocommit(&self, py: Python<'_>, value: bool) -> PyResult<()> {
        if value {
            self.end(py, true)?;
        }
        self.core.lock().autocommit = value;
        Ok(())
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// Commits when the block ended normally, rolls back when it raised; the connection
    /// stays open (as sqlite3's).
    #[pyo3(signature = (*args))]
    fn __exit__(&self, py: Python<'_>, args: &Bound<'_, PyTuple>) -> PyResult<bool> {
        let raised = match args.get_item(0) {
            Ok(kind) => !kind.is_none(),
            Err(_) => false,
        };
        self.end(py, !raised)?;
        Ok(false)
    }

    // PEP 249's optional extension: the exception classes as connection attributes.
    #[getter(Warning)]
    fn warning(&self, py: Python<'_>) -> Py<PyType> {
        py.get_type::<errors::Warning>().unbind()
    }
    #[getter(Error)]
    fn error(&self, py: Python<'_>) -> Py<PyType> {
        py.get_type::<errors::Error>().unbind()
    }
    #[getter(InterfaceError)]
    fn interface_error(&self, py: Python<'_>) -> Py<PyType> {
        py.get_type::<errors::InterfaceError>().unbind()
    }
    #[getter(DatabaseError)]
    fn database_error(&self, py: Python<'_>) -> Py<PyType> {
        py.get_type::<errors::DatabaseError>().unbind()
    }
    #[getter(DataError)]
    fn data_error(&self, py: Python<'_>) -> Py<PyType> {
        py.get_type::<errors::DataError>().unbind()
    }
    #[getter(OperationalError)]
    fn operational_error(&self, py: Python<'_>) -> Py<PyType> {
        py.get_type::<errors::OperationalError>().unbind()
    }
    #[getter(IntegrityError)]
    fn integrity_error(&self, py: Python<'_>) -> Py<PyType> {
        py.get_type::<errors::IntegrityError>().unbind()
    }
    #[getter(InternalError)]
    fn internal_error(&self, py: Python<'_>) -> Py<PyType> {
        py.get_type::<errors::InternalError>().unbind()
    }
    #[getter(ProgrammingError)]
    fn programming_error(&self, py: Python<'_>) -> Py<PyType> {
        py.get_type::<errors::ProgrammingError>().unbind()
    }
    #[getter(NotSupportedError)]
    fn not_supported_error(&self, py: Python<'_>) -> Py<PyType> {
        py.get_type::<errors::NotSupportedError>().unbind()
    }
}
