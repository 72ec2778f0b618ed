//! DDL, transaction control, settings and maintenance: CREATE/DROP TABLE, INDEX and VIEW
//! (triggers are in `super::trigger`, column definitions and constraints in
//! `super::column`), ALTER TABLE, BEGIN/COMMIT/ROLLBACK/SAVEPOINT, PRAGMA/SET/SHOW, ANALYZE,
//! REINDEX and VACUUM, bound into [`crate::plan::ddl`] statements that the executor applies
//! to the catalog.
//!
//! Expressions that the catalog keeps (DEFAULT, CHECK, generation expressions, a view's
//! query) are validated here and stored as SQL text. Column types map as `types.rs` says; a
//! column declared without a type (SQLite style) is TEXT.

use sqlparser::ast;

use crate::catalog::{ColumnDef, IndexMethod, MAX_TABLE_COLUMNS, TableDef, UnknownIndexMethod};
use crate::plan::ddl::{
    AlterTable, CreateIndex, CreateTable, DdlStatement, ObjectKind, TransactionControl,
};
use crate::sqlstate;
use crate::storage::keys::KeyOrder;
use crate::types::{DataType, Value};

use super::column::Constraints;
use super::error::BindError;
use super::foreign_key;
use super::transaction::transaction_modes;
use super::{Binder, ident_name, object_name};

