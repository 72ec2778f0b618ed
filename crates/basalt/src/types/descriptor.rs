//! [`TypeDescriptor`]: one record per SQL type of what the layers around it need to know
//! about the type as a whole — its name, how a table leaf stores it, its tag in catalog
//! entries, the modifier its declaration may take, and what PostgreSQL calls it on the wire
//! (type OID, name, length) — looked up through [`DataType::descriptor`], the one exhaustive
//! dispatch over types for these facts.
//!
//! What it guarantees: every type has exactly one descriptor, catalog tags are distinct and
//! stable (they are written into database files; `docs/file-format.md` lists them), and
//! [`DataType::from_catalog_tag`] inverts [`TypeDescriptor::catalog_tag`]. The tests below
//! check all of it over [`ALL_TYPES`], which a new type must join.
//!
//! How it fits: the catalog encodes column types through it, the table layer asks it for a
//! column's storage kind, the API reports names and modifiers from it, and the wire server
//! will map types to PostgreSQL OIDs with it. The value-level behaviour of a type (casts,
//! comparison, key and spill encodings, text forms) lives in the modules of `types/` and
//! `exec/` named in `docs/contributing/adding-a-type.md`.

use super::modifier::ModifierKind;
use super::value::DataType;
use crate::storage::btree::ColumnKind;

/// What the engine knows about one SQL type as a whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TypeDescriptor {
    /// The type.
    pub data_type: DataType,
    /// The SQL name used in messages and introspection (`integer`, `timestamp`).
    pub name: &'static str,
    /// The byte that stands for the type in catalog entries. Written into files: never
    /// reuse or renumber one.
    pub catalog_tag: u8,
    /// How a table leaf stores a value of the type.
    pub storage: ColumnKind,
    /// The modifier a declaration of the type may carry (`VARCHAR(n)`'s length).
    pub modifier: ModifierKind,
    /// PostgreSQL's OID for the type, as the wire protocol reports it.
    pub pg_oid: u32,
    /// PostgreSQL's name for the type (`pg_type.typname`).
    pub pg_name: &'static str,
    /// PostgreSQL's `typlen`: the fixed size in bytes, or -1 for a variable-length type.
    pub pg_typlen: i16,
}

/// Every type, in catalog-tag order. A new type is added here and to
/// [`DataType::descriptor`]; the tests check the two agree.
pub const ALL_TYPES: [DataType; 16] = [
    DataType::Null,
    DataType::Boolean,
    DataType::Integer,
    DataType::Real,
    DataType::Text(None),
    DataType::Blob,
    DataType::Date,
    DataType::Timestamp,
    DataType::Json,
    DataType::Jsonb,
    DataType::Interval,
    DataType::Uuid,
    DataType::Vector(None),
    DataType::TimestampTz,
    DataType::Numeric(None),
    DataType::Time(None),
];

/// An array type's catalog tag is its element type's tag with this bit set (`integer[]` is
/// `0x82`), so one byte still names every column type.
pub const ARRAY_TAG_BIT: u8 = 0x80;

/// An array type's descriptor: PostgreSQL's array type of the element's wire type
/// (`_int8`, OID 1016, for Basalt's 64-bit integers), stored as a variable-length cell.
fn array_descriptor(element: DataType) -> &'static TypeDescriptor {
    macro_rules! array {
        ($element:expr, $tag:literal, $name:literal, $oid:literal, $pg_name:literal) => {
            &const {
                descriptor(
                    DataType::Array(&$element),
                    $name,
                    ARRAY_TAG_BIT | $tag,
                    ColumnKind::Var,
                    ModifierKind::None,
                    ($oid, $pg_name, -1),
                )
            }
        };
    }
    match element {
        DataType::Boolean => array!(DataType::Boolean, 1, "boolean[]", 1000, "_bool"),
        DataType::Integer => array!(DataType::Integer, 2, "integer[]", 1016, "_int8"),
        DataType::Real => array!(DataType::Real, 3, "real[]", 1022, "_float8"),
        DataType::Text(_) => array!(DataType::Text(None), 4, "text[]", 1009, "_text"),
        DataType::Blob => array!(DataType::Blob, 5, "blob[]", 1001, "_bytea"),
        DataType::Date => array!(DataType::Date, 6, "date[]", 1182, "_date"),
        DataType::Timestamp => array!(DataType::Timestamp, 7, "timestamp[]", 1115, "_timestamp"),
        DataType::Json => array!(DataType::Json, 8, "json[]", 199, "_json"),
        DataType::Jsonb => array!(DataType::Jsonb, 9, "jsonb[]", 3807, "_jsonb"),
        DataType::Interval => array!(DataType::Interval, 10, "interval[]", 1187, "_interval"),
        DataType::Uuid => array!(DataType::Uuid, 11, "uuid[]", 2951, "_uuid"),
        DataType::TimestampTz => {
            array!(
                DataType::TimestampTz,
                13,
                "timestamptz[]",
                1185,
                "_timestamptz"
            )
        }
        DataType::Numeric(_) => array!(DataType::Numeric(None), 14, "numeric[]", 1231, "_numeric"),
        DataType::Time(_) => array!(DataType::Time(None), 15, "time[]", 1183, "_time"),
        // `DataType::array_of` builds no other array type; a stand-in rather than a panic.
        DataType::Null | DataType::Vector(_) | DataType::Array(_) => {
            array!(DataType::Text(None), 4, "text[]", 1009, "_text")
        }
    }
}

