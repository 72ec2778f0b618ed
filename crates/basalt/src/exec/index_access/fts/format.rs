//! The byte layout of a full-text index: what its B+tree holds under which key, and the
//! codec of a postings block. `docs/file-format.md` describes the same bytes.
//!
//! # What
//!
//! A full-text index is one index B+tree (`storage::btree::IndexTree`) whose keys begin with
//! a tag byte naming what the entry is:
//!
//! ```text
//! 's'                                  → documents varint, total length varint
//! 'd' row(8)                           → length varint            (one per non-NULL row)
//! 't' term                             → df varint, max tf varint, min length varint
//! 'p' term 0x00 first row(8)           → a postings block
//! 'x' term 0x00 row(8) chunk(2)        → positions of one posting with tf > INLINE_POSITIONS
//! ```
//!
//! `row(8)` is the row id in the index's ascending 8-byte encoding (`keys::encode_row_id`).
//! A block holds at most [`BLOCK_POSTINGS`] postings of one term, in row order, and no more
//! bytes than its entry may take; consecutive blocks of a term hold disjoint, increasing
//! ranges of rows. A block's value is
//!
//! ```text
//! count varint, max tf varint, min length varint, last row − first row varint,
//! count × (row − previous row varint, tf varint, length varint),
//! for each posting with tf ≤ INLINE_POSITIONS: its tf positions as varints, the first
//! absolute, the others as the difference from the one before
//! ```
//!
//! The block's maximum tf and minimum document length bound the BM25 score of every posting
//! in it (the score grows with tf and falls with length), which is what block-max WAND skips
//! by; the term entry's `max tf` and `min length` bound the whole list. Those two are kept as
//! bounds, not exact values: a delete leaves them as they were.
//!
//! # Terms as stored
//!
//! A term is stored as its UTF-8 bytes when it has at most [`MAX_TERM_BYTES`] of them and no
//! NUL (a Unicode word never holds one); a longer term is stored as its first characters
//! within [`TRUNCATED_TERM_BYTES`], a U+0001 and 16 hexadecimal digits of its FNV-1a hash, so
//! every key fits a page. Keys are parsed from both ends (the row id is always the last 8
//! bytes), so a term's bytes never need escaping.

use std::borrow::Cow;

use crate::exec::error::{ExecError, ExecResult};
use crate::exec::spill::codec::{read_varint, write_varint};
use crate::sqlstate;
use crate::storage::keys;

pub const TAG_STATS: u8 = b's';
pub const TAG_DOCUMENT: u8 = b'd';
pub const TAG_TERM: u8 = b't';
pub const TAG_POSTINGS: u8 = b'p';
pub const TAG_POSITIONS: u8 = b'x';

/// The most postings a block holds.
pub const BLOCK_POSTINGS: usize = 128;
/// Postings with at most this many occurrences keep their positions in the block.
pub const INLINE_POSITIONS: u32 = 32;
/// The most bytes of positions one `'x'` entry holds.
pub const POSITION_CHUNK_BYTES: usize = 480;
/// Terms longer than this are stored truncated with a hash.
pub const MAX_TERM_BYTES: usize = 200;
/// What a truncated term keeps of its text.
pub const TRUNCATED_TERM_BYTES: usize = 180;

/// A corrupt entry of the index.
pub fn corrupt(what: &str) -> ExecError {
    ExecError::new(
        sqlstate::DATA_CORRUPTED,
        format!("full-text index entry is damaged: {what}"),
    )
}

/// The bytes a term is stored as (see the module doc).
pub fn stored_term(term: &str) -> Cow<'_, str> {
    if term.len() <= MAX_TERM_BYTES && !term.contains('\0') {
        return Cow::Borrowed(term);
    }
    let mut end = TRUNCATED_TERM_BYTES;
    while !term.is_char_boundary(end) {
        end -= 1;
    }
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in term.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    Cow::Owned(format!("{}\u{1}{hash:016x}", term[..end].replace('\0', "")))
}

/// `'s'`.
pub fn stats_key() -> [u8; 1] {
    [TAG_STATS]
}

/// `'d' row`.
pub fn document_key(row: i64) -> Vec<u8> {
    let mut key = Vec::with_capacity(9);
    key.push(TAG_DOCUMENT);
    keys::encode_row_id(row, &mut key);
    key
}

/// `'t' term` (the term as stored).
pub fn term_key(term: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(1 + term.len());
    key.push(TAG_TERM);
    key.extend_from_slice(term.as_bytes());
    key
}

/// `'p' term 0x00`: what every block key of the term begins with.
pub fn postings_prefix(term: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(term.len() + 10);
    key.push(TAG_POSTINGS);
    key.extend_from_slice(term.as_bytes());
    key.push(0);
    key
}