impl Binder<'_> {
    pub(super) fn bind_ddl(
        &mut self,
        statement: &ast::Statement,
    ) -> Result<DdlStatement, BindError> {
        match statement {
            ast::Statement::CreateTable(create) => self.bind_create_table(create),
            ast::Statement::CreateIndex(create) => self.bind_create_index(create),
            ast::Statement::CreateView(create) => self.bind_create_view(create),
            ast::Statement::CreateTrigger(create) => self.bind_create_trigger(create),
            ast::Statement::DropTrigger(drop) => self.bind_drop_trigger(drop),
            ast::Statement::CreateSequence { .. } => self.bind_create_sequence(statement),
            ast::Statement::AlterConnector { .. } => self.bind_alter_sequence(statement),
            ast::Statement::Drop {
                object_type: ast::ObjectType::Sequence,
                if_exists,
                names,
                ..
            } => self.bind_drop_sequence(names, *if_exists),
            ast::Statement::Drop {
                object_type,
                if_exists,
                names,
                cascade,
                ..
            } => self.bind_drop(*object_type, *if_exists, names, *cascade),
            ast::Statement::AlterTable(alter) => self.bind_alter_table(alter),
            ast::Statement::Comment {
                object_type,
                object_name,
                if_exists,
                ..
            } => self.bind_comment(object_type, object_name, *if_exists),
            ast::Statement::Truncate(truncate) => self.bind_truncate(truncate),
            ast::Statement::StartTransaction {
                modifier, modes, ..
            } => {
                // With WAL, SQLite's EXCLUSIVE is IMMEDIATE: readers go on either way.
                let immediate = matches!(
                    modifier,
                    Some(ast::TransactionModifier::Immediate | ast::TransactionModifier::Exclusive)
                );
                Ok(DdlStatement::Transaction(TransactionControl::Begin {
                    immediate,
                    modes: transaction_modes(modes)?,
                }))
            }
            ast::Statement::Set(ast::Set::SetTransaction {
                modes,
                snapshot,
                session,
            }) => {
                if snapshot.is_some() {
                    return Err(BindError::unsupported("SET TRANSACTION SNAPSHOT"));
                }
                Ok(DdlStatement::Transaction(
                    TransactionControl::SetTransaction {
                        modes: transaction_modes(modes)?,
                        session: *session,
                    },
                ))
            }
            ast::Statement::Commit { .. } => {
                Ok(DdlStatement::Transaction(TransactionControl::Commit))
            }
            ast::Statement::Rollback { savepoint, .. } => {
                Ok(DdlStatement::Transaction(match savepoint {
                    None => TransactionControl::Rollback,
                    Some(name) => TransactionControl::RollbackToSavepoint(ident_name(name)),
                }))
            }
            ast::Statement::Savepoint { name } => Ok(DdlStatement::Transaction(
                TransactionControl::Savepoint(ident_name(name)),
            )),
            ast::Statement::ReleaseSavepoint { name } => Ok(DdlStatement::Transaction(
                TransactionControl::ReleaseSavepoint(ident_name(name)),
            )),
            ast::Statement::Pragma { name, value, .. } => Ok(DdlStatement::Setting {
                name: object_name(name)?,
                value: value.as_ref().map(|value| setting_text(&value.value)),
                show: value.is_none(),
            }),
            ast::Statement::Set(ast::Set::SingleAssignment {
                variable, values, ..
            }) => {
                let name = variable_name(variable)?;
                // `SET name TO DEFAULT` is `RESET name` (the keyword, not the string).
                if let [ast::Expr::Identifier(ident)] = values.as_slice()
                    && ident.quote_style.is_none()
                    && ident.value.eq_ignore_ascii_case("default")
                {
                    return Ok(DdlStatement::Reset { name: Some(name) });
                }
                Ok(DdlStatement::Setting {
                    name,
                    value: Some(values.iter().map(expr_text).collect::<Vec<_>>().join(", ")),
                    show: false,
                })
            }
            ast::Statement::Reset(reset) => match &reset.reset {
                ast::Reset::ALL => Ok(DdlStatement::Reset { name: None }),
                ast::Reset::ConfigurationParameter(variable) => Ok(DdlStatement::Reset {
                    name: Some(variable_name(variable)?),
                }),
                // Basalt has no roles to switch between: the session is always its own user.
                ast::Reset::SessionAuthorization => Ok(DdlStatement::NoEffect),
            },
            // Basalt has no LISTEN, so a session listens to no channel: nothing to stop
            // (asyncpg's pool sends `UNLISTEN *` when a connection is released).
            ast::Statement::UNLISTEN { .. } => Ok(DdlStatement::NoEffect),
            ast::Statement::Set(ast::Set::SetTimeZone { value, .. }) => Ok(DdlStatement::Setting {
                name: "timezone".to_string(),
                value: Some(expr_text(value)),
                show: false,
            }),
            ast::Statement::ShowVariable { variable } => Ok(DdlStatement::Setting {
                name: {
                    let parts: Vec<String> = variable.iter().map(ident_name).collect();
                    setting_name(&parts).unwrap_or_else(|| parts.join(" "))
                },
                value: None,
                show: true,
            }),
            ast::Statement::Analyze(analyze) => Ok(DdlStatement::Analyze {
                table: analyze.table_name.as_ref().map(object_name).transpose()?,
            }),
            // `VACUUM [FULL] [name]`, and `REINDEX [name]`, which the dialect parses into
            // this form with only `reindex` set (see `sql::dialect`).
            ast::Statement::Vacuum(ast::VacuumStatement {
                reindex,
                full,
                sort_only: false,
                delete_only: false,
                recluster: analyze,
                table_name,
                threshold: None,
                boost: false,
            }) if !(*reindex && (*full || *analyze)) => match reindex {
                true => self.bind_reindex(table_name.as_ref()),
                false => self.bind_vacuum(table_name.as_ref(), *analyze),
            },
            other => Err(BindError::unsupported(statement_name(other))),
        }
    }

    /// `REINDEX`: an index by name, a table's indexes (its constraint indexes included), or
    /// with no name every index, as SQLite and PostgreSQL's `REINDEX DATABASE` do.
    fn bind_reindex(&self, name: Option<&ast::ObjectName>) -> Result<DdlStatement, BindError> {
        let indexes = match name {
            None => self
                .catalog
                .indexes
                .values()
                .map(|i| i.name.clone())
                .collect(),
            Some(name) => {
                let name = object_name(name)?;
                if let Some(index) = self.catalog.indexes.get(&name.to_lowercase()) {
                    vec![index.name.clone()]
                } else if let Some(table) = self.catalog.table(&name) {
                    self.catalog
                        .indexes_of(&table.name)
                        .map(|index| index.name.clone())
                        .collect()
                } else {
                    return Err(BindError::new(
                        sqlstate::UNDEFINED_TABLE,
                        format!("relation \"{name}\" does not exist"),
                    ));
                }
            }
        };
        Ok(DdlStatement::Reindex { indexes })
    }

    /// `VACUUM [FULL] [options] [name]` (the dialect reads PostgreSQL's option forms; see
    /// `sql::dialect::parse_vacuum`), with ANALYZE of the named table, or of every table,
    /// after it when asked.
    fn bind_vacuum(
        &self,
        name: Option<&ast::ObjectName>,
        analyze: bool,
    ) -> Result<DdlStatement, BindError> {
        let mut table = None;
        if let Some(name) = name {
            let name = object_name(name)?;
            match self.catalog.table(&name) {
                Some(found) => table = Some(found.name.clone()),
                // SQLite's `VACUUM main`: the schema name of the one database.
                None if name.eq_ignore_ascii_case("main") => {}
                None => {
                    return Err(BindError::new(
                        sqlstate::UNDEFINED_TABLE,
                        format!("relation \"{name}\" does not exist"),
                    ));
                }
            }
        }
        Ok(DdlStatement::Vacuum {
            analyze: analyze.then_some(table),
        })
    }

    fn bind_create_table(&mut self, create: &ast::CreateTable) -> Result<DdlStatement, BindError> {
        if create.like.is_some() || create.clone.is_some() {
            return Err(BindError::unsupported("CREATE TABLE ... LIKE / CLONE"));
        }
        let name = object_name(&create.name)?;
        if !create.if_not_exists
            && (self.catalog.table(&name).is_some()
                || self.catalog.views.contains_key(&name.to_lowercase()))
        {
            return Err(BindError::new(
                sqlstate::DUPLICATE_TABLE,
                format!("relation \"{name}\" already exists"),
            ));
        }
        let mut columns: Vec<ColumnDef> = Vec::with_capacity(create.columns.len());
        let mut constraints = Constraints::default();
        let mut as_query = None;
        if let Some(query) = &create.query {
            let plan = self.bind_query(query)?;
            if !create.columns.is_empty() {
                return Err(BindError::unsupported(
                    "column definitions with CREATE TABLE AS",
                ));
            }
            for column in &plan.schema {
                columns.push(ColumnDef {
                    name: column.name.clone(),
                    // The query's types without their modifiers, as before types carried
                    // them: a VARCHAR(20) column read by the query becomes TEXT here.
                    data_type: if column.data_type == DataType::Null {
                        DataType::Text(None)
                    } else {
                        column.data_type.unmodified()
                    },
                    declared_type: column.data_type.name().to_uppercase(),
                    not_null: false,
                    default: None,
                    generated: None,
                    slot: columns.len(),
                });
            }
            as_query = Some(query.to_string());
        }
        for column in &create.columns {
            let position = columns.len();
            if columns
                .iter()
                .any(|c| c.name.eq_ignore_ascii_case(&ident_name(&column.name)))
            {
                return Err(BindError::new(
                    sqlstate::DUPLICATE_COLUMN,
                    format!(
                        "column \"{}\" specified more than once",
                        ident_name(&column.name)
                    ),
                ));
            }
            let def = self.bind_column_def(column, position, &mut constraints, &name)?;
            columns.push(def);
        }
        for constraint in &create.constraints {
            self.bind_table_constraint(constraint, &columns, &mut constraints)?;
        }
        check_column_count(columns.len())?;
        let keys = constraints
            .primary_key
            .iter()
            .map(|(key, _)| key)
            .chain(&constraints.unique);
        for key in keys {
            for &position in key {
                if let Some(column) = columns.get(position) {
                    refuse_json_key(column.data_type)?;
                }
            }
        }
        // CHECK constraints must make sense over the new table's row now, not at first insert.
        let draft = TableDef {
            name: name.clone(),
            columns: columns.clone(),
            root: 0,
            row_id_column: None,
            primary_key: Vec::new(),
            checks: Vec::new(),
            foreign_keys: Vec::new(),
            slot_count: columns.len(),
        };
        for check in &constraints.checks {
            super::bind_table_predicate(check, &draft, self.catalog)?;
        }
        for (position, column) in columns.iter().enumerate() {
            if column.generated.is_some() {
                super::bind_generated_column(&draft, position, self.catalog)?;
            }
        }
        let (primary_key, descending) = constraints.primary_key.clone().unwrap_or_default();
        let row_id_column = match primary_key.as_slice() {
            [column]
                if !descending
                    && columns
                        .get(*column)
                        .is_some_and(|c| c.data_type == DataType::Integer) =>
            {
                Some(*column)
            }
            _ => None,
        };
        // The row id is chosen before the row's values are final, so it cannot be computed
        // from them.
        if let Some(column) = row_id_column.and_then(|column| columns.get(column))
            && column.generated.is_some()
        {
            return Err(BindError::unsupported(format!(
                "a generated INTEGER PRIMARY KEY column (\"{}\")",
                column.name
            )));
        }
        // PRIMARY KEY implies NOT NULL, except for the row id column: a NULL there asks for
        // the next row id, as in SQLite.
        for &column in &primary_key {
            if Some(column) != row_id_column
                && let Some(column) = columns.get_mut(column)
            {
                column.not_null = true;
            }
        }
        if let Some(column) = constraints.autoincrement {
            // SQLite's rule and message; the SQLSTATE is PostgreSQL's for a bad definition.
            if row_id_column != Some(column) {
                return Err(BindError::new(
                    sqlstate::INVALID_TABLE_DEFINITION,
                    "AUTOINCREMENT is only allowed on an INTEGER PRIMARY KEY",
                ));
            }
            let column_name = columns.get(column).map_or("", |c| c.name.as_str());
            let mut sequence = super::sequence::SequenceOptions {
                min_value: Some(Some(0)),
                start: Some(0),
                ..Default::default()
            }
            .definition(format!("{name}_{column_name}_seq"))?;
            sequence.owner = Some(name.clone());
            sequence.autoincrement = true;
            constraints.sequences.push(sequence);
        }
        let mut unique_constraints = Vec::new();
        if row_id_column.is_none() && !primary_key.is_empty() {
            unique_constraints.push(primary_key.clone());
        }
        for unique in constraints.unique {
            if !(unique_constraints.contains(&unique)
                || row_id_column.is_some() && unique == primary_key)
            {
                unique_constraints.push(unique);
            }
        }
        // CREATE TABLE IF NOT EXISTS of an existing table does nothing, so has nothing to check.
        let exists = self.catalog.table(&name).is_some();
        let foreign_keys = if constraints.foreign_keys.is_empty() || exists {
            Vec::new()
        } else {
            let table = TableDef {
                columns: columns.clone(),
                row_id_column,
                primary_key: primary_key.clone(),
                ..draft
            };
            let mut own_unique_keys = unique_constraints.clone();
            if !primary_key.is_empty() {
                own_unique_keys.push(primary_key.clone());
            }
            foreign_key::validate(
                self.catalog,
                &table,
                &own_unique_keys,
                constraints.foreign_keys,
            )?
        };
        Ok(DdlStatement::CreateTable(CreateTable {
            name,
            if_not_exists: create.if_not_exists,
            columns,
            row_id_column,
            primary_key,
            unique_constraints,
            checks: constraints.checks,
            foreign_keys,
            as_query,
            sequences: constraints.sequences,
        }))
    }

    fn bind_create_index(&mut self, create: &ast::CreateIndex) -> Result<DdlStatement, BindError> {
        if create.predicate.is_some() {
            return Err(BindError::unsupported("partial indexes"));
        }
        if !create.include.is_empty() {
            return Err(BindError::unsupported("INCLUDE columns"));
        }
        let method = index_method(create.using.as_ref())?;
        let mut options: Vec<(String, String)> = Vec::with_capacity(create.with.len());
        for option in &create.with {
            let (option, value) = index_option(option)?;
            let value = method
                .check_option(&option, &value)
                .map_err(|message| BindError::new(sqlstate::INVALID_PARAMETER_VALUE, message))?;
            // PostgreSQL's rule and code: one value per parameter.
            if options.iter().any(|(name, _)| *name == option) {
                return Err(BindError::new(
                    sqlstate::INVALID_PARAMETER_VALUE,
                    format!("parameter \"{option}\" specified more than once"),
                ));
            }
            options.push((option, value));
        }
        let table = self.target_table(&create.table_name)?;
        let name = match &create.name {
            Some(name) => object_name(name)?,
            None => self.chosen_index_name(&table.name, create),
        };
        if !create.if_not_exists && self.catalog.indexes.contains_key(&name.to_lowercase()) {
            return Err(BindError::new(
                sqlstate::DUPLICATE_TABLE,
                format!("relation \"{name}\" already exists"),
            ));
        }
        let mut columns = Vec::with_capacity(create.columns.len());
        for column in &create.columns {
            let ast::Expr::Identifier(ident) = &column.column.expr else {
                return Err(BindError::unsupported("expressions in indexes"));
            };
            let column_name = ident_name(ident);
            let (position, column_def) = table.column(&column_name).ok_or_else(|| {
                BindError::new(
                    sqlstate::UNDEFINED_COLUMN,
                    format!("column \"{column_name}\" does not exist"),
                )
            })?;
            refuse_json_key(column_def.data_type)?;
            let descending = match &column.column.options.sort {
                None | Some(ast::OrderBySort::Asc) => false,
                Some(ast::OrderBySort::Desc) => true,
                Some(_) => return Err(BindError::unsupported("index order USING")),
            };
            let nulls_first = column.column.options.nulls_first.unwrap_or(descending);
            columns.push((position, KeyOrder::new(descending, nulls_first)));
        }
        let method = match method {
            IndexMethod::Hnsw(_) => hnsw_method(create, &table, &columns, &options)?,
            IndexMethod::Fts => fts_method(create, &table, &columns)?,
            other => other,
        };
        Ok(DdlStatement::CreateIndex(CreateIndex {
            name,
            table: table.name.clone(),
            columns,
            unique: create.unique,
            method,
            options,
            if_not_exists: create.if_not_exists,
        }))
    }

    /// The name PostgreSQL gives an index created without one (`ChooseIndexName`): the table's
    /// name, its columns' names and `idx`, joined by `_` (`items_emb_idx`), with the first of
    /// 1, 2, ... appended when a table, view or index already has that name.
    fn chosen_index_name(&self, table: &str, create: &ast::CreateIndex) -> String {
        let mut base = table.to_string();
        for column in &create.columns {
            base.push('_');
            match &column.column.expr {
                ast::Expr::Identifier(ident) => base.push_str(&ident_name(ident)),
                _ => base.push_str("expr"),
            }
        }
        base.push_str("_idx");
        let taken = |name: &str| {
            let lower = name.to_lowercase();
            self.catalog.indexes.contains_key(&lower)
                || self.catalog.views.contains_key(&lower)
                || self.catalog.table(name).is_some()
        };
        let mut name = base.clone();
        let mut suffix = 0u64;
        while taken(&name) {
            suffix += 1;
            name = format!("{base}{suffix}");
        }
        name
    }

    fn bind_create_view(&mut self, create: &ast::CreateView) -> Result<DdlStatement, BindError> {
        if create.materialized {
            return Err(BindError::unsupported("materialized views"));
        }
        let name = object_name(&create.name)?;
        let exists = self.catalog.table(&name).is_some()
            || self.catalog.views.contains_key(&name.to_lowercase());
        if exists && !create.if_not_exists && !create.or_replace {
            return Err(BindError::new(
                sqlstate::DUPLICATE_TABLE,
                format!("relation \"{name}\" already exists"),
            ));
        }
        // Bind once now so a broken view is rejected when created, not when used.
        let outer = std::mem::take(&mut self.outer);
        let plan = self.bind_query(&create.query);
        self.outer = outer;
        let plan = plan?;
        let column_names: Vec<String> =
            create.columns.iter().map(|c| ident_name(&c.name)).collect();
        if column_names.len() > plan.schema.len() {
            return Err(BindError::syntax(
                "CREATE VIEW specifies more column names than columns",
            ));
        }
        Ok(DdlStatement::CreateView {
            name,
            column_names,
            query: create.query.to_string(),
            if_not_exists: create.if_not_exists,
            or_replace: create.or_replace,
        })
    }

    fn bind_drop(
        &mut self,
        object_type: ast::ObjectType,
        if_exists: bool,
        names: &[ast::ObjectName],
        cascade: bool,
    ) -> Result<DdlStatement, BindError> {
        let kind = match object_type {
            ast::ObjectType::Table => ObjectKind::Table,
            ast::ObjectType::View => ObjectKind::View,
            ast::ObjectType::Index => ObjectKind::Index,
            other => return Err(BindError::unsupported(format!("DROP {other}"))),
        };
        let names: Vec<String> = names.iter().map(object_name).collect::<Result<_, _>>()?;
        if !if_exists {
            for name in &names {
                let key = name.to_lowercase();
                let (found, wrong_kind) = match kind {
                    ObjectKind::Table => (
                        self.catalog.table(name).is_some(),
                        self.catalog.views.contains_key(&key),
                    ),
                    ObjectKind::View => (
                        self.catalog.views.contains_key(&key),
                        self.catalog.table(name).is_some(),
                    ),
                    ObjectKind::Index => (self.catalog.indexes.contains_key(&key), false),
                };
                let what = match kind {
                    ObjectKind::Table => "table",
                    ObjectKind::View => "view",
                    ObjectKind::Index => "index",
                };
                if wrong_kind {
                    return Err(BindError::new(
                        sqlstate::WRONG_OBJECT_TYPE,
                        format!("\"{name}\" is not a {what}"),
                    ));
                }
                if !found {
                    let code = if kind == ObjectKind::Index {
                        sqlstate::UNDEFINED_OBJECT
                    } else {
                        sqlstate::UNDEFINED_TABLE
                    };
                    return Err(BindError::new(
                        code,
                        format!("{what} \"{name}\" does not exist"),
                    ));
                }
            }
        }
        Ok(DdlStatement::Drop {
            kind,
            names,
            if_exists,
            cascade,
        })
    }

    /// `TRUNCATE [TABLE] [ONLY] t [*] [, ...] [RESTART | CONTINUE IDENTITY] [CASCADE |
    /// RESTRICT]`: every name an existing table (42P01; a view or sequence is 42809), each
    /// kept once.
    fn bind_truncate(&mut self, truncate: &ast::Truncate) -> Result<DdlStatement, BindError> {
        if truncate.partitions.is_some() || truncate.on_cluster.is_some() || truncate.if_exists {
            return Err(BindError::unsupported(format!("{truncate}")));
        }
        let mut tables: Vec<String> = Vec::with_capacity(truncate.table_names.len());
        for target in &truncate.table_names {
            let name = object_name(&target.name)?;
            let Some(table) = self.catalog.table(&name) else {
                let code = if self.catalog.views.contains_key(&name.to_lowercase())
                    || self.catalog.sequences.contains_key(&name.to_lowercase())
                {
                    sqlstate::WRONG_OBJECT_TYPE
                } else {
                    sqlstate::UNDEFINED_TABLE
                };
                let message = if code == sqlstate::WRONG_OBJECT_TYPE {
                    format!("\"{name}\" is not a table")
                } else {
                    format!("relation \"{name}\" does not exist")
                };
                return Err(BindError::new(code, message));
            };
            if !tables
                .iter()
                .any(|known| known.eq_ignore_ascii_case(&table.name))
            {
                tables.push(table.name.clone());
            }
        }
        Ok(DdlStatement::Truncate {
            tables,
            restart_identity: matches!(
                truncate.identity,
                Some(ast::TruncateIdentityOption::Restart)
            ),
            cascade: matches!(truncate.cascade, Some(ast::CascadeOption::Cascade)),
        })
    }

    fn bind_alter_table(&mut self, alter: &ast::AlterTable) -> Result<DdlStatement, BindError> {
        let name = object_name(&alter.name)?;
        // pg_dump names views and sequences in `ALTER TABLE ... OWNER TO` too.
        if let [ast::AlterTableOperation::OwnerTo { .. }] = alter.operations.as_slice() {
            return self.bind_owner_to(&name, alter.if_exists);
        }
        let sequence_name = super::alter_column::identity_sequence_name(alter)?;
        let table = self.catalog.table(&name).cloned();
        if table.is_none() && !alter.if_exists {
            return Err(BindError::new(
                sqlstate::UNDEFINED_TABLE,
                format!("relation \"{name}\" does not exist"),
            ));
        }
        let [operation] = alter.operations.as_slice() else {
            return Err(BindError::unsupported(
                "several ALTER TABLE actions in one statement",
            ));
        };
        let action = match operation {
            ast::AlterTableOperation::AddColumn {
                if_not_exists,
                column_def,
                column_position,
                ..
            } => {
                if column_position.is_some() {
                    return Err(BindError::unsupported("column positions"));
                }
                let slot = table.as_ref().map_or(0, |t| t.slot_count);
                check_column_count(slot + 1)?;
                let mut constraints = Constraints::default();
                let column = self.bind_column_def(column_def, slot, &mut constraints, &name)?;
                if let (Some(table), Some(_)) = (&table, &column.generated) {
                    let mut draft = TableDef::clone(table);
                    draft.columns.push(column.clone());
                    draft.slot_count += 1;
                    super::bind_generated_column(&draft, draft.columns.len() - 1, self.catalog)?;
                }
                if !constraints.sequences.is_empty() || constraints.autoincrement.is_some() {
                    return Err(BindError::unsupported(
                        "ALTER TABLE ADD COLUMN of a SERIAL type",
                    ));
                }
                if constraints.primary_key.is_some()
                    || !constraints.unique.is_empty()
                    || !constraints.checks.is_empty()
                {
                    return Err(BindError::unsupported(
                        "constraints other than REFERENCES in ALTER TABLE ADD COLUMN",
                    ));
                }
                let foreign_keys = match &table {
                    Some(table) if !constraints.foreign_keys.is_empty() => {
                        foreign_key::validate_added_column(
                            self.catalog,
                            table,
                            &column,
                            constraints.foreign_keys,
                        )?
                    }
                    _ => Vec::new(),
                };
                if !*if_not_exists
                    && table
                        .as_ref()
                        .is_some_and(|t| t.column(&column.name).is_some())
                {
                    return Err(BindError::new(
                        sqlstate::DUPLICATE_COLUMN,
                        format!(
                            "column \"{}\" of relation \"{name}\" already exists",
                            column.name
                        ),
                    ));
                }
                AlterTable::AddColumn {
                    table: name,
                    column,
                    foreign_keys,
                    if_not_exists: *if_not_exists,
                }
            }
            ast::AlterTableOperation::DropColumn {
                column_names,
                if_exists,
                ..
            } => {
                let [column] = column_names.as_slice() else {
                    return Err(BindError::unsupported("dropping several columns at once"));
                };
                let column = ident_name(column);
                if !*if_exists && table.as_ref().is_some_and(|t| t.column(&column).is_none()) {
                    return Err(BindError::new(
                        sqlstate::UNDEFINED_COLUMN,
                        format!("column \"{column}\" of relation \"{name}\" does not exist"),
                    ));
                }
                AlterTable::DropColumn {
                    table: name,
                    column,
                    if_exists: *if_exists,
                }
            }
            ast::AlterTableOperation::RenameColumn {
                old_column_name,
                new_column_name,
            } => {
                let old_name = ident_name(old_column_name);
                if table
                    .as_ref()
                    .is_some_and(|t| t.column(&old_name).is_none())
                {
                    return Err(BindError::new(
                        sqlstate::UNDEFINED_COLUMN,
                        format!("column \"{old_name}\" does not exist"),
                    ));
                }
                AlterTable::RenameColumn {
                    table: name,
                    old_name,
                    new_name: ident_name(new_column_name),
                }
            }
            ast::AlterTableOperation::RenameTable { table_name } => {
                let new_name = match table_name {
                    ast::RenameTableNameKind::As(new) | ast::RenameTableNameKind::To(new) => {
                        object_name(new)?
                    }
                };
                AlterTable::RenameTable {
                    table: name,
                    new_name,
                }
            }
            ast::AlterTableOperation::AddConstraint {
                constraint: ast::TableConstraint::ForeignKey(key),
                not_valid,
            } => {
                if *not_valid {
                    return Err(BindError::unsupported("NOT VALID constraints"));
                }
                let Some(table) = &table else {
                    return Err(BindError::new(
                        sqlstate::UNDEFINED_TABLE,
                        format!("relation \"{name}\" does not exist"),
                    ));
                };
                AlterTable::AddForeignKey {
                    key: foreign_key::validate_added_key(self.catalog, table, key)?,
                    table: name,
                }
            }
            ast::AlterTableOperation::AddConstraint {
                constraint:
                    constraint @ (ast::TableConstraint::PrimaryKey(_) | ast::TableConstraint::Unique(_)),
                not_valid: false,
            } => {
                let Some(table) = &table else {
                    return Err(BindError::new(
                        sqlstate::UNDEFINED_TABLE,
                        format!("relation \"{name}\" does not exist"),
                    ));
                };
                let (constraint_name, key_columns, primary) = match constraint {
                    ast::TableConstraint::PrimaryKey(key)
                        if key.include.is_empty() && key.characteristics.is_none() =>
                    {
                        (&key.name, &key.columns, true)
                    }
                    ast::TableConstraint::Unique(key)
                        if key.include.is_empty() && key.characteristics.is_none() =>
                    {
                        (&key.name, &key.columns, false)
                    }
                    other => {
                        return Err(BindError::unsupported(format!("ALTER TABLE ADD {other}")));
                    }
                };
                let mut columns = Vec::with_capacity(key_columns.len());
                for key_column in key_columns {
                    let ast::Expr::Identifier(ident) = &key_column.column.expr else {
                        return Err(BindError::unsupported(format!(
                            "a key on the expression {}",
                            key_column.column.expr
                        )));
                    };
                    let column_name = ident_name(ident);
                    let position = table
                        .columns
                        .iter()
                        .position(|column| column.name.eq_ignore_ascii_case(&column_name))
                        .ok_or_else(|| {
                            BindError::new(
                                sqlstate::UNDEFINED_COLUMN,
                                format!("column \"{column_name}\" named in key does not exist"),
                            )
                        })?;
                    if columns.contains(&position) {
                        return Err(BindError::new(
                            sqlstate::DUPLICATE_COLUMN,
                            format!(
                                "column \"{column_name}\" appears twice in {} constraint",
                                if primary { "primary key" } else { "unique" }
                            ),
                        ));
                    }
                    columns.push(position);
                }
                AlterTable::AddUnique {
                    table: name,
                    name: constraint_name.as_ref().map(ident_name),
                    columns,
                    primary,
                }
            }
            ast::AlterTableOperation::DropConstraint {
                if_exists,
                name: constraint,
                ..
            } => AlterTable::DropConstraint {
                table: name,
                name: ident_name(constraint),
                if_exists: *if_exists,
            },
            ast::AlterTableOperation::AlterColumn { column_name, op } => {
                let Some(table) = &table else {
                    // IF EXISTS on a table that does not exist.
                    return Ok(DdlStatement::NoEffect);
                };
                self.bind_alter_column(table, column_name, op, sequence_name)?
            }
            other => return Err(BindError::unsupported(format!("ALTER TABLE {other}"))),
        };
        Ok(DdlStatement::AlterTable(action))
    }
}

