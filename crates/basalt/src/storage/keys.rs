//! Order-preserving ("memcomparable") encoding of index keys.
//!
//! Index B+trees compare keys as plain byte strings (`memcmp`, i.e. `<[u8]>::cmp`). This
//! module turns a tuple of SQL values into a byte string whose byte order *is* the SQL order
//! of the tuple, column by column, honouring each column's `ASC`/`DESC` and
//! `NULLS FIRST`/`NULLS LAST`. The B+tree therefore never needs to know about types,
//! collations or sort directions; the planner turns a range predicate into a byte range
//! (see [`encode_text_prefix`] and [`prefix_successor`]).
//!
//! An index entry's key is `column encodings ‖ row id` ([`encode_key`] then
//! [`encode_row_id`]): appending the row id makes every entry unique and orders duplicates
//! of a column tuple by row id. [`decode_row_id`] reads the row id back from the last eight
//! bytes.
//!
//! # Guarantees
//!
//! * For two values `a`, `b` of one column under one [`KeyOrder`], `enc(a).cmp(enc(b))` is the
//!   SQL order of `a` and `b`. Equal values have identical encodings (there is one canonical
//!   encoding per value: `-0.0` is stored as `0.0` and every NaN as one canonical NaN).
//! * Every column encoding is *prefix-free*: no encoding is a proper prefix of another. So
//!   concatenating column encodings compares lexicographically by column, and a decoder
//!   always knows where one column ends.
//! * Decoding never panics and never reads out of bounds: truncated input, unknown tags, bad
//!   escapes, invalid UTF-8 and non-canonical encodings are all [`KeyError`]s (which become
//!   [`StorageError::Corrupt`] at the storage layer boundary).
//! * The encoders only push bytes into the caller's buffer; they allocate nothing else, so a
//!   caller can reuse one buffer for a whole scan or bulk load.
//!
//! # Byte-level format
//!
//! One column is one *tag byte* followed by a type-specific payload. This table shows the
//! ascending (`ASC`) form:
//!
//! | value                  | tag    | payload                                                      |
//! |------------------------|--------|--------------------------------------------------------------|
//! | NULL, sorting low      | `0x01` | none                                                         |
//! | Boolean                | `0x10` | 1 byte: `0x00` false, `0x01` true                            |
//! | Integer (`i64`)        | `0x20` | 8 bytes big-endian of `(v as u64) ^ (1 << 63)`               |
//! | Real (`f64`)           | `0x21` | 8 bytes big-endian, see below                                |
//! | Integer128 (`i128`)    | `0x22` | 16 bytes big-endian of `(v as u128) ^ (1 << 127)`            |
//! | Fixed32                | `0x23` | 32 bytes, already order-preserving (see below)               |
//! | Text (UTF-8)           | `0x30` | bytes, `0x00` escaped as `0x00 0xFF`, then `0x00 0x01`       |
//! | Blob                   | `0x40` | bytes, `0x00` escaped as `0x00 0xFF`, then `0x00 0x01`       |
//! | NULL, sorting high     | `0xFE` | none                                                         |
//!
//! * **Integer**: flipping the sign bit maps `i64::MIN..=i64::MAX` monotonically onto
//!   `0..=u64::MAX`, and big-endian makes byte order equal numeric order.
//! * **Integer128** orders like Integer, over 128 bits. The SQL layer stores an INTERVAL
//!   column's comparison value here (its span in microseconds, a month counted as 30 days),
//!   so an index orders intervals as PostgreSQL compares them; a UUID column is a 16-byte
//!   Blob, since UUIDs compare bytewise.
//! * **Fixed32** is 32 bytes that the SQL layer has made order-preserving itself: a NUMERIC
//!   column's value × 10^38 as a signed 256-bit big-endian integer with its sign bit flipped
//!   (`types::numeric::Numeric::key_bytes`), so `1.0` and `1.00` have one key.
//! * **Real**: first `-0.0` becomes `0.0` and every NaN becomes the canonical quiet NaN
//!   `0x7FF8_0000_0000_0000`. Then, on the IEEE-754 bits: if the sign bit is set, invert all
//!   64 bits; otherwise set the sign bit. Written big-endian. This orders
//!   `-inf < negatives < 0.0 < positives < +inf < NaN` (NaN largest, as in PostgreSQL).
//! * **Text and Blob**: the terminator `0x00 0x01` sorts below every escaped content byte
//!   (`0x00 0xFF` or a non-zero byte), so a string sorts before all its extensions
//!   (`"a" < "a\0" < "ab"`), and since an unescaped `0x00` can only start the terminator, the
//!   encoding is prefix-free. Text compares by UTF-8 bytes, which is Unicode code point order
//!   (PostgreSQL's `"C"` collation).
//!
//! Type tags order `NULL (low) < Boolean < Integer < Real < Integer128 < Fixed32 < Text < Blob <
//! NULL (high)`.
//! Integers and reals have *different* tags, so an integer and a real never compare
//! numerically: **an index column holds values of one type**, and the SQL layer coerces
//! every value of a column to the column's type (for example `3` to `3.0` in a `REAL`
//! column) before encoding. Only NULL mixes with the column's type.
//!
//! **Descending** columns: every byte of that column's encoding (tag included) is inverted
//! (`XOR 0xFF`). Because the ascending encodings are prefix-free, inverting all bytes exactly
//! reverses their order, and the column still ends where the decoder expects.
//!
//! **NULL placement**: the NULL tag is chosen from both flags so that after the optional
//! inversion NULL lands where [`KeyOrder::nulls_first`] asks. Before inversion the tag is
//! `0x01` when `nulls_first != descending` and `0xFE` otherwise; on disk, a NULL is therefore
//! always the byte `0x01` when NULLs sort first and `0xFE` when they sort last. A decoder
//! accepts only the NULL tag matching the column's order.
//!
//! | order                        | NULL tag before inversion | NULL byte on disk |
//! |------------------------------|---------------------------|-------------------|
//! | `ASC NULLS LAST` (default)   | `0xFE`                    | `0xFE`            |
//! | `ASC NULLS FIRST`            | `0x01`                    | `0x01`            |
//! | `DESC NULLS FIRST` (default) | `0xFE`                    | `0x01`            |
//! | `DESC NULLS LAST`            | `0x01`                    | `0xFE`            |
//!
//! **Row id** (the suffix of every index key): 8 bytes big-endian of
//! `(row_id as u64) ^ (1 << 63)`, always ascending, with no tag.

use std::cmp::Ordering;

use super::error::StorageError;

