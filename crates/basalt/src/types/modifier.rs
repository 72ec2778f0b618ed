//! [`TypeModifier`]: what a type name's parenthesised arguments add to the type —
//! `VARCHAR(20)`'s length — kept with a column's definition in the catalog and reported with
//! result columns (the API's statement descriptions, the wire protocol's `atttypmod`).
//!
//! A type's descriptor says which kind of modifier its declarations take
//! ([`ModifierKind`]); a column declared with one keeps it in its catalog entry (format 5 and
//! later, see `docs/file-format.md`), and the write path enforces it.

/// A declared type's modifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TypeModifier {
    /// The maximum length in characters of `VARCHAR(n)` / `CHAR(n)`.
    Length(u32),
    /// The number of elements of `VECTOR(n)`.
    Dimensions(u32),
    /// The precision and scale of `NUMERIC(p, s)`.
    PrecisionScale(u32, u32),
    /// The fractional-second precision of `TIME(p)` (0 to 6).
    Precision(u32),
}

/// Which modifier a type's declaration may carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ModifierKind {
    /// None: the type takes no arguments.
    None,
    /// A maximum length ([`TypeModifier::Length`]).
    Length,
    /// A number of dimensions ([`TypeModifier::Dimensions`]).
    Dimensions,
    /// A precision and scale ([`TypeModifier::PrecisionScale`]).
    PrecisionScale,
    /// A fractional-second precision ([`TypeModifier::Precision`]).
    Precision,
}

/// PostgreSQL's `VARHDRSZ`: typmods of length-limited types count the 4-byte header.
const VARHDRSZ: i32 = 4;

impl TypeModifier {
    /// The kind of modifier this is.
    pub fn kind(self) -> ModifierKind {
        match self {
            TypeModifier::Length(_) => ModifierKind::Length,
            TypeModifier::Dimensions(_) => ModifierKind::Dimensions,
            TypeModifier::PrecisionScale(..) => ModifierKind::PrecisionScale,
            TypeModifier::Precision(_) => ModifierKind::Precision,
        }
    }

    /// The modifier as PostgreSQL's `atttypmod` (what RowDescription and `pg_attribute`
    /// report): `VARCHAR(n)` is `n + 4`, pgvector's `VECTOR(n)` is `n`.
    pub fn pg_typmod(self) -> i32 {
        match self {
            TypeModifier::Length(length) => {
                i32::try_from(length).map_or(i32::MAX, |length| length.saturating_add(VARHDRSZ))
            }
            TypeModifier::Dimensions(dimensions) | TypeModifier::Precision(dimensions) => {
                i32::try_from(dimensions).unwrap_or(i32::MAX)
            }
            // PostgreSQL's numeric typmod: ((precision << 16) | scale) + VARHDRSZ.
            TypeModifier::PrecisionScale(precision, scale) => {
                i32::try_from(((precision & 0xFFFF) << 16) | (scale & 0xFFFF))
                    .map_or(i32::MAX, |typmod| typmod.saturating_add(VARHDRSZ))
            }
        }
    }

    /// The modifier in a catalog entry: a tag byte and two 32-bit arguments (the second
    /// unused by a length). Tag 0 means no modifier and is never produced here.
    pub fn to_catalog(self) -> (u8, u32, u32) {
        match self {
            TypeModifier::Length(length) => (1, length, 0),
            TypeModifier::Dimensions(dimensions) => (2, dimensions, 0),
            TypeModifier::PrecisionScale(precision, scale) => (3, precision, scale),
            TypeModifier::Precision(precision) => (4, precision, 0),
        }
    }

    /// The modifier a catalog entry's `(tag, first, second)` stands for: `Ok(None)` for tag
    /// 0, `Err` with the tag for one this version does not know.
    pub fn from_catalog(tag: u8, first: u32, second: u32) -> Result<Option<TypeModifier>, u8> {
        match tag {
            0 => Ok(None),
            1 => Ok(Some(TypeModifier::Length(first))),
            2 => Ok(Some(TypeModifier::Dimensions(first))),
            3 => Ok(Some(TypeModifier::PrecisionScale(first, second))),
            4 => Ok(Some(TypeModifier::Precision(first))),
            other => Err(other),
        }
    }
}

impl std::fmt::Display for TypeModifier {
    /// The modifier as written after the type name: `(20)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TypeModifier::Length(length)
            | TypeModifier::Dimensions(length)
            | TypeModifier::Precision(length) => {
                write!(f, "({length})")
            }
            TypeModifier::PrecisionScale(precision, scale) => write!(f, "({precision},{scale})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_form_round_trips() {
        for modifier in [
            TypeModifier::Length(1),
            TypeModifier::Length(10_485_760),
            TypeModifier::Dimensions(384),
            TypeModifier::PrecisionScale(10, 2),
            TypeModifier::Precision(3),
        ] {
            let (tag, first, second) = modifier.to_catalog();
            assert_ne!(tag, 0);
            assert_eq!(
                TypeModifier::from_catalog(tag, first, second),
                Ok(Some(modifier))
            );
        }
        assert_eq!(TypeModifier::from_catalog(0, 7, 7), Ok(None));
        assert_eq!(TypeModifier::from_catalog(99, 0, 0), Err(99));
    }

    #[test]
    fn typmods_are_postgresqls() {
        assert_eq!(TypeModifier::Length(20).pg_typmod(), 24);
        assert_eq!(TypeModifier::Length(u32::MAX).pg_typmod(), i32::MAX);
        assert_eq!(TypeModifier::Length(20).to_string(), "(20)");
        assert_eq!(TypeModifier::Dimensions(384).pg_typmod(), 384);
        assert_eq!(TypeModifier::PrecisionScale(10, 2).pg_typmod(), 655_366);
        assert_eq!(TypeModifier::PrecisionScale(10, 2).to_string(), "(10,2)");
        assert_eq!(TypeModifier::Precision(3).pg_typmod(), 3);
    }
}