/// The setting a SET or RESET names: a namespaced one (`hnsw.ef_search`) or a plain name.
fn variable_name(variable: &ast::ObjectName) -> Result<String, BindError> {
    setting_name(
        &variable
            .0
            .iter()
            .filter_map(|part| part.as_ident().map(ident_name))
            .collect::<Vec<_>>(),
    )
    .map_or_else(|| object_name(variable), Ok)
}

/// The name of a namespaced setting (`hnsw.ef_search`, pgvector's), from its parts; `None`
/// for any other name.
fn setting_name(parts: &[String]) -> Option<String> {
    match parts {
        [namespace, name] if namespace.eq_ignore_ascii_case("hnsw") => {
            Some(format!("hnsw.{}", name.to_lowercase()))
        }
        _ => None,
    }
}

/// A setting's value as text: strings without quotes, anything else as written.
fn setting_text(value: &ast::Value) -> String {
    match value {
        ast::Value::SingleQuotedString(text) | ast::Value::DoubleQuotedString(text) => text.clone(),
        other => other.to_string(),
    }
}

fn expr_text(expr: &ast::Expr) -> String {
    match expr {
        ast::Expr::Value(value) => setting_text(&value.value),
        ast::Expr::Identifier(ident) => ident.value.clone(),
        other => other.to_string(),
    }
}