/// One column value of an index key, borrowed from the row being indexed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KeyValue<'a> {
    Null,
    Boolean(bool),
    Integer(i64),
    Real(f64),
    Integer128(i128),
    Fixed32([u8; 32]),
    Text(&'a str),
    Blob(&'a [u8]),
}

/// One decoded column value of an index key, owning its text or bytes.
#[derive(Clone, Debug, PartialEq)]
pub enum OwnedKeyValue {
    Null,
    Boolean(bool),
    Integer(i64),
    Real(f64),
    Integer128(i128),
    Fixed32([u8; 32]),
    Text(String),
    Blob(Vec<u8>),
}

impl OwnedKeyValue {
    /// Borrows this value as a [`KeyValue`], for example to re-encode it.
    pub fn as_key_value(&self) -> KeyValue<'_> {
        match self {
            OwnedKeyValue::Null => KeyValue::Null,
            OwnedKeyValue::Boolean(b) => KeyValue::Boolean(*b),
            OwnedKeyValue::Integer(i) => KeyValue::Integer(*i),
            OwnedKeyValue::Real(r) => KeyValue::Real(*r),
            OwnedKeyValue::Integer128(i) => KeyValue::Integer128(*i),
            OwnedKeyValue::Fixed32(b) => KeyValue::Fixed32(*b),
            OwnedKeyValue::Text(s) => KeyValue::Text(s),
            OwnedKeyValue::Blob(b) => KeyValue::Blob(b),
        }
    }
}

impl From<KeyValue<'_>> for OwnedKeyValue {
    fn from(value: KeyValue<'_>) -> Self {
        match value {
            KeyValue::Null => OwnedKeyValue::Null,
            KeyValue::Boolean(b) => OwnedKeyValue::Boolean(b),
            KeyValue::Integer(i) => OwnedKeyValue::Integer(i),
            KeyValue::Real(r) => OwnedKeyValue::Real(r),
            KeyValue::Integer128(i) => OwnedKeyValue::Integer128(i),
            KeyValue::Fixed32(b) => OwnedKeyValue::Fixed32(b),
            KeyValue::Text(s) => OwnedKeyValue::Text(s.to_owned()),
            KeyValue::Blob(b) => OwnedKeyValue::Blob(b.to_vec()),
        }
    }
}

/// The sort order of one index column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyOrder {
    /// `DESC`: larger values sort first.
    pub descending: bool,
    /// `NULLS FIRST`: NULL sorts before every non-NULL value (independent of `descending`).
    pub nulls_first: bool,
}

impl KeyOrder {
    /// `ASC`, which in SQL (as in PostgreSQL) implies `NULLS LAST`.
    pub const ASC: KeyOrder = KeyOrder::new(false, false);
    /// `DESC`, which in SQL (as in PostgreSQL) implies `NULLS FIRST`.
    pub const DESC: KeyOrder = KeyOrder::new(true, true);

    /// An explicit order, for `ASC NULLS FIRST` and `DESC NULLS LAST`.
    pub const fn new(descending: bool, nulls_first: bool) -> Self {
        KeyOrder {
            descending,
            nulls_first,
        }
    }

    /// The byte every byte of an ascending encoding is XORed with.
    const fn mask(self) -> u8 {
        if self.descending { 0xFF } else { 0x00 }
    }

    /// The NULL tag *before* inversion: low when NULL must end up first after the optional
    /// inversion, which is the case exactly when `nulls_first` and `descending` differ.
    const fn null_tag(self) -> u8 {
        if self.nulls_first != self.descending {
            TAG_NULL_LOW
        } else {
            TAG_NULL_HIGH
        }
    }
}

impl Default for KeyOrder {
    fn default() -> Self {
        KeyOrder::ASC
    }
}

const TAG_NULL_LOW: u8 = 0x01;
const TAG_BOOLEAN: u8 = 0x10;
const TAG_INTEGER: u8 = 0x20;
const TAG_REAL: u8 = 0x21;
const TAG_INTEGER128: u8 = 0x22;
const TAG_FIXED32: u8 = 0x23;
const TAG_TEXT: u8 = 0x30;
const TAG_BLOB: u8 = 0x40;
const TAG_NULL_HIGH: u8 = 0xFE;

/// Second byte of an escaped `0x00` inside text or blob content.
const ESCAPE_ZERO: u8 = 0xFF;
/// Second byte of the `0x00 0x01` terminator of text and blob content.
const TERMINATOR: u8 = 0x01;

/// The bit pattern every NaN is stored as (the usual quiet NaN, positive sign).
const CANONICAL_NAN_BITS: u64 = 0x7FF8_0000_0000_0000;
const SIGN_BIT: u64 = 1 << 63;
const SIGN_BIT_128: u128 = 1 << 127;

