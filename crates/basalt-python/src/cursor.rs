//! `basalt.Cursor`: PEP 249's cursor — `execute`, `executemany`, the fetch methods,
//! `description`, `rowcount`, `lastrowid`, `arraysize` — with sqlite3's habits (`execute`
//! returns the cursor, iterating it streams rows, `row_factory`).
//!
//! A query's rows stay in its portal and come over in chunks: `execute` runs the statement
//! and takes the first chunk, each later fetch takes the next when the last is used up, so a
//! cursor never holds more than a chunk of a large result. Every call into the engine
//! releases the GIL; parameters are converted before and rows after, with it held.

use std::sync::Arc;

use basalt::{ColumnDescription, Value};
use parking_lot::Mutex;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use crate::connection::Connection;
use crate::convert::{to_value, type_code, value_to_python};
use crate::core::{Core, Many, Prepared};
use crate::errors::{Failure, Outcome, binding, closed};

/// Rows a fetch takes from the portal at a time (at least `arraysize`).
const CHUNK: usize = 1024;
/// Parameter sets `executemany` converts before running them with the GIL released.
const MANY_CHUNK: usize = 4096;

/// A cursor over a connection.
#[pyclass(module = "basalt")]
#[derive(Debug)]
pub struct Cursor {
    connection: Py<Connection>,
    core: Arc<Mutex<Core>>,
    portal: String,
    /// PEP 249: rows `fetchmany()` returns by default.
    #[pyo3(get, set)]
    arraysize: usize,
    /// Called as `row_factory(cursor, row_tuple)` for each row when set.
    #[pyo3(get, set)]
    row_factory: Option<Py<PyAny>>,
    /// Rows the last `execute`/`executemany` changed; -1 for queries and other statements.
    #[pyo3(get)]
    rowcount: i64,
    /// The row id of the last row an INSERT through this cursor inserted.
    #[pyo3(get)]
    lastrowid: Option<i64>,
    description: Option<Py<PyTuple>>,
    /// The statement `description` describes, to reuse it on the next execute of the same.
    described: Option<Arc<Prepared>>,
    /// Fetched rows not yet handed out, row after row, and the next one's first value.
    values: Vec<Value>,
    next: usize,
    width: usize,
    /// Rows remain in the portal.
    more: bool,
    /// The last statement returned rows (fetching is an error otherwise, as PEP 249 says).
    has_rows: bool,
    closed: bool,
}

impl Cursor {
    pub(crate) fn new(
        py: Python<'_>,
        connection: Py<Connection>,
        core: Arc<Mutex<Core>>,
    ) -> Cursor {
        let portal = core.lock().unique_name('c');
        let row_factory = connection
            .borrow(py)
            .row_factory
            .as_ref()
            .map(|factory| factory.clone_ref(py));
        Cursor {
            connection,
            core,
            portal,
            arraysize: 1,
            row_factory,
            rowcount: -1,
            lastrowid: None,
            description: None,
            described: None,
            values: Vec::new(),
            next: 0,
            width: 0,
            more: false,
            has_rows: false,
            closed: false,
        }
    }

    fn check_open(&self) -> Outcome<()> {
        if self.closed {
            return Err(closed("cursor"));
        }
        if self.core.lock().is_closed() {
            return Err(closed("connection"));
        }
        Ok(())
    }

    /// The prepared statement for `sql`: from the cache without releasing the GIL when the
    /// connection is free, else prepared with the GIL released.
    fn prepare(&self, py: Python<'_>, sql: &str) -> Outcome<Arc<Prepared>> {
        if let Some(core) = self.core.try_lock()
            && let Some(prepared) = core.cached(sql)
        {
            return Ok(prepared);
        }
        let core = self.core.clone();
        py.detach(|| core.lock().prepare(sql))
    }

    fn reset(&mut self) {
        self.values.clear();
        self.next = 0;
        self.width = 0;
        self.more = false;
        self.has_rows = false;
        self.rowcount = -1;
    }