/// The leading keywords of a statement, to name it in "not supported" messages.
fn statement_name(statement: &ast::Statement) -> String {
    let text = statement.to_string();
    let words: Vec<&str> = text.split_whitespace().take(2).collect();
    words.join(" ").to_uppercase()
}

/// Refuses a table of more than [`MAX_TABLE_COLUMNS`] column slots (a file written before
/// DROP COLUMN compacted slots may still count dropped columns).
fn check_column_count(slots: usize) -> Result<(), BindError> {
    if slots > MAX_TABLE_COLUMNS {
        return Err(BindError::new(
            sqlstate::TOO_MANY_COLUMNS,
            format!("tables can have at most {MAX_TABLE_COLUMNS} columns"),
        ));
    }
    Ok(())
}

/// Index keys (CREATE INDEX, PRIMARY KEY, UNIQUE) of json or jsonb columns are not
/// supported: the storage key encoding has no JSON form (0A000).
fn refuse_json_key(data_type: DataType) -> Result<(), BindError> {
    if matches!(data_type, DataType::Json | DataType::Jsonb) {
        return Err(BindError::unsupported(format!(
            "an index key on a {data_type} column"
        )));
    }
    Ok(())
}

/// The access method of `CREATE INDEX ... USING method` (B+tree without USING): 42704 for a
/// name that is no access method, 0A000 for one of PostgreSQL's that Basalt lacks.
fn index_method(using: Option<&ast::IndexType>) -> Result<IndexMethod, BindError> {
    let Some(using) = using else {
        return Ok(IndexMethod::BTree);
    };
    IndexMethod::from_name(&using.to_string()).map_err(|unknown| match unknown {
        UnknownIndexMethod::NotSupported(name) => {
            BindError::unsupported(format!("access method \"{name}\""))
        }
        UnknownIndexMethod::DoesNotExist(name) => BindError::new(
            sqlstate::UNDEFINED_OBJECT,
            format!("access method \"{name}\" does not exist"),
        ),
    })
}