/// `'p' term 0x00 row`.
pub fn postings_key(prefix: &[u8], row: i64) -> Vec<u8> {
    let mut key = Vec::with_capacity(prefix.len() + 8);
    key.extend_from_slice(prefix);
    keys::encode_row_id(row, &mut key);
    key
}

/// Whether `key` is a block key of the term whose prefix is `prefix`; its first row if so.
pub fn block_row(key: &[u8], prefix: &[u8]) -> ExecResult<Option<i64>> {
    if key.len() != prefix.len() + 8 || !key.starts_with(prefix) {
        return Ok(None);
    }
    keys::decode_row_id(key)
        .map(Some)
        .map_err(|_| corrupt("block key"))
}

/// `'x' term 0x00 row chunk`.
pub fn positions_key(term: &str, row: i64, chunk: u16) -> Vec<u8> {
    let mut key = Vec::with_capacity(term.len() + 12);
    key.push(TAG_POSITIONS);
    key.extend_from_slice(term.as_bytes());
    key.push(0);
    keys::encode_row_id(row, &mut key);
    key.extend_from_slice(&chunk.to_be_bytes());
    key
}

/// Reads varints from a value, each a corruption error if missing.
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }

    pub fn varint(&mut self) -> ExecResult<u64> {
        let (value, used) = self
            .bytes
            .get(self.at..)
            .and_then(read_varint)
            .ok_or_else(|| corrupt("truncated value"))?;
        self.at += used;
        Ok(value)
    }

    pub fn u32(&mut self) -> ExecResult<u32> {
        u32::try_from(self.varint()?).map_err(|_| corrupt("a count out of range"))
    }

    pub fn is_empty(&self) -> bool {
        self.at >= self.bytes.len()
    }
}

/// The corpus statistics entry: documents and their total length.
pub fn encode_stats(documents: u64, total_length: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(12);
    write_varint(documents, &mut out);
    write_varint(total_length, &mut out);
    out
}

pub fn decode_stats(value: &[u8]) -> ExecResult<(u64, u64)> {
    let mut reader = Reader::new(value);
    Ok((reader.varint()?, reader.varint()?))
}

/// A term's entry: in how many documents it occurs, and bounds of its postings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TermInfo {
    pub documents: u64,
    /// At least every posting's tf.
    pub max_tf: u32,
    /// At most every posting's document length.
    pub min_length: u32,
}

impl TermInfo {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(12);
        write_varint(self.documents, &mut out);
        write_varint(u64::from(self.max_tf), &mut out);
        write_varint(u64::from(self.min_length), &mut out);
        out
    }

    pub fn decode(value: &[u8]) -> ExecResult<TermInfo> {
        let mut reader = Reader::new(value);
        Ok(TermInfo {
            documents: reader.varint()?,
            max_tf: reader.u32()?,
            min_length: reader.u32()?,
        })
    }
}

/// One document's occurrences of one term.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Posting {
    pub row: i64,
    pub tf: u32,
    /// The document's length in tokens.
    pub length: u32,
    /// The term's positions, when the block holds them (tf ≤ [`INLINE_POSITIONS`]); empty
    /// otherwise (they are in `'x'` entries) or when the block was decoded without them.
    pub positions: Vec<u32>,
}

/// The order-preserving unsigned form of a row id, whose differences are the deltas.
fn ordered(row: i64) -> u64 {
    (row as u64) ^ (1 << 63)
}

fn unordered(value: u64) -> i64 {
    (value ^ (1 << 63)) as i64
}

/// A block's header: what skipping needs without decoding the postings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockHeader {
    pub count: usize,
    pub max_tf: u32,
    pub min_length: u32,
    pub first_row: i64,
    pub last_row: i64,
}

/// Encodes `postings` (non-empty, rows increasing) as a block value.
pub fn encode_block(postings: &[Posting]) -> Vec<u8> {
    let mut out = Vec::with_capacity(postings.len() * 6 + 8);
    let (Some(first), Some(last)) = (postings.first(), postings.last()) else {
        return out;
    };
    write_varint(postings.len() as u64, &mut out);
    write_varint(
        u64::from(postings.iter().map(|p| p.tf).max().unwrap_or(0)),
        &mut out,
    );
    write_varint(
        u64::from(postings.iter().map(|p| p.length).min().unwrap_or(0)),
        &mut out,
    );
    write_varint(ordered(last.row).wrapping_sub(ordered(first.row)), &mut out);
    let mut previous = ordered(first.row);
    for posting in postings {
        write_varint(ordered(posting.row).wrapping_sub(previous), &mut out);
        previous = ordered(posting.row);
        write_varint(u64::from(posting.tf), &mut out);
        write_varint(u64::from(posting.length), &mut out);
    }
    for posting in postings.iter().filter(|p| p.tf <= INLINE_POSITIONS) {
        encode_positions(&posting.positions, &mut out);
    }
    out
}