    /// The next row as a tuple, fetching the next chunk from the portal when the buffered
    /// rows are used up.
    fn next_tuple<'py>(
        &mut self,
        py: Python<'py>,
        chunk: usize,
    ) -> PyResult<Option<Bound<'py, PyTuple>>> {
        if !self.has_rows {
            return Err(binding("24000", "the last statement returned no rows to fetch").into());
        }
        if self.next >= self.values.len() {
            if !self.more {
                return Ok(None);
            }
            self.refill(py, chunk)?;
            if self.next >= self.values.len() {
                return Ok(None);
            }
        }
        let end = self.next + self.width;
        let row = self.values.get(self.next..end).unwrap_or_default();
        let tuple = PyTuple::new(
            py,
            row.iter()
                .map(|value| value_to_python(py, value))
                .collect::<PyResult<Vec<_>>>()?,
        )?;
        self.next = end;
        Ok(Some(tuple))
    }

    fn refill(&mut self, py: Python<'_>, chunk: usize) -> PyResult<()> {
        let core = self.core.clone();
        let portal = self.portal.clone();
        let buffer = std::mem::take(&mut self.values);
        let rows = chunk.max(self.arraysize).max(1) as u64;
        let fetched = py
            .detach(move || core.lock().fetch(&portal, rows, buffer))
            .map_err(|failure| match failure {
                Failure::Engine(error) if error.code() == "34000" => binding(
                    "34000",
                    "the rest of this cursor's rows were discarded when the transaction ended \
                     (commit or rollback closes the connection's open queries)",
                ),
                other => other,
            })?;
        self.values = fetched.values;
        self.next = 0;
        self.more = fetched.more;
        if fetched.width != 0 {
            self.width = fetched.width;
        }
        Ok(())
    }

    fn describe(
        &mut self,
        py: Python<'_>,
        prepared: &Arc<Prepared>,
        columns: Option<Vec<ColumnDescription>>,
    ) -> PyResult<()> {
        if columns.is_none()
            && let Some(described) = &self.described
            && Arc::ptr_eq(described, prepared)
        {
            return Ok(());
        }
        let columns = columns.as_deref().unwrap_or(&prepared.columns);
        let description = if columns.is_empty() {
            None
        } else {
            let items = columns
                .iter()
                .map(|column| {
                    PyTuple::new(
                        py,
                        [
                            PyString::new(py, &column.name).into_any(),
                            PyString::new(py, type_code(column.data_type)).into_any(),
                            py.None().into_bound(py),
                            py.None().into_bound(py),
                            py.None().into_bound(py),
                            py.None().into_bound(py),
                            py.None().into_bound(py),
                        ],
                    )
                })
                .collect::<PyResult<Vec<_>>>()?;
            Some(PyTuple::new(py, items)?.unbind())
        };
        self.description = description;
        self.described = Some(prepared.clone());
        Ok(())
    }
}

/// The cursor's next row, as a tuple or what its `row_factory` makes of it (called with
/// the cursor not borrowed, so that it may read `description`).
fn next_row<'py>(
    slf: &Bound<'py, Cursor>,
    chunk: usize,
    check: bool,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let py = slf.py();
    let (tuple, factory) = {
        let mut cursor = slf.borrow_mut();
        if check {
            cursor.check_open()?;
        }
        let Some(tuple) = cursor.next_tuple(py, chunk)? else {
            return Ok(None);
        };
        (
            tuple,
            cursor
                .row_factory
                .as_ref()
                .map(|factory| factory.clone_ref(py)),
        )
    };
    match factory {
        Some(factory) => Ok(Some(factory.bind(py).call1((slf, tuple))?)),
        None => Ok(Some(tuple.into_any())),
    }
}

/// The parameter values for `prepared` from a sequence or a mapping.
fn bind(prepared: &Prepared, parameters: Option<&Bound<'_, PyAny>>) -> Outcome<Vec<Value>> {
    let mut values = Vec::with_capacity(prepared.parameters.len());
    bind_into(prepared, parameters, &mut values)?;
    Ok(values)
}