/// 0A000 naming the access method: it does not support `what`.
fn method_unsupported(method: &str, what: &str) -> BindError {
    BindError::new(
        sqlstate::FEATURE_NOT_SUPPORTED,
        format!("access method \"{method}\" does not support {what}"),
    )
}

/// What every method without a key order (hnsw, fts) requires of CREATE INDEX: not UNIQUE,
/// no ASC/DESC on any column (0A000 naming the method otherwise).
fn unordered_columns(create: &ast::CreateIndex, method: &str) -> Result<(), BindError> {
    if create.unique {
        return Err(method_unsupported(method, "unique indexes"));
    }
    let ordered = |column: &ast::IndexColumn| {
        column.column.options.sort.is_some() || column.column.options.nulls_first.is_some()
    };
    if create.columns.iter().any(ordered) {
        return Err(method_unsupported(method, "ASC/DESC options"));
    }
    Ok(())
}

/// [`unordered_columns`], and one column: its position in the table and its clause.
fn single_column<'c>(
    create: &'c ast::CreateIndex,
    columns: &[(usize, KeyOrder)],
    method: &str,
) -> Result<(usize, &'c ast::IndexColumn), BindError> {
    unordered_columns(create, method)?;
    let ([(position, _)], [column]) = (columns, create.columns.as_slice()) else {
        return Err(method_unsupported(method, "multicolumn indexes"));
    };
    Ok((*position, column))
}