/// Why a key could not be encoded or decoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// The key ended inside a value.
    #[error("index key truncated: {what} at byte {offset} runs past the end of the key")]
    Truncated { offset: usize, what: &'static str },
    /// A tag byte names no type (or a NULL tag that does not match the column's order).
    #[error("index key has invalid type tag 0x{tag:02x} at byte {offset}")]
    BadTag { offset: usize, tag: u8 },
    /// Inside text or blob content, `0x00` was followed by something other than `0xFF`
    /// (escaped zero) or `0x01` (terminator).
    #[error("index key has invalid escape 0x00 0x{byte:02x} at byte {offset}")]
    BadEscape { offset: usize, byte: u8 },
    /// A text value's bytes are not UTF-8.
    #[error("index key has text at byte {offset} that is not valid UTF-8")]
    InvalidUtf8 { offset: usize },
    /// A value is encoded in a form the encoder never produces (a boolean byte other than 0
    /// or 1, `-0.0`, a NaN other than the canonical one). Accepting it would let two equal
    /// values have different keys.
    #[error("index key has a non-canonical {what} at byte {offset}")]
    NonCanonical { offset: usize, what: &'static str },
    /// [`encode_key`] or [`decode_key`] got a different number of values and column orders.
    #[error("index key has {values} values but {orders} column orders")]
    ColumnCountMismatch { values: usize, orders: usize },
}

impl KeyError {
    /// The same error with its byte offset moved by `base`, so errors from one column report
    /// positions within the whole key.
    fn shifted(self, base: usize) -> Self {
        match self {
            KeyError::Truncated { offset, what } => KeyError::Truncated {
                offset: offset + base,
                what,
            },
            KeyError::BadTag { offset, tag } => KeyError::BadTag {
                offset: offset + base,
                tag,
            },
            KeyError::BadEscape { offset, byte } => KeyError::BadEscape {
                offset: offset + base,
                byte,
            },
            KeyError::InvalidUtf8 { offset } => KeyError::InvalidUtf8 {
                offset: offset + base,
            },
            KeyError::NonCanonical { offset, what } => KeyError::NonCanonical {
                offset: offset + base,
                what,
            },
            other @ KeyError::ColumnCountMismatch { .. } => other,
        }
    }
}

impl From<KeyError> for StorageError {
    fn from(error: KeyError) -> Self {
        match error {
            // A count mismatch is a caller's bug, not damage on disk.
            KeyError::ColumnCountMismatch { .. } => {
                StorageError::InvalidArgument(error.to_string())
            }
            _ => StorageError::corrupt(error.to_string()),
        }
    }
}

/// Compares two encoded keys. This is plain byte-string order — the point of the encoding —
/// and exists so that code comparing keys names what it relies on.
#[inline]
pub fn compare_keys(a: &[u8], b: &[u8]) -> Ordering {
    a.cmp(b)
}

/// Appends the encoding of one column value under `order` to `out`.
pub fn encode_value(value: &KeyValue<'_>, order: KeyOrder, out: &mut Vec<u8>) {
    let start = out.len();
    match *value {
        KeyValue::Null => out.push(order.null_tag()),
        KeyValue::Boolean(b) => out.extend_from_slice(&[TAG_BOOLEAN, u8::from(b)]),
        KeyValue::Integer(i) => {
            out.push(TAG_INTEGER);
            out.extend_from_slice(&encode_i64(i));
        }
        KeyValue::Real(r) => {
            out.push(TAG_REAL);
            out.extend_from_slice(&encode_f64(r).to_be_bytes());
        }
        KeyValue::Integer128(i) => {
            out.push(TAG_INTEGER128);
            out.extend_from_slice(&((i as u128) ^ SIGN_BIT_128).to_be_bytes());
        }
        KeyValue::Fixed32(bytes) => {
            out.push(TAG_FIXED32);
            out.extend_from_slice(&bytes);
        }
        KeyValue::Text(s) => {
            out.push(TAG_TEXT);
            push_escaped(s.as_bytes(), out);
            out.extend_from_slice(&[0x00, TERMINATOR]);
        }
        KeyValue::Blob(b) => {
            out.push(TAG_BLOB);
            push_escaped(b, out);
            out.extend_from_slice(&[0x00, TERMINATOR]);
        }
    }
    if order.descending {
        invert(&mut out[start..]);
    }
}

/// Appends the encoding of a tuple of column values, `values[i]` under `orders[i]`.
///
/// Fails without touching `out` if the two slices differ in length.
pub fn encode_key(
    values: &[KeyValue<'_>],
    orders: &[KeyOrder],
    out: &mut Vec<u8>,
) -> Result<(), KeyError> {
    if values.len() != orders.len() {
        return Err(KeyError::ColumnCountMismatch {
            values: values.len(),
            orders: orders.len(),
        });
    }
    for (value, &order) in values.iter().zip(orders) {
        encode_value(value, order, out);
    }
    Ok(())
}

/// Appends the 8-byte ascending encoding of a row id (no tag): the suffix of index keys.
pub fn encode_row_id(row_id: i64, out: &mut Vec<u8>) {
    out.extend_from_slice(&encode_i64(row_id));
}

/// Reads the row id from the last 8 bytes of an index key.
pub fn decode_row_id(bytes: &[u8]) -> Result<i64, KeyError> {
    let tail = bytes
        .len()
        .checked_sub(8)
        .and_then(|start| bytes.get(start..))
        .and_then(|tail| <[u8; 8]>::try_from(tail).ok())
        .ok_or(KeyError::Truncated {
            offset: 0,
            what: "row id",
        })?;
    Ok(decode_i64(tail))
}

/// Decodes one column value from the start of `bytes`; returns it and the number of bytes
/// its encoding took.
pub fn decode_value(bytes: &[u8], order: KeyOrder) -> Result<(OwnedKeyValue, usize), KeyError> {
    // `Vec::new` does not allocate; only text and blob content is collected here.
    let mut content = Vec::new();
    let (scanned, len) = scan(bytes, order, Some(&mut content))?;
    let value = match scanned {
        Scanned::Null => OwnedKeyValue::Null,
        Scanned::Boolean(b) => OwnedKeyValue::Boolean(b),
        Scanned::Integer(i) => OwnedKeyValue::Integer(i),
        Scanned::Real(r) => OwnedKeyValue::Real(r),
        Scanned::Integer128(i) => OwnedKeyValue::Integer128(i),
        Scanned::Fixed32(b) => OwnedKeyValue::Fixed32(b),
        Scanned::Text => OwnedKeyValue::Text(
            String::from_utf8(content).map_err(|_| KeyError::InvalidUtf8 { offset: 0 })?,
        ),
        Scanned::Blob => OwnedKeyValue::Blob(content),
    };
    Ok((value, len))
}

/// Decodes one value per entry of `orders` from the start of `bytes`; returns them and the
/// number of bytes they took (any rest, such as a row id, is left alone).
pub fn decode_key(
    bytes: &[u8],
    orders: &[KeyOrder],
) -> Result<(Vec<OwnedKeyValue>, usize), KeyError> {
    let mut values = Vec::with_capacity(orders.len());
    let mut pos = 0;
    for &order in orders {
        let rest = bytes.get(pos..).unwrap_or_default();
        let (value, len) = decode_value(rest, order).map_err(|e| e.shifted(pos))?;
        values.push(value);
        pos += len;
    }
    Ok((values, pos))
}

/// The length of the one column encoding at the start of `bytes`, without allocating.
///
/// Checks the same structure as [`decode_value`] (tag, lengths, escapes, canonical forms)
/// except that text content is not checked to be UTF-8.
pub fn skip_value(bytes: &[u8], order: KeyOrder) -> Result<usize, KeyError> {
    scan(bytes, order, None).map(|(_, len)| len)
}

/// Appends the bytes that the encoding of every text value starting with `prefix` (under
/// `order`) begins with: the tag and the escaped prefix, without the terminator.
///
/// For `LIKE 'abc%'` on a leading index column, the matching keys are exactly those in
/// `[p, prefix_successor(p))` where `p` is this encoding of `"abc"` (in either direction,
/// since "starts with these bytes" does not depend on how the bytes were chosen).
pub fn encode_text_prefix(prefix: &str, order: KeyOrder, out: &mut Vec<u8>) {
    let start = out.len();
    out.push(TAG_TEXT);
    push_escaped(prefix.as_bytes(), out);
    if order.descending {
        invert(&mut out[start..]);
    }
}

/// The smallest byte string greater than every byte string that starts with `key`: `key`
/// without its trailing `0xFF` bytes, with the last remaining byte incremented. `None` if
/// `key` is all `0xFF` (or empty): then no such bound exists and a range scan runs to the
/// end of the index.
pub fn prefix_successor(key: &[u8]) -> Option<Vec<u8>> {
    let last = key.iter().rposition(|&b| b != 0xFF)?;
    let mut successor = key[..=last].to_vec();
    successor[last] += 1;
    Some(successor)
}

/// The bytes of an `i64` whose byte order is numeric order.
fn encode_i64(v: i64) -> [u8; 8] {
    ((v as u64) ^ SIGN_BIT).to_be_bytes()
}

fn decode_i64(bytes: [u8; 8]) -> i64 {
    (u64::from_be_bytes(bytes) ^ SIGN_BIT) as i64
}

/// The order-preserving bits of an `f64` (see the module documentation): comparing two as
/// integers is the order of a Real sort key (`-0.0` equal to `0.0`, NaN above `+inf`).
pub(crate) fn encode_f64(r: f64) -> u64 {
    let bits = if r.is_nan() {
        CANONICAL_NAN_BITS
    } else if r == 0.0 {
        // Both zeros compare equal, so they must share one encoding.
        0
    } else {
        r.to_bits()
    };
    if bits & SIGN_BIT != 0 {
        !bits
    } else {
        bits | SIGN_BIT
    }
}

/// Inverse of [`encode_f64`]; `None` for bits the encoder never produces.
fn decode_f64(encoded: u64) -> Option<f64> {
    let bits = if encoded & SIGN_BIT != 0 {
        encoded & !SIGN_BIT
    } else {
        !encoded
    };
    let r = f64::from_bits(bits);
    let canonical = if r.is_nan() {
        bits == CANONICAL_NAN_BITS
    } else {
        bits != SIGN_BIT // -0.0
    };
    canonical.then_some(r)
}

/// Appends `bytes` with every `0x00` written as `0x00 0xFF`.
fn push_escaped(bytes: &[u8], out: &mut Vec<u8>) {
    // Copy zero-free runs in one go: most text has no NUL at all.
    let mut rest = bytes;
    while let Some(zero) = rest.iter().position(|&b| b == 0) {
        out.extend_from_slice(&rest[..zero]);
        out.extend_from_slice(&[0x00, ESCAPE_ZERO]);
        rest = &rest[zero + 1..];
    }
    out.extend_from_slice(rest);
}

fn invert(bytes: &mut [u8]) {
    for b in bytes {
        *b = !*b;
    }
}

/// What [`scan`] found; text and blob content goes to the caller's buffer.
enum Scanned {
    Null,
    Boolean(bool),
    Integer(i64),
    Real(f64),
    Integer128(i128),
    Fixed32([u8; 32]),
    Text,
    Blob,
}

/// Parses one column encoding at the start of `bytes` under `order`, appending unescaped
/// text or blob content to `content` if given. Returns what was found and its length.
fn scan(
    bytes: &[u8],
    order: KeyOrder,
    content: Option<&mut Vec<u8>>,
) -> Result<(Scanned, usize), KeyError> {
    let mask = order.mask();
    let tag = match bytes.first() {
        Some(&b) => b ^ mask,
        None => {
            return Err(KeyError::Truncated {
                offset: 0,
                what: "type tag",
            });
        }
    };
    match tag {
        TAG_NULL_LOW | TAG_NULL_HIGH if tag == order.null_tag() => Ok((Scanned::Null, 1)),
        TAG_BOOLEAN => match bytes.get(1).map(|&b| b ^ mask) {
            Some(0) => Ok((Scanned::Boolean(false), 2)),
            Some(1) => Ok((Scanned::Boolean(true), 2)),
            Some(_) => Err(KeyError::NonCanonical {
                offset: 1,
                what: "boolean",
            }),
            None => Err(KeyError::Truncated {
                offset: 1,
                what: "boolean",
            }),
        },
        TAG_INTEGER => {
            let payload = fixed8(bytes, mask, "integer")?;
            Ok((Scanned::Integer(decode_i64(payload)), 9))
        }
        TAG_REAL => {
            let payload = fixed8(bytes, mask, "real")?;
            let r = decode_f64(u64::from_be_bytes(payload)).ok_or(KeyError::NonCanonical {
                offset: 1,
                what: "real",
            })?;
            Ok((Scanned::Real(r), 9))
        }
        TAG_INTEGER128 => {
            let mut payload = bytes
                .get(1..17)
                .and_then(|p| <[u8; 16]>::try_from(p).ok())
                .ok_or(KeyError::Truncated {
                    offset: 1,
                    what: "integer128",
                })?;
            for b in &mut payload {
                *b ^= mask;
            }
            let value = (u128::from_be_bytes(payload) ^ SIGN_BIT_128) as i128;
            Ok((Scanned::Integer128(value), 17))
        }
        TAG_FIXED32 => {
            let mut payload = bytes
                .get(1..33)
                .and_then(|p| <[u8; 32]>::try_from(p).ok())
                .ok_or(KeyError::Truncated {
                    offset: 1,
                    what: "fixed32",
                })?;
            for b in &mut payload {
                *b ^= mask;
            }
            Ok((Scanned::Fixed32(payload), 33))
        }
        TAG_TEXT => Ok((Scanned::Text, scan_escaped(bytes, mask, "text", content)?)),
        TAG_BLOB => Ok((Scanned::Blob, scan_escaped(bytes, mask, "blob", content)?)),
        _ => Err(KeyError::BadTag { offset: 0, tag }),
    }
}

/// The 8 payload bytes after the tag, un-inverted.
fn fixed8(bytes: &[u8], mask: u8, what: &'static str) -> Result<[u8; 8], KeyError> {
    let mut payload = bytes
        .get(1..9)
        .and_then(|p| <[u8; 8]>::try_from(p).ok())
        .ok_or(KeyError::Truncated { offset: 1, what })?;
    for b in &mut payload {
        *b ^= mask;
    }
    Ok(payload)
}

/// Parses escaped content starting after the tag at `bytes[0]`, through its terminator.
/// Returns the length of the whole column encoding (tag included).
fn scan_escaped(
    bytes: &[u8],
    mask: u8,
    what: &'static str,
    mut content: Option<&mut Vec<u8>>,
) -> Result<usize, KeyError> {
    let mut pos = 1;
    loop {
        let rest = bytes.get(pos..).unwrap_or_default();
        // In the stored form an (unescaped) zero byte appears as `mask`.
        let Some(run) = rest.iter().position(|&b| b == mask) else {
            return Err(KeyError::Truncated { offset: pos, what });
        };
        if let Some(content) = content.as_deref_mut() {
            content.extend(rest[..run].iter().map(|&b| b ^ mask));
        }
        pos += run;
        match bytes.get(pos + 1).map(|&b| b ^ mask) {
            Some(ESCAPE_ZERO) => {
                if let Some(content) = content.as_deref_mut() {
                    content.push(0);
                }
                pos += 2;
            }
            Some(TERMINATOR) => return Ok(pos + 2),
            Some(byte) => {
                return Err(KeyError::BadEscape {
                    offset: pos + 1,
                    byte,
                });
            }
            None => return Err(KeyError::Truncated { offset: pos, what }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer128_orders_numerically_and_round_trips() {
        let values = [i128::MIN, -(1 << 80), -1, 0, 1, 1 << 70, i128::MAX];
        for order in ALL_ORDERS {
            let encoded: Vec<Vec<u8>> = values
                .iter()
                .map(|&v| {
                    let mut out = Vec::new();
                    encode_value(&KeyValue::Integer128(v), order, &mut out);
                    assert_eq!(
                        decode_value(&out, order),
                        Ok((OwnedKeyValue::Integer128(v), 17))
                    );
                    out
                })
                .collect();
            for pair in encoded.windows(2) {
                let expected = if order.descending {
                    Ordering::Greater
                } else {
                    Ordering::Less
                };
                assert_eq!(pair[0].cmp(&pair[1]), expected);
            }
        }
        assert!(decode_value(&[TAG_INTEGER128, 0, 1], KeyOrder::ASC).is_err());
    }
    use proptest::collection::vec;
    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngSeed};

    use OwnedKeyValue as V;

    const ALL_ORDERS: [KeyOrder; 4] = [
        KeyOrder::new(false, false),
        KeyOrder::new(false, true),
        KeyOrder::new(true, false),
        KeyOrder::new(true, true),
    ];

    /// Fixed seed and no regression files: the same cases on every run and machine.
    fn config() -> Config {
        Config {
            cases: 512,
            rng_seed: RngSeed::Fixed(0x6261_7361_6c74),
            failure_persistence: None,
            ..Config::default()
        }
    }

    fn enc(value: &OwnedKeyValue, order: KeyOrder) -> Vec<u8> {
        let mut out = Vec::new();
        encode_value(&value.as_key_value(), order, &mut out);
        out
    }

    fn enc_key(values: &[OwnedKeyValue], orders: &[KeyOrder]) -> Vec<u8> {
        let values: Vec<KeyValue<'_>> = values.iter().map(OwnedKeyValue::as_key_value).collect();
        let mut out = Vec::new();
        encode_key(&values, orders, &mut out).unwrap();
        out
    }

    // ---- The reference: SQL order written directly, independent of the encoding. ----

    fn type_rank(v: &OwnedKeyValue) -> u8 {
        match v {
            V::Null => panic!("NULL has no type rank"),
            V::Boolean(_) => 0,
            V::Integer(_) => 1,
            V::Real(_) => 2,
            V::Integer128(_) => 3,
            V::Fixed32(_) => 4,
            V::Text(_) => 5,
            V::Blob(_) => 6,
        }
    }

    /// Numeric order with `-0.0 == 0.0` and every NaN equal and above `+inf`.
    fn real_cmp(a: f64, b: f64) -> Ordering {
        match (a.is_nan(), b.is_nan()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            (false, false) => a.partial_cmp(&b).unwrap(),
        }
    }

    fn sql_cmp(a: &OwnedKeyValue, b: &OwnedKeyValue, order: KeyOrder) -> Ordering {
        let null_side = if order.nulls_first {
            Ordering::Less
        } else {
            Ordering::Greater
        };
        let ascending = match (a, b) {
            (V::Null, V::Null) => return Ordering::Equal,
            (V::Null, _) => return null_side,
            (_, V::Null) => return null_side.reverse(),
            (V::Boolean(x), V::Boolean(y)) => x.cmp(y),
            (V::Integer(x), V::Integer(y)) => x.cmp(y),
            (V::Real(x), V::Real(y)) => real_cmp(*x, *y),
            (V::Integer128(x), V::Integer128(y)) => x.cmp(y),
            (V::Fixed32(x), V::Fixed32(y)) => x.cmp(y),
            (V::Text(x), V::Text(y)) => x.as_bytes().cmp(y.as_bytes()),
            (V::Blob(x), V::Blob(y)) => x.cmp(y),
            _ => type_rank(a).cmp(&type_rank(b)),
        };
        if order.descending {
            ascending.reverse()
        } else {
            ascending
        }
    }

    fn sql_cmp_tuple(a: &[OwnedKeyValue], b: &[OwnedKeyValue], orders: &[KeyOrder]) -> Ordering {
        a.iter()
            .zip(b)
            .zip(orders)
            .map(|((x, y), &o)| sql_cmp(x, y, o))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    }

    /// What decoding `v`'s encoding must give back: `-0.0` as `0.0`, any NaN as the
    /// canonical NaN.
    fn canonical(v: &OwnedKeyValue) -> OwnedKeyValue {
        match v {
            V::Real(r) if r.is_nan() => V::Real(f64::from_bits(CANONICAL_NAN_BITS)),
            V::Real(r) if *r == 0.0 => V::Real(0.0),
            other => other.clone(),
        }
    }

    /// Equality that compares reals by bits (so NaN equals NaN and `-0.0` differs from 0).
    fn identical(a: &OwnedKeyValue, b: &OwnedKeyValue) -> bool {
        match (a, b) {
            (V::Real(x), V::Real(y)) => x.to_bits() == y.to_bits(),
            _ => a == b,
        }
    }

    // ---- Strategies, biased towards edge cases and collisions. ----

    fn arb_integer() -> impl Strategy<Value = i64> {
        prop_oneof![
            any::<i64>(),
            Just(i64::MIN),
            Just(i64::MAX),
            Just(i64::MIN + 1),
            Just(i64::MAX - 1),
            -3i64..3,
        ]
    }

    fn arb_real() -> impl Strategy<Value = f64> {
        prop_oneof![
            any::<f64>(),
            (-3i32..3).prop_map(f64::from),
            prop::sample::select(vec![
                0.0,
                -0.0,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
                -f64::NAN,
                f64::from_bits(0x7FF0_0000_0000_0001), // signalling NaN
                f64::from_bits(0xFFF8_0000_0000_0001), // negative NaN with payload
                f64::MIN_POSITIVE,
                -f64::MIN_POSITIVE,
                f64::from_bits(1), // smallest subnormal
                -f64::from_bits(1),
                f64::MAX,
                f64::MIN,
            ]),
        ]
    }

    fn arb_text() -> impl Strategy<Value = String> {
        prop_oneof![
            "[ab\\x00\\x01\\x7f\u{e9}\u{ffff}\u{10000}]{0,5}",
            any::<String>(),
        ]
    }

    fn arb_blob() -> impl Strategy<Value = Vec<u8>> {
        vec(
            prop_oneof![
                Just(0u8),
                Just(1u8),
                Just(0xFEu8),
                Just(0xFFu8),
                Just(b'a'),
                any::<u8>()
            ],
            0..6,
        )
    }

    /// A non-NULL value of the type with [`type_rank`] `rank`.
    fn arb_of_type(rank: u8) -> BoxedStrategy<OwnedKeyValue> {
        match rank {
            0 => any::<bool>().prop_map(V::Boolean).boxed(),
            1 => arb_integer().prop_map(V::Integer).boxed(),
            2 => arb_real().prop_map(V::Real).boxed(),
            3 => arb_text().prop_map(V::Text).boxed(),
            _ => arb_blob().prop_map(V::Blob).boxed(),
        }
    }

    /// A value of the type `rank`, or sometimes NULL.
    fn arb_nullable(rank: u8) -> BoxedStrategy<OwnedKeyValue> {
        prop_oneof![1 => Just(V::Null), 6 => arb_of_type(rank)].boxed()
    }

    fn arb_value() -> impl Strategy<Value = OwnedKeyValue> {
        (0u8..5).prop_flat_map(arb_nullable)
    }

    fn arb_order() -> impl Strategy<Value = KeyOrder> {
        (any::<bool>(), any::<bool>()).prop_map(|(d, n)| KeyOrder::new(d, n))
    }

    /// Column orders and two tuples of 1–4 columns, each column of one type.
    fn arb_tuple_pair()
    -> impl Strategy<Value = (Vec<KeyOrder>, Vec<OwnedKeyValue>, Vec<OwnedKeyValue>)> {
        (1usize..=4).prop_flat_map(|n| {
            (vec(0u8..5, n), vec(arb_order(), n)).prop_flat_map(|(types, orders)| {
                let columns: Vec<_> = types.iter().map(|&t| arb_nullable(t)).collect();
                (Just(orders), columns.clone(), columns)
            })
        })
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn same_type_order_matches_sql(
            (a, b) in (0u8..5).prop_flat_map(|t| (arb_nullable(t), arb_nullable(t))),
        ) {
            for order in ALL_ORDERS {
                prop_assert_eq!(
                    enc(&a, order).cmp(&enc(&b, order)),
                    sql_cmp(&a, &b, order),
                    "{:?} vs {:?} under {:?}", a, b, order
                );
            }
        }

        #[test]
        fn mixed_type_order_matches_tag_order(a in arb_value(), b in arb_value()) {
            for order in ALL_ORDERS {
                prop_assert_eq!(
                    enc(&a, order).cmp(&enc(&b, order)),
                    sql_cmp(&a, &b, order),
                    "{:?} vs {:?} under {:?}", a, b, order
                );
            }
        }

        #[test]
        fn composite_keys_compare_by_column(
            (orders, a, b) in arb_tuple_pair(),
            row_a in arb_integer(),
            row_b in arb_integer(),
        ) {
            let (key_a, key_b) = (enc_key(&a, &orders), enc_key(&b, &orders));
            prop_assert_eq!(key_a.cmp(&key_b), sql_cmp_tuple(&a, &b, &orders));

            // Full index entries: ties on the columns are broken by row id.
            let (mut entry_a, mut entry_b) = (key_a.clone(), key_b.clone());
            encode_row_id(row_a, &mut entry_a);
            encode_row_id(row_b, &mut entry_b);
            let expected = sql_cmp_tuple(&a, &b, &orders).then(row_a.cmp(&row_b));
            prop_assert_eq!(compare_keys(&entry_a, &entry_b), expected);

            // And the entry decodes back to its parts.
            let (decoded, len) = decode_key(&entry_a, &orders).unwrap();
            prop_assert_eq!(len, key_a.len());
            prop_assert_eq!(decode_row_id(&entry_a).unwrap(), row_a);
            prop_assert_eq!(decoded.len(), a.len());
            for (got, want) in decoded.iter().zip(&a) {
                prop_assert!(identical(got, &canonical(want)), "{:?} != {:?}", got, want);
            }
        }

        #[test]
        fn decode_inverts_encode(v in arb_value(), suffix in arb_blob()) {
            for order in ALL_ORDERS {
                let mut bytes = enc(&v, order);
                let len = bytes.len();
                // Trailing bytes (the next column, the row id) must not be consumed.
                bytes.extend_from_slice(&suffix);
                let (decoded, used) = decode_value(&bytes, order).unwrap();
                prop_assert_eq!(used, len);
                prop_assert!(identical(&decoded, &canonical(&v)), "{:?} != {:?}", decoded, v);
                prop_assert_eq!(skip_value(&bytes, order).unwrap(), len);
            }
        }

        #[test]
        fn decoding_arbitrary_bytes_never_panics(
            bytes in any::<Vec<u8>>(),
            orders in vec(arb_order(), 0..4),
        ) {
            check_decoders_on(&bytes, &orders);
        }

        #[test]
        fn decoding_damaged_keys_never_panics(
            (orders, values, _) in arb_tuple_pair(),
            position in any::<prop::sample::Index>(),
            damage in 0u8..3,
            byte in any::<u8>(),
        ) {
            // Random bytes rarely get past the tag; damaged real keys reach deeper code.
            let mut bytes = enc_key(&values, &orders);
            let i = position.index(bytes.len());
            match damage {
                0 => bytes.truncate(i),
                1 => bytes[i] = byte,
                _ => bytes.insert(i, byte),
            }
            check_decoders_on(&bytes, &orders);
        }

        #[test]
        fn text_prefix_range_is_exactly_the_strings_with_that_prefix(
            s in arb_text(),
            p in arb_text(),
            cut in any::<prop::sample::Index>(),
            use_cut in any::<bool>(),
            row_id in arb_integer(),
        ) {
            // Half the time, take the prefix from `s` so that matches are common.
            let p = if use_cut {
                let boundaries: Vec<usize> =
                    (0..=s.len()).filter(|&i| s.is_char_boundary(i)).collect();
                s[..boundaries[cut.index(boundaries.len())]].to_string()
            } else {
                p
            };
            for order in ALL_ORDERS {
                let mut low = Vec::new();
                encode_text_prefix(&p, order, &mut low);
                let high = prefix_successor(&low);
                // A whole index entry: the text column followed by a row id.
                let mut key = enc(&V::Text(s.clone()), order);
                encode_row_id(row_id, &mut key);
                let in_range =
                    key >= low && high.as_ref().is_none_or(|high| key < *high);
                prop_assert_eq!(in_range, s.starts_with(p.as_str()), "{:?} / {:?} {:?}", s, p, order);
            }
        }

        #[test]
        fn prefix_successor_bounds_all_extensions(
            key in arb_blob(),
            extension in arb_blob(),
            other in arb_blob(),
        ) {
            let mut extended = key.clone();
            extended.extend_from_slice(&extension);
            match prefix_successor(&key) {
                None => prop_assert!(key.iter().all(|&b| b == 0xFF)),
                Some(successor) => {
                    prop_assert!(extended < successor);
                    // Smallest such bound: anything in [key, successor) extends key.
                    if other >= key && other < successor {
                        prop_assert!(other.starts_with(&key));
                    }
                }
            }
        }

        #[test]
        fn row_ids_round_trip_in_order(a in arb_integer(), b in arb_integer()) {
            let (mut ea, mut eb) = (Vec::new(), Vec::new());
            encode_row_id(a, &mut ea);
            encode_row_id(b, &mut eb);
            prop_assert_eq!(ea.len(), 8);
            prop_assert_eq!(ea.cmp(&eb), a.cmp(&b));
            prop_assert_eq!(decode_row_id(&ea).unwrap(), a);
        }
    }

    /// Runs every decoder on `bytes`; none may panic, and whatever decodes must re-encode
    /// to exactly the bytes it came from (one encoding per value).
    fn check_decoders_on(bytes: &[u8], orders: &[KeyOrder]) {
        let _ = decode_key(bytes, orders);
        let _ = decode_row_id(bytes);
        for order in ALL_ORDERS {
            let skipped = skip_value(bytes, order);
            if let Ok((value, len)) = decode_value(bytes, order) {
                assert_eq!(enc(&value, order), bytes[..len]);
                assert_eq!(skipped, Ok(len));
            }
        }
    }

    // ---- Edge cases. ----

    fn cmp_values(a: &OwnedKeyValue, b: &OwnedKeyValue, order: KeyOrder) -> Ordering {
        enc(a, order).cmp(&enc(b, order))
    }

    #[test]
    fn integer_extremes() {
        let ordered = [i64::MIN, i64::MIN + 1, -1, 0, 1, i64::MAX - 1, i64::MAX];
        for pair in ordered.windows(2) {
            let (a, b) = (V::Integer(pair[0]), V::Integer(pair[1]));
            assert_eq!(cmp_values(&a, &b, KeyOrder::ASC), Ordering::Less);
            assert_eq!(cmp_values(&a, &b, KeyOrder::DESC), Ordering::Greater);
        }
        assert_eq!(
            enc(&V::Integer(i64::MIN), KeyOrder::ASC),
            [0x20, 0, 0, 0, 0, 0, 0, 0, 0]
        );
        assert_eq!(
            enc(&V::Integer(i64::MAX), KeyOrder::ASC),
            [0x20, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        );
        assert_eq!(
            enc(&V::Integer(0), KeyOrder::ASC),
            [0x20, 0x80, 0, 0, 0, 0, 0, 0, 0]
        );
        for v in ordered {
            let (decoded, _) =
                decode_value(&enc(&V::Integer(v), KeyOrder::DESC), KeyOrder::DESC).unwrap();
            assert_eq!(decoded, V::Integer(v));
        }
    }

    #[test]
    fn real_special_values() {
        let ordered = [
            f64::NEG_INFINITY,
            f64::MIN,
            -1.0,
            -f64::from_bits(1),
            0.0,
            f64::from_bits(1),
            1.0,
            f64::MAX,
            f64::INFINITY,
            f64::NAN,
        ];
        for pair in ordered.windows(2) {
            assert_eq!(
                cmp_values(&V::Real(pair[0]), &V::Real(pair[1]), KeyOrder::ASC),
                Ordering::Less,
                "{} < {}",
                pair[0],
                pair[1]
            );
        }
        // Both zeros and all NaNs share one encoding.
        assert_eq!(
            enc(&V::Real(-0.0), KeyOrder::ASC),
            enc(&V::Real(0.0), KeyOrder::ASC)
        );
        assert_eq!(
            enc(&V::Real(-f64::NAN), KeyOrder::ASC),
            enc(&V::Real(f64::NAN), KeyOrder::ASC)
        );
        assert_eq!(
            enc(&V::Real(0.0), KeyOrder::ASC),
            [0x21, 0x80, 0, 0, 0, 0, 0, 0, 0]
        );
        assert_eq!(
            enc(&V::Real(f64::NAN), KeyOrder::ASC),
            [0x21, 0xFF, 0xF8, 0, 0, 0, 0, 0, 0]
        );
        // -0.0 is never produced, so it is refused when decoding.
        let mut minus_zero = vec![TAG_REAL];
        minus_zero.extend_from_slice(&(!SIGN_BIT).to_be_bytes());
        assert!(matches!(
            decode_value(&minus_zero, KeyOrder::ASC),
            Err(KeyError::NonCanonical { what: "real", .. })
        ));
    }

    #[test]
    fn empty_text_and_empty_blob_differ() {
        let text = enc(&V::Text(String::new()), KeyOrder::ASC);
        let blob = enc(&V::Blob(Vec::new()), KeyOrder::ASC);
        assert_eq!(text, [0x30, 0x00, 0x01]);
        assert_eq!(blob, [0x40, 0x00, 0x01]);
        assert!(text < blob);
        assert_eq!(
            decode_value(&text, KeyOrder::ASC).unwrap(),
            (V::Text(String::new()), 3)
        );
        assert_eq!(
            decode_value(&blob, KeyOrder::ASC).unwrap(),
            (V::Blob(Vec::new()), 3)
        );
        let desc = enc(&V::Text(String::new()), KeyOrder::DESC);
        assert_eq!(desc, [0xCF, 0xFF, 0xFE]);
        assert_eq!(
            decode_value(&desc, KeyOrder::DESC).unwrap(),
            (V::Text(String::new()), 3)
        );
    }

    #[test]
    fn text_with_nul_bytes() {
        let v = V::Text("a\0\0b\0".to_string());
        let bytes = enc(&v, KeyOrder::ASC);
        assert_eq!(bytes, b"\x30a\x00\xFF\x00\xFFb\x00\xFF\x00\x01");
        assert_eq!(
            decode_value(&bytes, KeyOrder::ASC).unwrap(),
            (v.clone(), bytes.len())
        );
        let desc = enc(&v, KeyOrder::DESC);
        assert_eq!(
            decode_value(&desc, KeyOrder::DESC).unwrap(),
            (v, desc.len())
        );
    }

    #[test]
    fn strings_sort_before_their_extensions() {
        let text = |s: &str| V::Text(s.to_string());
        let ordered = [
            text(""),
            text("a"),
            text("a\0"),
            text("a\0\0"),
            text("a\x01"),
            text("ab"),
        ];
        for pair in ordered.windows(2) {
            assert_eq!(
                cmp_values(&pair[0], &pair[1], KeyOrder::ASC),
                Ordering::Less
            );
            assert_eq!(
                cmp_values(&pair[0], &pair[1], KeyOrder::DESC),
                Ordering::Greater
            );
        }
        let blob = |b: &[u8]| V::Blob(b.to_vec());
        let ordered = [
            blob(b""),
            blob(b"\0"),
            blob(b"\0\xFF"),
            blob(b"\x01"),
            blob(b"\xFF"),
        ];
        for pair in ordered.windows(2) {
            assert_eq!(
                cmp_values(&pair[0], &pair[1], KeyOrder::ASC),
                Ordering::Less
            );
        }
    }

    #[test]
    fn null_tags_follow_the_documented_table() {
        assert_eq!(enc(&V::Null, KeyOrder::new(false, false)), [0xFE]);
        assert_eq!(enc(&V::Null, KeyOrder::new(false, true)), [0x01]);
        assert_eq!(enc(&V::Null, KeyOrder::new(true, true)), [0x01]);
        assert_eq!(enc(&V::Null, KeyOrder::new(true, false)), [0xFE]);
        assert_eq!(KeyOrder::default(), KeyOrder::ASC);
        // A NULL written under one placement is not accepted under the other.
        assert!(matches!(
            decode_value(&[0x01], KeyOrder::ASC),
            Err(KeyError::BadTag {
                offset: 0,
                tag: 0x01
            })
        ));
    }

    #[test]
    fn malformed_keys_are_errors() {
        let asc = KeyOrder::ASC;
        assert!(matches!(
            decode_value(&[], asc),
            Err(KeyError::Truncated { .. })
        ));
        assert!(matches!(
            decode_value(&[0x77], asc),
            Err(KeyError::BadTag { tag: 0x77, .. })
        ));
        assert!(matches!(
            decode_value(&[0x20, 1, 2], asc),
            Err(KeyError::Truncated { .. })
        ));
        assert!(matches!(
            decode_value(&[0x10], asc),
            Err(KeyError::Truncated { .. })
        ));
        assert!(matches!(
            decode_value(&[0x10, 2], asc),
            Err(KeyError::NonCanonical { .. })
        ));
        assert!(matches!(
            decode_value(b"\x30ab", asc),
            Err(KeyError::Truncated { .. })
        ));
        assert!(matches!(
            decode_value(b"\x30ab\x00", asc),
            Err(KeyError::Truncated { .. })
        ));
        assert!(matches!(
            decode_value(b"\x30ab\x00\x05", asc),
            Err(KeyError::BadEscape { offset: 4, byte: 5 })
        ));
        assert!(matches!(
            decode_value(b"\x30\xC3\x28\x00\x01", asc),
            Err(KeyError::InvalidUtf8 { .. })
        ));
        // The same bytes are a fine blob, and skipping does not check UTF-8.
        assert_eq!(skip_value(b"\x30\xC3\x28\x00\x01", asc), Ok(5));
        assert!(decode_value(b"\x40\xC3\x28\x00\x01", asc).is_ok());
        // Errors in later columns report offsets within the whole key.
        let key = [0x10, 0x01, 0x20, 0x00];
        assert!(matches!(
            decode_key(&key, &[asc, asc]),
            Err(KeyError::Truncated {
                offset: 3,
                what: "integer"
            })
        ));
        assert!(matches!(
            decode_row_id(&[1, 2, 3]),
            Err(KeyError::Truncated { .. })
        ));
        let err = StorageError::from(KeyError::BadTag {
            offset: 0,
            tag: 0x77,
        });
        assert!(
            matches!(err, StorageError::Corrupt { page: None, .. }),
            "{err}"
        );
        assert!(err.to_string().contains("invalid type tag 0x77"), "{err}");
    }

    #[test]
    fn encode_key_checks_column_count() {
        let mut out = vec![9];
        let err = encode_key(&[KeyValue::Integer(1)], &[], &mut out).unwrap_err();
        assert_eq!(
            err,
            KeyError::ColumnCountMismatch {
                values: 1,
                orders: 0
            }
        );
        assert_eq!(out, [9], "nothing appended on error");
        assert!(matches!(
            StorageError::from(err),
            StorageError::InvalidArgument(_)
        ));
    }

    #[test]
    fn prefix_successor_edge_cases() {
        assert_eq!(prefix_successor(b""), None);
        assert_eq!(prefix_successor(b"\xFF\xFF"), None);
        assert_eq!(prefix_successor(b"ab"), Some(b"ac".to_vec()));
        assert_eq!(prefix_successor(b"a\xFF\xFF"), Some(b"b".to_vec()));
        let mut low = Vec::new();
        encode_text_prefix("a\0", KeyOrder::ASC, &mut low);
        assert_eq!(low, b"\x30a\x00\xFF");
        assert_eq!(prefix_successor(&low), Some(b"\x30a\x01".to_vec()));
    }

    #[test]
    fn encoders_only_append() {
        let mut out = b"prefix".to_vec();
        encode_value(&KeyValue::Text("x"), KeyOrder::DESC, &mut out);
        encode_row_id(7, &mut out);
        assert!(out.starts_with(b"prefix"));
        let (v, len) = decode_value(&out[6..], KeyOrder::DESC).unwrap();
        assert_eq!(v, V::Text("x".into()));
        assert_eq!(decode_row_id(&out).unwrap(), 7);
        assert_eq!(6 + len + 8, out.len());
    }
}