/// Appends the parameter values for `prepared` from a sequence or a mapping to `values`.
fn bind_into(
    prepared: &Prepared,
    parameters: Option<&Bound<'_, PyAny>>,
    values: &mut Vec<Value>,
) -> Outcome<()> {
    let expected = prepared.parameters.len();
    let Some(parameters) = parameters.filter(|parameters| !parameters.is_none()) else {
        if expected == 0 {
            return Ok(());
        }
        return Err(count_error(expected, 0));
    };
    if let Ok(mapping) = parameters.cast::<PyDict>() {
        for (position, (name, data_type)) in prepared.parameters.iter().enumerate() {
            let Some(name) = name else {
                return Err(binding(
                    "08P01",
                    format!(
                        "parameter {} is positional: pass a sequence, not a mapping",
                        position + 1
                    ),
                ));
            };
            let value = match mapping.get_item(name)? {
                Some(value) => value,
                None => {
                    return Err(binding(
                        "08P01",
                        format!("no value supplied for parameter :{name}"),
                    ));
                }
            };
            values.push(to_value(&value, *data_type)?);
        }
        return Ok(());
    }
    if let Some(positions) = &prepared.positions {
        let given = parameters
            .len()
            .map_err(|_| binding("08P01", "parameters must be a sequence or a mapping"))?;
        let needed = positions.iter().max().map_or(0, |last| last + 1);
        if given != needed {
            return Err(count_error(needed, given));
        }
        for (position, (_, data_type)) in positions.iter().zip(&prepared.parameters) {
            values.push(to_value(&parameters.get_item(*position)?, *data_type)?);
        }
        return Ok(());
    }
    if let Ok(tuple) = parameters.cast::<PyTuple>() {
        if tuple.len() != expected {
            return Err(count_error(expected, tuple.len()));
        }
        for (item, (_, data_type)) in tuple.iter().zip(&prepared.parameters) {
            values.push(to_value(&item, *data_type)?);
        }
        return Ok(());
    }
    if parameters.is_instance_of::<PyString>() {
        return Err(binding(
            "08P01",
            "parameters must be a sequence or a mapping, not a string",
        ));
    }
    let given = parameters
        .len()
        .map_err(|_| binding("08P01", "parameters must be a sequence or a mapping"))?;
    if given != expected {
        return Err(count_error(expected, given));
    }
    for (position, (_, data_type)) in prepared.parameters.iter().enumerate() {
        values.push(to_value(&parameters.get_item(position)?, *data_type)?);
    }
    Ok(())
}

fn count_error(expected: usize, given: usize) -> Failure {
    binding(
        "08P01",
        format!("the statement has {expected} parameters but {given} were supplied"),
    )
}