/// `CREATE INDEX ... USING hnsw`: pgvector's rules. One column, of a vector type with
/// declared dimensions; no UNIQUE, no ASC/DESC; the operator class chooses the distance
/// (`vector_l2_ops` when none is named); `ef_construction` at least `2 * m`.
fn hnsw_method(
    create: &ast::CreateIndex,
    table: &TableDef,
    columns: &[(usize, KeyOrder)],
    options: &[(String, String)],
) -> Result<IndexMethod, BindError> {
    let (position, column) = single_column(create, columns, "hnsw")?;
    let class = column
        .operator_class
        .as_ref()
        .map_or_else(|| "vector_l2_ops".to_string(), |name| name.to_string());
    // pg_dump qualifies pgvector's operator classes with the extension's schema.
    let class = class.strip_prefix("public.").unwrap_or(&class).to_string();
    let metric = IndexMethod::hnsw_metric(&class).ok_or_else(|| {
        BindError::new(
            sqlstate::UNDEFINED_OBJECT,
            format!("operator class \"{class}\" does not exist for access method \"hnsw\""),
        )
    })?;
    match table.columns.get(position).map(|c| c.data_type) {
        Some(DataType::Vector(Some(_))) => {}
        Some(DataType::Vector(None)) => {
            return Err(BindError::new(
                sqlstate::DATA_EXCEPTION,
                "column does not have dimensions",
            ));
        }
        other => {
            return Err(BindError::new(
                sqlstate::DATATYPE_MISMATCH,
                format!(
                    "operator class \"{class}\" does not accept data type {}",
                    other.map_or("unknown", DataType::name)
                ),
            ));
        }
    }
    let option = |name: &str, default: usize| {
        options
            .iter()
            .find(|(option, _)| option == name)
            .and_then(|(_, value)| value.parse::<usize>().ok())
            .unwrap_or(default)
    };
    if option("ef_construction", 64) < 2 * option("m", 16) {
        return Err(BindError::new(
            sqlstate::INVALID_PARAMETER_VALUE,
            "ef_construction must be greater than or equal to 2 * m",
        ));
    }
    Ok(IndexMethod::Hnsw(metric))
}