/// Appends positions (increasing) as varints: the first, then the differences.
pub fn encode_positions(positions: &[u32], out: &mut Vec<u8>) {
    let mut previous = 0;
    for &position in positions {
        write_varint(u64::from(position - previous), out);
        previous = position;
    }
}

/// A block's header, from its key's first row and its value.
pub fn decode_header(first_row: i64, value: &[u8]) -> ExecResult<BlockHeader> {
    let mut reader = Reader::new(value);
    let count = usize::try_from(reader.varint()?).map_err(|_| corrupt("block count"))?;
    let max_tf = reader.u32()?;
    let min_length = reader.u32()?;
    let span = reader.varint()?;
    if count == 0 || count > BLOCK_POSTINGS {
        return Err(corrupt("block count"));
    }
    Ok(BlockHeader {
        count,
        max_tf,
        min_length,
        first_row,
        last_row: unordered(ordered(first_row).wrapping_add(span)),
    })
}

/// Decodes a block into `out` (cleared first); its positions only when `with_positions`.
pub fn decode_block(
    first_row: i64,
    value: &[u8],
    with_positions: bool,
    out: &mut Vec<Posting>,
) -> ExecResult<BlockHeader> {
    out.clear();
    let header = decode_header(first_row, value)?;
    let mut reader = Reader::new(value);
    for _ in 0..4 {
        reader.varint()?;
    }
    let mut row = ordered(first_row);
    for index in 0..header.count {
        let delta = reader.varint()?;
        if index > 0 && delta == 0 {
            return Err(corrupt("rows out of order in a block"));
        }
        row = row.wrapping_add(delta);
        out.push(Posting {
            row: unordered(row),
            tf: reader.u32()?,
            length: reader.u32()?,
            positions: Vec::new(),
        });
    }
    if out.last().map(|p| p.row) != Some(header.last_row) {
        return Err(corrupt("a block's last row"));
    }
    if with_positions {
        for posting in out.iter_mut().filter(|p| p.tf <= INLINE_POSITIONS) {
            posting.positions = decode_positions(&mut reader, posting.tf)?;
        }
    }
    Ok(header)
}

/// `count` positions written by [`encode_positions`].
pub fn decode_positions(reader: &mut Reader<'_>, count: u32) -> ExecResult<Vec<u32>> {
    let mut positions = Vec::with_capacity(count as usize);
    let mut previous = 0u32;
    for index in 0..count {
        let delta = reader.u32()?;
        if index > 0 && delta == 0 {
            return Err(corrupt("positions out of order"));
        }
        previous = previous
            .checked_add(delta)
            .ok_or_else(|| corrupt("a position out of range"))?;
        positions.push(previous);
    }
    Ok(positions)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn posting(row: i64, positions: Vec<u32>, length: u32) -> Posting {
        Posting {
            row,
            tf: positions.len() as u32,
            length,
            positions,
        }
    }

    #[test]
    fn blocks_round_trip_with_and_without_positions() {
        let mut long = (0..40).map(|i| i * 3).collect::<Vec<u32>>();
        long.sort_unstable();
        let postings = vec![
            posting(-5, vec![0, 7], 12),
            posting(3, vec![4], 9),
            posting(1 << 40, vec![1, 2, 3], 300),
            Posting {
                positions: Vec::new(),
                ..posting(1 << 41, long, 400)
            },
        ];
        let value = encode_block(&postings);
        let mut decoded = Vec::new();
        let header = decode_block(-5, &value, true, &mut decoded).unwrap();
        assert_eq!(decoded, postings);
        assert_eq!(
            header,
            BlockHeader {
                count: 4,
                max_tf: 40,
                min_length: 9,
                first_row: -5,
                last_row: 1 << 41,
            }
        );
        decode_block(-5, &value, false, &mut decoded).unwrap();
        assert!(decoded.iter().all(|p| p.positions.is_empty()));
        assert!(decode_block(-5, &value[..value.len() - 1], true, &mut decoded).is_err());
    }

    #[test]
    fn long_terms_are_stored_truncated_with_a_hash() {
        assert_eq!(stored_term("fox"), "fox");
        let long = "é".repeat(150);
        let stored = stored_term(&long);
        assert!(stored.len() <= TRUNCATED_TERM_BYTES + 17);
        assert!(stored.starts_with("é"));
        assert_ne!(stored, stored_term(&"é".repeat(151)));
    }
}