#[pymethods]
impl Cursor {
    /// Runs one statement with `parameters` (a sequence for `?`/`$1`, a mapping for
    /// `:name`); returns the cursor.
    #[pyo3(signature = (sql, parameters = None))]
    pub(crate) fn execute<'py>(
        mut slf: PyRefMut<'py, Self>,
        sql: &str,
        parameters: Option<Bound<'py, PyAny>>,
    ) -> PyResult<PyRefMut<'py, Self>> {
        let py = slf.py();
        slf.check_open()?;
        slf.reset();
        let prepared = slf.prepare(py, sql)?;
        let values = bind(&prepared, parameters.as_ref())?;
        let core = slf.core.clone();
        let portal = slf.portal.clone();
        let rows = CHUNK.max(slf.arraysize) as u64;
        let buffer = std::mem::take(&mut slf.values);
        let statement = prepared.clone();
        let outcome = py.detach(move || {
            let mut core = core.lock();
            let outcome = core.run(&portal, &statement, values, rows);
            let rowid = core
                .connection()
                .map(|connection| connection.last_insert_rowid())
                .ok();
            outcome.map(|outcome| (outcome, rowid))
        });
        drop(buffer);
        let (outcome, rowid) = outcome?;
        match outcome {
            Ok(fetched) => {
                slf.describe(py, &prepared, fetched.columns)?;
                slf.values = fetched.values;
                slf.width = fetched.width;
                slf.more = fetched.more;
                slf.has_rows = true;
            }
            Err(changed) => {
                slf.describe(py, &prepared, None)?;
                if prepared.kind.modifies {
                    slf.rowcount = changed as i64;
                }
            }
        }
        if prepared.kind.inserts {
            slf.lastrowid = rowid;
        }
        Ok(slf)
    }

    /// Runs one statement (not a query) once per parameter set of `seq_of_parameters`,
    /// through one prepared statement; `rowcount` is the total of rows changed.
    pub(crate) fn executemany<'py>(
        mut slf: PyRefMut<'py, Self>,
        sql: &str,
        seq_of_parameters: Bound<'py, PyAny>,
    ) -> PyResult<PyRefMut<'py, Self>> {
        let py = slf.py();
        slf.check_open()?;
        slf.reset();
        let prepared = slf.prepare(py, sql)?;
        if prepared.kind.query {
            return Err(binding(
                "0A000",
                "executemany() runs statements that return no rows; use execute() for queries",
            )
            .into());
        }
        slf.describe(py, &prepared, None)?;
        let mut changed = 0u64;
        let mut iterator = seq_of_parameters.try_iter()?;
        loop {
            let chunk = iterator
                .by_ref()
                .take(MANY_CHUNK)
                .collect::<PyResult<Vec<_>>>()?;
            if chunk.is_empty() {
                break;
            }
            let mut grouped = true;
            let mut from = 0;
            while from < chunk.len() {
                let rows = chunk.get(from..).unwrap_or_default();
                let mut values = Vec::with_capacity(rows.len() * prepared.parameters.len());
                for parameters in rows {
                    bind_into(&prepared, Some(parameters), &mut values)?;
                }
                let core = slf.core.clone();
                let statement = prepared.clone();
                let count = rows.len();
                let outcome =
                    py.detach(move || core.lock().run_many(&statement, values, count, grouped))?;
                match outcome {
                    Many::Done(count) => {
                        changed += count;
                        break;
                    }
                    Many::Redo {
                        changed: count,
                        from_row,
                    } => {
                        // A multi-row group failed and was undone: run its rows and the rest
                        // of the chunk again one at a time.
                        changed += count;
                        from += from_row;
                        grouped = false;
                    }
                }
            }
        }
        if prepared.kind.modifies {
            slf.rowcount = changed as i64;
        }
        if prepared.kind.inserts {
            let rowid = slf
                .core
                .lock()
                .connection()
                .map(|connection| connection.last_insert_rowid())
                .ok();
            slf.lastrowid = rowid;
        }
        Ok(slf)
    }

    /// Runs every statement of `sql` (no parameters), after committing an open transaction,
    /// as sqlite3 does.
    pub(crate) fn executescript<'py>(
        mut slf: PyRefMut<'py, Self>,
        sql: &str,
    ) -> PyResult<PyRefMut<'py, Self>> {
        let py = slf.py();
        slf.check_open()?;
        slf.reset();
        let core = slf.core.clone();
        py.detach(|| -> Outcome<()> {
            let mut core = core.lock();
            core.end(true)?;
            core.connection()?.execute_batch(sql)?;
            core.forget_statements();
            Ok(())
        })?;
        slf.description = None;
        slf.described = None;
        Ok(slf)
    }

    /// The next row, or None.
    pub(crate) fn fetchone<'py>(slf: &Bound<'py, Self>) -> PyResult<Option<Bound<'py, PyAny>>> {
        next_row(slf, CHUNK, true)
    }

    /// The next `size` rows (default `arraysize`).
    #[pyo3(signature = (size = None))]
    pub(crate) fn fetchmany<'py>(
        slf: &Bound<'py, Self>,
        size: Option<usize>,
    ) -> PyResult<Bound<'py, PyList>> {
        slf.borrow().check_open()?;
        let size = size.unwrap_or(slf.borrow().arraysize);
        let rows = PyList::empty(slf.py());
        for _ in 0..size {
            match next_row(slf, CHUNK.max(size), false)? {
                Some(row) => rows.append(row)?,
                None => break,
            }
        }
        Ok(rows)
    }

    /// Every remaining row.
    pub(crate) fn fetchall<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyList>> {
        slf.borrow().check_open()?;
        let rows = PyList::empty(slf.py());
        while let Some(row) = next_row(slf, 8 * CHUNK, false)? {
            rows.append(row)?;
        }
        Ok(rows)
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(slf: &Bound<'py, Self>) -> PyResult<Option<Bound<'py, PyAny>>> {
        next_row(slf, CHUNK, true)
    }

    /// PEP 249: a sequence of 7-item sequences, one per result column (name, type code and
    /// five Nones), or None when the last statement returned no rows.
    #[getter]
    fn description(&self, py: Python<'_>) -> Option<Py<PyTuple>> {
        self.description.as_ref().map(|d| d.clone_ref(py))
    }

    /// The connection this cursor belongs to.
    #[getter]
    fn connection(&self, py: Python<'_>) -> Py<Connection> {
        self.connection.clone_ref(py)
    }

    /// Closes the cursor, discarding its unread rows.
    fn close(&mut self) {
        self.closed = true;
        self.values = Vec::new();
        self.more = false;
        self.core.lock().close_portal(&self.portal);
    }

    /// PEP 249: does nothing.
    fn setinputsizes(&self, _sizes: Bound<'_, PyAny>) {}

    /// PEP 249: does nothing.
    #[pyo3(signature = (_size, _column = None))]
    fn setoutputsize(&self, _size: Bound<'_, PyAny>, _column: Option<Bound<'_, PyAny>>) {}
}

impl Drop for Cursor {
    fn drop(&mut self) {
        if let Some(core) = self.core.try_lock() {
            core.close_portal(&self.portal);
        }
    }
}