/// `CREATE INDEX ... USING fts`: one or more text columns, each at most once (their texts
/// are one document per row); no UNIQUE, no ASC/DESC, no operator class. The options were
/// checked against the analyzer already.
fn fts_method(
    create: &ast::CreateIndex,
    table: &TableDef,
    columns: &[(usize, KeyOrder)],
) -> Result<IndexMethod, BindError> {
    unordered_columns(create, "fts")?;
    for (at, (column, (position, _))) in create.columns.iter().zip(columns).enumerate() {
        if let Some(class) = &column.operator_class {
            return Err(BindError::new(
                sqlstate::UNDEFINED_OBJECT,
                format!("operator class \"{class}\" does not exist for access method \"fts\""),
            ));
        }
        let column = table.columns.get(*position);
        match column.map(|c| c.data_type) {
            Some(data_type) if data_type.is_text() => {}
            other => {
                return Err(BindError::new(
                    sqlstate::DATATYPE_MISMATCH,
                    format!(
                        "access method \"fts\" indexes text, not {}",
                        other.map_or("unknown", DataType::name)
                    ),
                ));
            }
        }
        // Twice would count its words twice.
        if columns[..at].iter().any(|(p, _)| p == position) {
            return Err(BindError::new(
                sqlstate::DUPLICATE_COLUMN,
                format!(
                    "column \"{}\" appears twice in a full-text index",
                    column.map_or("", |c| c.name.as_str())
                ),
            ));
        }
    }
    Ok(IndexMethod::Fts)
}

