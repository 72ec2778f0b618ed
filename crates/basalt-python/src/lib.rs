//! The `basalt._basalt` extension module: Basalt from Python through PEP 249 (DB-API 2.0),
//! with the habits of the standard library's `sqlite3` module. The `basalt` package
//! (`python/basalt/__init__.py`) re-exports it and adds PEP 249's type objects and
//! constructors and `basalt.Row`.
//!
//! What it guarantees: every engine call runs with the GIL released; every failure is a
//! PEP 249 exception carrying its SQLSTATE (`.sqlstate`), never a panic; a query's rows
//! stream from the engine as they are fetched. See docs/python.md.

mod connection;
mod convert;
mod core;
mod cursor;
mod errors;

use pyo3::prelude::*;

pub use connection::Connection;
pub use cursor::Cursor;

/// Opens a connection to the database at `database` (a path, created if missing), or to a
/// new in-memory database for `":memory:"`. Connections to one file in one process share
/// the open database.
#[pyfunction]
#[pyo3(signature = (database, *, autocommit = false))]
fn connect(py: Python<'_>, database: Bound<'_, PyAny>, autocommit: bool) -> PyResult<Connection> {
    let path = database.call_method0("__fspath__").unwrap_or(database);
    let path: String = path.extract()?;
    Ok(py.detach(|| Connection::open(&path, autocommit))?)
}

#[pymodule]
fn _basalt(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("apilevel", "2.0")?;
    // Threads may share the module but not connections.
    module.add("threadsafety", 1)?;
    module.add("paramstyle", "qmark")?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    module.add_function(wrap_pyfunction!(connect, module)?)?;
    module.add_class::<Connection>()?;
    module.add_class::<Cursor>()?;
    errors::register(module)?;
    Ok(())
}
