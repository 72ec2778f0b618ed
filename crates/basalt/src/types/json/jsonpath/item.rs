//! SQL/JSON items: the values a jsonpath evaluation works on and returns.
//!
//! An item is a JSON value (read from jsonb text through `types::json::parse`) or a
//! date/time made by `.datetime()`. Numbers stay text in `numeric` form, so nothing is
//! rounded through `f64`: comparisons go through jsonb's semantic number order and
//! arithmetic through [`crate::types::numeric`]. Results go back to jsonb text with
//! [`Item::to_jsonb`], which writes the normalized form (a date/time becomes its ISO string,
//! as PostgreSQL's jsonb output of a datetime item).

use super::datetime::DateTime;
use crate::types::TypeError;
use crate::types::json::parse::Tree;
use crate::types::json::write;

/// One item.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Null,
    Bool(bool),
    /// `numeric` text.
    Number(String),
    String(String),
    Array(Vec<Item>),
    /// Members in jsonb order, keys unique.
    Object(Vec<(String, Item)>),
    DateTime(DateTime),
}

impl Item {
    /// The item of a parsed JSON value (members of objects: the last duplicate wins, as
    /// jsonb keeps it; jsonb input has none).
    pub fn from_tree(tree: &Tree<'_>) -> Result<Item, TypeError> {
        Ok(match tree {
            Tree::Null => Item::Null,
            Tree::Boolean(b) => Item::Bool(*b),
            Tree::Number(n) => Item::Number(write::numeric_text(n)?),
            Tree::String(s) => Item::String(s.clone()),
            Tree::Array(items) => Item::Array(
                items
                    .iter()
                    .map(Item::from_tree)
                    .collect::<Result<_, _>>()?,
            ),
            Tree::Object(members) => Item::Object(
                write::unique_sorted_members(members)
                    .into_iter()
                    .map(|(key, value)| Ok((key.to_owned(), Item::from_tree(value)?)))
                    .collect::<Result<_, TypeError>>()?,
            ),
        })
    }

    /// The item of jsonb (or json) text.
    pub fn from_json_text(text: &str) -> Result<Item, TypeError> {
        Item::from_tree(&crate::types::json::parse::parse_tree(text)?)
    }

    /// The value's JSON tree (a date/time as its string).
    fn tree(&self) -> Tree<'_> {
        match self {
            Item::Null => Tree::Null,
            Item::Bool(b) => Tree::Boolean(*b),
            Item::Number(n) => Tree::Number(n),
            Item::String(s) => Tree::String(s.clone()),
            Item::Array(items) => Tree::Array(items.iter().map(Item::tree).collect()),
            Item::Object(members) => Tree::Object(
                members
                    .iter()
                    .map(|(key, value)| (key.clone(), value.tree()))
                    .collect(),
            ),
            Item::DateTime(datetime) => Tree::String(datetime.text()),
        }
    }

    /// The item as normalized jsonb text.
    pub fn to_jsonb(&self) -> Result<String, TypeError> {
        write::normalized(&self.tree())
    }

    /// The name `.type()` gives.
    pub fn type_name(&self) -> &'static str {
        match self {
            Item::Null => "null",
            Item::Bool(_) => "boolean",
            Item::Number(_) => "number",
            Item::String(_) => "string",
            Item::Array(_) => "array",
            Item::Object(_) => "object",
            Item::DateTime(datetime) => datetime.type_name(),
        }
    }
}