/// One `name = value` of `CREATE INDEX ... WITH (...)`, the value a literal: a number, a
/// string, or a word (`on`, `off`, `true`, `false` as booleans, as PostgreSQL reads them).
fn index_option(option: &ast::Expr) -> Result<(String, Value), BindError> {
    let invalid = || BindError::syntax(format!("invalid index option: {option}"));
    let ast::Expr::BinaryOp {
        left,
        op: ast::BinaryOperator::Eq,
        right,
    } = option
    else {
        return Err(invalid());
    };
    let ast::Expr::Identifier(name) = &**left else {
        return Err(invalid());
    };
    let word = |text: &str| match text.to_ascii_lowercase().as_str() {
        "true" | "on" | "yes" => Value::Boolean(true),
        "false" | "off" | "no" => Value::Boolean(false),
        _ => Value::Text(text.to_owned()),
    };
    let value = match &**right {
        ast::Expr::Identifier(ident) => word(&ident.value),
        ast::Expr::Value(value) => match &value.value {
            ast::Value::Number(number, _) => number
                .parse::<i64>()
                .map(Value::Integer)
                .unwrap_or_else(|_| Value::Text(number.clone())),
            ast::Value::SingleQuotedString(text) => word(text),
            ast::Value::Boolean(flag) => Value::Boolean(*flag),
            _ => return Err(invalid()),
        },
        _ => return Err(invalid()),
    };
    Ok((name.value.to_ascii_lowercase(), value))
}