/// The OID reported for VECTOR (see [`DataType::descriptor`]).
pub const VECTOR_OID: u32 = 16_385;

const fn descriptor(
    data_type: DataType,
    name: &'static str,
    catalog_tag: u8,
    storage: ColumnKind,
    modifier: ModifierKind,
    pg: (u32, &'static str, i16),
) -> TypeDescriptor {
    TypeDescriptor {
        data_type,
        name,
        catalog_tag,
        storage,
        modifier,
        pg_oid: pg.0,
        pg_name: pg.1,
        pg_typlen: pg.2,
    }
}

impl DataType {
    /// The type's descriptor: the one exhaustive dispatch for the facts it holds.
    ///
    /// Intervals and UUIDs are 16 bytes, wider than a fixed slot: heap bytes like text. All
    /// integer types are 64-bit (int8 on the wire until declared widths are reported) and
    /// every float is a double (float8). Each descriptor is a constant, so this is a lookup.
    pub fn descriptor(self) -> &'static TypeDescriptor {
        match self {
            DataType::Null => {
                &const {
                    descriptor(
                        DataType::Null,
                        "unknown",
                        0,
                        ColumnKind::Var,
                        ModifierKind::None,
                        (705, "unknown", -2),
                    )
                }
            }
            DataType::Boolean => {
                &const {
                    descriptor(
                        DataType::Boolean,
                        "boolean",
                        1,
                        ColumnKind::Fixed1,
                        ModifierKind::None,
                        (16, "bool", 1),
                    )
                }
            }
            DataType::Integer => {
                &const {
                    descriptor(
                        DataType::Integer,
                        "integer",
                        2,
                        ColumnKind::Fixed8,
                        ModifierKind::None,
                        (20, "int8", 8),
                    )
                }
            }
            DataType::Real => {
                &const {
                    descriptor(
                        DataType::Real,
                        "real",
                        3,
                        ColumnKind::Fixed8,
                        ModifierKind::None,
                        (701, "float8", 8),
                    )
                }
            }
            DataType::Numeric(_) => {
                &const {
                    descriptor(
                        DataType::Numeric(None),
                        "numeric",
                        14,
                        ColumnKind::Var,
                        ModifierKind::PrecisionScale,
                        (1700, "numeric", -1),
                    )
                }
            }
            DataType::Text(_) => {
                &const {
                    descriptor(
                        DataType::Text(None),
                        "text",
                        4,
                        ColumnKind::Var,
                        ModifierKind::Length,
                        (25, "text", -1),
                    )
                }
            }
            DataType::Blob => {
                &const {
                    descriptor(
                        DataType::Blob,
                        "blob",
                        5,
                        ColumnKind::Var,
                        ModifierKind::None,
                        (17, "bytea", -1),
                    )
                }
            }
            DataType::Date => {
                &const {
                    descriptor(
                        DataType::Date,
                        "date",
                        6,
                        ColumnKind::Fixed8,
                        ModifierKind::None,
                        (1082, "date", 4),
                    )
                }
            }
            DataType::Timestamp => {
                &const {
                    descriptor(
                        DataType::Timestamp,
                        "timestamp",
                        7,
                        ColumnKind::Fixed8,
                        ModifierKind::None,
                        (1114, "timestamp", 8),
                    )
                }
            }
            DataType::Json => {
                &const {
                    descriptor(
                        DataType::Json,
                        "json",
                        8,
                        ColumnKind::Var,
                        ModifierKind::None,
                        (114, "json", -1),
                    )
                }
            }
            DataType::Jsonb => {
                &const {
                    descriptor(
                        DataType::Jsonb,
                        "jsonb",
                        9,
                        ColumnKind::Var,
                        ModifierKind::None,
                        (3802, "jsonb", -1),
                    )
                }
            }
            DataType::Interval => {
                &const {
                    descriptor(
                        DataType::Interval,
                        "interval",
                        10,
                        ColumnKind::Var,
                        ModifierKind::None,
                        (1186, "interval", 16),
                    )
                }
            }
            DataType::Uuid => {
                &const {
                    descriptor(
                        DataType::Uuid,
                        "uuid",
                        11,
                        ColumnKind::Var,
                        ModifierKind::None,
                        (2950, "uuid", 16),
                    )
                }
            }
            DataType::TimestampTz => {
                &const {
                    descriptor(
                        DataType::TimestampTz,
                        "timestamptz",
                        13,
                        ColumnKind::Fixed8,
                        ModifierKind::None,
                        (1184, "timestamptz", 8),
                    )
                }
            }
            DataType::Time(_) => {
                &const {
                    descriptor(
                        DataType::Time(None),
                        "time without time zone",
                        15,
                        ColumnKind::Fixed8,
                        ModifierKind::Precision,
                        (1083, "time", 8),
                    )
                }
            }
            // pgvector's type has no fixed OID (CREATE EXTENSION assigns one); Basalt
            // reports this one, the first OID PostgreSQL leaves to user objects, and clients
            // look it up by name (`SELECT oid FROM pg_type WHERE typname = 'vector'`).
            DataType::Vector(_) => {
                &const {
                    descriptor(
                        DataType::Vector(None),
                        "vector",
                        12,
                        ColumnKind::Var,
                        ModifierKind::Dimensions,
                        (VECTOR_OID, "vector", -1),
                    )
                }
            }
            DataType::Array(element) => array_descriptor(*element),
        }
    }

    /// The type a catalog entry's tag byte stands for.
    pub fn from_catalog_tag(tag: u8) -> Option<DataType> {
        if tag & ARRAY_TAG_BIT != 0 {
            return DataType::from_catalog_tag(tag & !ARRAY_TAG_BIT)?.array_of();
        }
        ALL_TYPES
            .into_iter()
            .find(|data_type| data_type.descriptor().catalog_tag == tag)
    }

    /// How a table leaf stores values of this type.
    pub fn storage_kind(self) -> ColumnKind {
        self.descriptor().storage
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn every_type_has_its_own_descriptor_and_tag() {
        let mut tags = HashSet::new();
        let mut oids = HashSet::new();
        // Every scalar type, then the array type of each one that arrays can hold.
        let array_types = ALL_TYPES.into_iter().filter_map(DataType::array_of);
        for data_type in ALL_TYPES.into_iter().chain(array_types) {
            let descriptor = data_type.descriptor();
            assert_eq!(descriptor.data_type, data_type);
            assert!(
                tags.insert(descriptor.catalog_tag),
                "{data_type} tag reused"
            );
            assert!(oids.insert(descriptor.pg_oid), "{data_type} OID reused");
            assert_eq!(
                DataType::from_catalog_tag(descriptor.catalog_tag),
                Some(data_type)
            );
            match data_type.element_type() {
                Some(element) => assert_eq!(
                    element.descriptor().catalog_tag | ARRAY_TAG_BIT,
                    descriptor.catalog_tag
                ),
                None => assert_eq!(data_type.name(), descriptor.name),
            }
        }
        assert_eq!(DataType::from_catalog_tag(200), None);
        assert_eq!(
            DataType::Integer.array_of().map(|t| t.descriptor().pg_oid),
            Some(1016)
        );
        assert_eq!(DataType::from_catalog_tag(ARRAY_TAG_BIT | 12), None);
    }

    /// The tags written into files before descriptors existed (catalog format 1-3) keep
    /// their meaning.
    #[test]
    fn catalog_tags_are_the_ones_files_hold() {
        let tags: Vec<u8> = ALL_TYPES
            .iter()
            .map(|data_type| data_type.descriptor().catalog_tag)
            .collect();
        assert_eq!(tags, (0..16).collect::<Vec<u8>>());
        assert_eq!(DataType::Uuid.descriptor().catalog_tag, 11);
        assert_eq!(DataType::Json.descriptor().catalog_tag, 8);
    }

    #[test]
    fn fixed_storage_matches_postgresql_width_where_it_is_fixed() {
        for data_type in ALL_TYPES {
            let descriptor = data_type.descriptor();
            if descriptor.storage == ColumnKind::Var {
                continue;
            }
            // A fixed slot holds at least PostgreSQL's width (dates widen to 8 bytes).
            let slot = descriptor.storage as i16;
            assert!(slot >= descriptor.pg_typlen, "{data_type}");
        }
    }
}
