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
//!                                          [, layout varint]
//! 'd' row(8)                           → length varint            (one per non-NULL row)
//! 'k' term 0x00 first row(8)           → a block's skip entry     (layout 2)
//! 'p' term 0x00 first row(8)           → a postings block
//! 'p' term 0x00 0xFF×9                 → df varint, max tf varint, min length varint
//! 'x' term 0x00 row(8) chunk(2)        → positions of one posting with tf > INLINE_POSITIONS
//! ```
//!
//! A term's entry sorts right after its last block, so an insert finds both with one seek.
//!
//! # Skip entries (layout 2)
//!
//! An index of layout 2 ([`LAYOUT_SKIPS`], said by the statistics entry's third varint)
//! keeps a skip entry for every block of a term but its last: under the block's key with
//! `'k'` for `'p'`, its impacts and `last row − first row`, the bounds a search skips by.
//! A term's skip entries lie together, dozens to a page, so a search that passes most blocks
//! of a very common term unread reads a few pages of skip entries instead of every block's
//! page. The last block has none so that appending to it (every insert in row order) writes
//! one entry, not two. Invariant, relied on by `read::TermCursor`: a term's skip entries
//! name exactly its blocks but the last, each with bounds that hold for every posting of its
//! block (a delete may leave them loose, as it leaves a block's own). An index without the
//! third varint (layout 1, written before skip entries) has none and is read and written as
//! before; `REINDEX` rebuilds it with them.
//!
//! `row(8)` is the row id in the index's ascending 8-byte encoding (`keys::encode_row_id`).
//! A block holds at most [`BLOCK_POSTINGS`] postings of one term, in row order, and no more
//! bytes than its entry may take; consecutive blocks of a term hold disjoint, increasing
//! ranges of rows. A block's value is
//!
//! ```text
//! count varint, impacts: n varint (1–8) and n × (tf varint, length varint),
//! last row − first row varint,
//! count × (row − previous row varint, tf varint, length varint,
//!          when tf ≤ INLINE_POSITIONS: its tf positions as varints, the first absolute,
//!          the others as the difference from the one before)
//! ```
//!
//! (the first posting's row difference is 0). A posting's positions follow it, so an insert
//! past a block's last row appends bytes to the block without decoding it.
//!
//! A block's impacts ([`Impacts`]: up to eight (tf, length) points, each posting having a
//! point with at least its tf and at most its length) bound the BM25 score of every posting
//! in it (the score grows with tf and falls with length), which is what block-max WAND skips
//! by; the term entry's `max tf` and `min length` bound the whole list. Both are bounds, not
//! exact values: a delete leaves them as they were.
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
pub const TAG_POSTINGS: u8 = b'p';
pub const TAG_POSITIONS: u8 = b'x';
pub const TAG_SKIP: u8 = b'k';

/// The statistics entry's layout of an index with skip entries; an entry without a layout
/// is layout 1 (no skip entries).
pub const LAYOUT_SKIPS: u64 = 2;

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

/// What follows `'p' term 0x00` in a term's entry: nine 0xFF bytes, so the entry sorts after
/// every block of the term (whose keys end in 8 bytes) and before the next term's.
pub const TERM_SUFFIX: [u8; 9] = [0xFF; 9];

/// `'p' term 0x00 0xFF×9`: the term's entry (the term as stored), just after its blocks, so
/// one seek finds both the entry and the last block.
pub fn term_key(term: &str) -> Vec<u8> {
    let mut key = postings_prefix(term);
    key.extend_from_slice(&TERM_SUFFIX);
    key
}

/// The term (as stored) of a term entry's key, `None` for any other key.
pub fn term_of_key(key: &[u8]) -> ExecResult<Option<&str>> {
    let Some(rest) = key.strip_prefix(&[TAG_POSTINGS]) else {
        return Ok(None);
    };
    match rest
        .strip_suffix(&TERM_SUFFIX)
        .and_then(|r| r.strip_suffix(&[0]))
    {
        Some(term) => std::str::from_utf8(term)
            .map(Some)
            .map_err(|_| corrupt("a term is not UTF-8")),
        None => Ok(None),
    }
}

/// `'p' term 0x00`: what every block key of the term begins with.
pub fn postings_prefix(term: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(term.len() + 10);
    key.push(TAG_POSTINGS);
    key.extend_from_slice(term.as_bytes());
    key.push(0);
    key
}

/// `'k' term 0x00`: what every skip entry key of the term begins with.
pub fn skip_prefix(term: &str) -> Vec<u8> {
    let mut key = postings_prefix(term);
    key[0] = TAG_SKIP;
    key
}

/// The skip entry key of a block key (`'p'` → `'k'`, the rest alike).
pub fn skip_key_of(block_key: &[u8]) -> Vec<u8> {
    let mut key = block_key.to_vec();
    if let Some(tag) = key.first_mut() {
        *tag = TAG_SKIP;
    }
    key
}

/// `'p' term 0x00 row` (or `'k' term 0x00 row`, given the skip prefix).
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
    pub at: usize,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }

    #[inline]
    pub fn varint(&mut self) -> ExecResult<u64> {
        // Most varints of a block are one byte (row gaps of common terms, tf, positions).
        if let Some(&byte) = self.bytes.get(self.at)
            && byte < 0x80
        {
            self.at += 1;
            return Ok(u64::from(byte));
        }
        self.long_varint()
    }

    #[cold]
    fn long_varint(&mut self) -> ExecResult<u64> {
        let (value, used) = self
            .bytes
            .get(self.at..)
            .and_then(read_varint)
            .ok_or_else(|| corrupt("truncated value"))?;
        self.at += used;
        Ok(value)
    }

    #[inline]
    pub fn u32(&mut self) -> ExecResult<u32> {
        if let Some(&byte) = self.bytes.get(self.at)
            && byte < 0x80
        {
            self.at += 1;
            return Ok(u32::from(byte));
        }
        u32::try_from(self.long_varint()?).map_err(|_| corrupt("a count out of range"))
    }

    pub fn is_empty(&self) -> bool {
        self.at >= self.bytes.len()
    }

    /// Steps over `count` varints.
    pub fn skip_varints(&mut self, count: u32) -> ExecResult<()> {
        let mut left = count;
        // Eight bytes at a time while at least eight varints are left: a byte without its
        // high bit ends one varint, so eight bytes end at most eight — all of them lie inside
        // the varints to skip.
        while left >= 8
            && let Some(word) = self
                .bytes
                .get(self.at..self.at + 8)
                .and_then(|bytes| <[u8; 8]>::try_from(bytes).ok())
        {
            self.at += 8;
            left -= (!u64::from_le_bytes(word) & 0x8080_8080_8080_8080).count_ones();
        }
        while left > 0 {
            let byte = *self
                .bytes
                .get(self.at)
                .ok_or_else(|| corrupt("truncated positions"))?;
            self.at += 1;
            if byte & 0x80 == 0 {
                left -= 1;
            }
        }
        Ok(())
    }
}

/// The corpus statistics entry: documents, their total length and the index's layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stats {
    pub documents: u64,
    pub total_length: u64,
    /// 1 (no skip entries) or [`LAYOUT_SKIPS`].
    pub layout: u64,
}

impl Stats {
    /// The statistics of an index with no entry yet: empty, of the current layout.
    pub fn empty() -> Stats {
        Stats {
            documents: 0,
            total_length: 0,
            layout: LAYOUT_SKIPS,
        }
    }

    /// Whether the index keeps skip entries.
    pub fn has_skips(&self) -> bool {
        self.layout >= LAYOUT_SKIPS
    }

    /// The entry's value: layout 1 writes no third varint, so its bytes stay as they were.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(12);
        write_varint(self.documents, &mut out);
        write_varint(self.total_length, &mut out);
        if self.layout > 1 {
            write_varint(self.layout, &mut out);
        }
        out
    }

    pub fn decode(value: &[u8]) -> ExecResult<Stats> {
        let mut reader = Reader::new(value);
        let (documents, total_length) = (reader.varint()?, reader.varint()?);
        let layout = if reader.is_empty() {
            1
        } else {
            reader.varint()?
        };
        if !(1..=LAYOUT_SKIPS).contains(&layout) {
            return Err(ExecError::new(
                sqlstate::FEATURE_NOT_SUPPORTED,
                format!(
                    "full-text index of layout {layout}, newer than this Basalt reads; \
                     REINDEX it with this version"
                ),
            ));
        }
        Ok(Stats {
            documents,
            total_length,
            layout,
        })
    }
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

/// One document's occurrences of one term, as a block holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Posting {
    pub row: i64,
    pub tf: u32,
    /// The document's length in tokens.
    pub length: u32,
    /// Where the encoded positions are in the block's value; empty when they are kept in
    /// `'x'` entries (tf > [`INLINE_POSITIONS`]).
    pub positions: std::ops::Range<usize>,
}

/// A posting with its encoded positions, for rewriting blocks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnedPosting {
    pub row: i64,
    pub tf: u32,
    pub length: u32,
    /// Encoded positions ([`encode_positions`]); empty when kept in `'x'` entries.
    pub positions: Vec<u8>,
}

/// The order-preserving unsigned form of a row id, whose differences are the deltas.
fn ordered(row: i64) -> u64 {
    (row as u64) ^ (1 << 63)
}

fn unordered(value: u64) -> i64 {
    (value ^ (1 << 63)) as i64
}

/// The most (tf, length) points a block keeps to bound its postings' scores (eight halve a
/// very common term's top-10 time against four, for about 1% more index bytes).
pub const MAX_IMPACTS: usize = 8;

/// Points (tf, length) such that every posting of a block has a point with at least its tf
/// and at most its length ("impacts", as Lucene calls them): BM25 grows with tf and falls
/// with length, so the best score of the points bounds every posting's, whatever the
/// corpus's average length is when the block is read. Kept as the Pareto frontier of the
/// postings, cut to [`MAX_IMPACTS`] points by merging neighbours into one point that
/// dominates both; in increasing tf (and length) order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Impacts {
    count: usize,
    points: [(u32, u32); MAX_IMPACTS],
}

impl Impacts {
    pub fn points(&self) -> &[(u32, u32)] {
        &self.points[..self.count]
    }

    /// Counts a posting (or a point of another block's impacts).
    pub fn add(&mut self, tf: u32, length: u32) {
        let points = self.points();
        if points.iter().any(|&(t, l)| t >= tf && l <= length) {
            return;
        }
        let mut next: Vec<(u32, u32)> = points
            .iter()
            .copied()
            .filter(|&(t, l)| !(tf >= t && length <= l))
            .collect();
        let at = next.partition_point(|&(t, _)| t < tf);
        next.insert(at, (tf, length));
        while next.len() > MAX_IMPACTS {
            // Merge the neighbours closest in tf: (the higher tf, the lower length).
            let mut best = 0;
            for i in 1..next.len() - 1 {
                if next[i + 1].0 - next[i].0 < next[best + 1].0 - next[best].0 {
                    best = i;
                }
            }
            next[best] = (next[best + 1].0, next[best].1);
            next.remove(best + 1);
        }
        self.count = next.len();
        self.points = [(0, 0); MAX_IMPACTS];
        self.points[..next.len()].copy_from_slice(&next);
    }

    pub fn max_tf(&self) -> u32 {
        self.points().iter().map(|p| p.0).max().unwrap_or(0)
    }

    pub fn min_length(&self) -> u32 {
        self.points().iter().map(|p| p.1).min().unwrap_or(0)
    }

    fn encode(&self, out: &mut Vec<u8>) {
        write_varint(self.count as u64, out);
        for &(tf, length) in self.points() {
            write_varint(u64::from(tf), out);
            write_varint(u64::from(length), out);
        }
    }

    fn decode(reader: &mut Reader<'_>) -> ExecResult<Impacts> {
        let count = usize::try_from(reader.varint()?).map_err(|_| corrupt("impacts"))?;
        if count == 0 || count > MAX_IMPACTS {
            return Err(corrupt("impacts"));
        }
        let mut impacts = Impacts {
            count,
            ..Impacts::default()
        };
        for point in &mut impacts.points[..count] {
            *point = (reader.u32()?, reader.u32()?);
        }
        Ok(impacts)
    }
}

/// A block's header: what skipping needs without decoding the postings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockHeader {
    pub count: usize,
    pub impacts: Impacts,
    pub first_row: i64,
    pub last_row: i64,
}

impl BlockHeader {
    pub fn bounds(&self) -> BlockBounds {
        BlockBounds {
            impacts: self.impacts,
            first_row: self.first_row,
            last_row: self.last_row,
        }
    }
}

/// What a search skips a block by, from its header or its skip entry: every posting of the
/// block has a row in `first_row..=last_row` and a point of `impacts` dominating it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockBounds {
    pub impacts: Impacts,
    pub first_row: i64,
    pub last_row: i64,
}

/// A skip entry's value: the block's impacts and `last row − first row`.
pub fn encode_skip(impacts: &Impacts, first_row: i64, last_row: i64) -> Vec<u8> {
    let mut out = Vec::with_capacity(24);
    impacts.encode(&mut out);
    write_varint(ordered(last_row).wrapping_sub(ordered(first_row)), &mut out);
    out
}

/// A skip entry's bounds, from its key's first row and its value.
pub fn decode_skip(first_row: i64, value: &[u8]) -> ExecResult<BlockBounds> {
    let mut reader = Reader::new(value);
    let impacts = Impacts::decode(&mut reader)?;
    let span = reader.varint()?;
    if !reader.is_empty() {
        return Err(corrupt("skip entry"));
    }
    Ok(BlockBounds {
        impacts,
        first_row,
        last_row: unordered(ordered(first_row).wrapping_add(span)),
    })
}

/// The skip entry of a block's value (whose key names `first_row`).
pub fn skip_of_block(first_row: i64, value: &[u8]) -> ExecResult<Vec<u8>> {
    let (header, _) = decode_header(first_row, value)?;
    Ok(encode_skip(
        &header.impacts,
        header.first_row,
        header.last_row,
    ))
}

/// Builds a block's value a posting at a time, rows increasing: the bulk build fills blocks
/// with it, and an insert past a block's last row appends to the block's bytes without
/// decoding them.
#[derive(Clone, Debug, Default)]
pub struct BlockBuilder {
    count: usize,
    impacts: Impacts,
    first_row: i64,
    last_row: i64,
    /// The postings, encoded (everything after the header).
    body: Vec<u8>,
}

impl BlockBuilder {
    /// A builder holding the block `value` (whose key names `first_row`), to append to.
    pub fn from_value(first_row: i64, value: &[u8]) -> ExecResult<BlockBuilder> {
        let (header, body_at) = decode_header(first_row, value)?;
        Ok(BlockBuilder {
            count: header.count,
            impacts: header.impacts,
            first_row,
            last_row: header.last_row,
            body: value[body_at..].to_vec(),
        })
    }

    pub fn count(&self) -> usize {
        self.count
    }

    pub fn first_row(&self) -> i64 {
        self.first_row
    }

    /// The skip entry of the block as built so far.
    pub fn skip(&self) -> Vec<u8> {
        encode_skip(&self.impacts, self.first_row, self.last_row)
    }

    /// The encoded size of a posting of `row` (past every row held) with `positions` bytes
    /// of inline positions.
    pub fn posting_size(&self, row: i64, tf: u32, length: u32, positions: usize) -> usize {
        let delta = match self.count {
            0 => 0,
            _ => ordered(row).wrapping_sub(ordered(self.last_row)),
        };
        posting_size(delta, tf, length, positions)
    }

    /// Appends a posting (its row past every row held) with its encoded positions.
    pub fn push(&mut self, row: i64, tf: u32, length: u32, positions: &[u8]) {
        let previous = if self.count == 0 {
            self.first_row = row;
            ordered(row)
        } else {
            ordered(self.last_row)
        };
        self.impacts.add(tf, length);
        write_varint(ordered(row).wrapping_sub(previous), &mut self.body);
        write_varint(u64::from(tf), &mut self.body);
        write_varint(u64::from(length), &mut self.body);
        if tf <= INLINE_POSITIONS {
            self.body.extend_from_slice(positions);
        }
        self.last_row = row;
        self.count += 1;
    }

    /// The value's size if a posting of `extra` encoded bytes were pushed (an upper bound).
    pub fn size_with(&self, extra: usize) -> usize {
        // The header: three varints and the impacts, at most 10 bytes a varint.
        30 + 10 * (1 + 2 * MAX_IMPACTS) + self.body.len() + extra
    }

    /// The block's value.
    pub fn finish(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.body.len() + 16);
        write_varint(self.count as u64, &mut out);
        self.impacts.encode(&mut out);
        write_varint(
            ordered(self.last_row).wrapping_sub(ordered(self.first_row)),
            &mut out,
        );
        out.extend_from_slice(&self.body);
        out
    }
}

/// The encoded size of a posting: its three varints and its inline positions.
pub fn posting_size(row_delta: u64, tf: u32, length: u32, positions: usize) -> usize {
    let varint = |value: u64| (64 - value.leading_zeros() as usize).div_ceil(7).max(1);
    varint(row_delta) + varint(u64::from(tf)) + varint(u64::from(length)) + positions
}

/// Appends positions (increasing) as varints: the first, then the differences.
pub fn encode_positions(positions: &[u32], out: &mut Vec<u8>) {
    let mut previous = 0;
    for &position in positions {
        write_varint(u64::from(position - previous), out);
        previous = position;
    }
}

/// A block's header, from its key's first row and its value, and where its postings begin.
pub fn decode_header(first_row: i64, value: &[u8]) -> ExecResult<(BlockHeader, usize)> {
    let mut reader = Reader::new(value);
    let count = usize::try_from(reader.varint()?).map_err(|_| corrupt("block count"))?;
    let impacts = Impacts::decode(&mut reader)?;
    let span = reader.varint()?;
    if count == 0 || count > BLOCK_POSTINGS {
        return Err(corrupt("block count"));
    }
    Ok((
        BlockHeader {
            count,
            impacts,
            first_row,
            last_row: unordered(ordered(first_row).wrapping_add(span)),
        },
        reader.at,
    ))
}

/// Decodes a block's postings into `out` (cleared first); positions are located, not decoded.
pub fn decode_block(
    first_row: i64,
    value: &[u8],
    out: &mut Vec<Posting>,
) -> ExecResult<BlockHeader> {
    out.clear();
    let (header, body_at) = decode_header(first_row, value)?;
    let mut reader = Reader::new(value);
    reader.at = body_at;
    let mut row = ordered(first_row);
    for index in 0..header.count {
        let delta = reader.varint()?;
        if index > 0 && delta == 0 {
            return Err(corrupt("rows out of order in a block"));
        }
        row = row.wrapping_add(delta);
        let tf = reader.u32()?;
        let length = reader.u32()?;
        let start = reader.at;
        if tf <= INLINE_POSITIONS {
            reader.skip_varints(tf)?;
        }
        out.push(Posting {
            row: unordered(row),
            tf,
            length,
            positions: start..reader.at,
        });
    }
    if out.last().map(|p| p.row) != Some(header.last_row) || !reader.is_empty() {
        return Err(corrupt("a block's last row"));
    }
    Ok(header)
}

/// A block's postings with their positions' bytes, for rewriting.
pub fn decode_owned(first_row: i64, value: &[u8]) -> ExecResult<Vec<OwnedPosting>> {
    let mut postings = Vec::new();
    decode_block(first_row, value, &mut postings)?;
    Ok(postings
        .into_iter()
        .map(|p| OwnedPosting {
            row: p.row,
            tf: p.tf,
            length: p.length,
            positions: value[p.positions].to_vec(),
        })
        .collect())
}

/// `count` positions written by [`encode_positions`].
pub fn decode_positions(reader: &mut Reader<'_>, count: u32, out: &mut Vec<u32>) -> ExecResult<()> {
    out.clear();
    let mut previous = 0u32;
    for index in 0..count {
        let delta = reader.u32()?;
        if index > 0 && delta == 0 {
            return Err(corrupt("positions out of order"));
        }
        previous = previous
            .checked_add(delta)
            .ok_or_else(|| corrupt("a position out of range"))?;
        out.push(previous);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(positions: &[u32]) -> Vec<u8> {
        let mut out = Vec::new();
        encode_positions(positions, &mut out);
        out
    }

    /// The word-at-a-time skip lands where skipping one byte at a time does, for varints of
    /// every width mixed, any count and any starting offset.
    #[test]
    fn skipping_varints_a_word_at_a_time_matches_byte_by_byte() {
        let mut state = 0x5eed_u64;
        let mut bytes = Vec::new();
        for _ in 0..4_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // Mostly one byte, sometimes two to five.
            let width = [0, 0, 0, 7, 14, 21, 28][(state % 7) as usize];
            write_varint((state >> 8) & ((1u64 << (width + 7)) - 1), &mut bytes);
        }
        for start_varint in 0..20usize {
            let mut start = Reader::new(&bytes);
            start.skip_varints(start_varint as u32).unwrap();
            for count in 0..70u32 {
                let mut fast = Reader::new(&bytes);
                fast.at = start.at;
                fast.skip_varints(count).unwrap();
                let mut slow = Reader::new(&bytes);
                slow.at = start.at;
                for _ in 0..count {
                    slow.long_varint().unwrap();
                }
                assert_eq!(fast.at, slow.at, "{start_varint} then {count}");
            }
        }
    }

    #[test]
    fn blocks_round_trip_and_append_without_decoding() {
        let long: Vec<u32> = (0..40).map(|i| i * 3).collect();
        let postings = [
            (-5, vec![0, 7], 12),
            (3, vec![4], 9),
            (1 << 40, vec![1, 2, 300], 300),
            (1 << 41, long.clone(), 400),
        ];
        let mut builder = BlockBuilder::default();
        for (row, positions, length) in &postings[..2] {
            builder.push(*row, positions.len() as u32, *length, &encoded(positions));
        }
        // Appending to the encoded block equals building it in one go.
        let mut appended = BlockBuilder::from_value(-5, &builder.finish()).unwrap();
        for (row, positions, length) in &postings[2..] {
            let inline = if positions.len() as u32 > INLINE_POSITIONS {
                Vec::new()
            } else {
                encoded(positions)
            };
            appended.push(*row, positions.len() as u32, *length, &inline);
        }
        let value = appended.finish();
        let mut decoded = Vec::new();
        let header = decode_block(-5, &value, &mut decoded).unwrap();
        assert_eq!(
            (header.count, header.first_row, header.last_row),
            (4, -5, 1 << 41)
        );
        assert_eq!(
            header.impacts.points(),
            &[(1, 9), (2, 12), (3, 300), (40, 400)]
        );
        for (posting, (row, positions, length)) in decoded.iter().zip(&postings) {
            assert_eq!((posting.row, posting.length), (*row, *length));
            assert_eq!(posting.tf as usize, positions.len());
            if posting.tf <= INLINE_POSITIONS {
                let mut reader = Reader::new(&value[posting.positions.clone()]);
                let mut out = Vec::new();
                decode_positions(&mut reader, posting.tf, &mut out).unwrap();
                assert_eq!(&out, positions);
            } else {
                assert!(posting.positions.is_empty());
            }
        }
        assert!(decode_block(-5, &value[..value.len() - 1], &mut decoded).is_err());
        assert!(value.len() <= appended.size_with(0));
        assert_eq!(posting_size(300, 2, 128, 5), 2 + 1 + 2 + 5, "varint sizes");
    }

    #[test]
    fn impacts_dominate_every_posting_in_at_most_max_impacts_points() {
        let mut impacts = Impacts::default();
        let mut state = 7u64;
        let mut seen = Vec::new();
        for _ in 0..500 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let (tf, length) = (1 + (state % 20) as u32, 5 + ((state >> 8) % 300) as u32);
            impacts.add(tf, length);
            seen.push((tf, length));
            assert!(impacts.points().len() <= MAX_IMPACTS);
            for &(tf, length) in &seen {
                assert!(
                    impacts
                        .points()
                        .iter()
                        .any(|&(t, l)| t >= tf && l <= length),
                    "({tf}, {length}) is not dominated by {:?}",
                    impacts.points()
                );
            }
        }
        let mut encoded = Vec::new();
        impacts.encode(&mut encoded);
        assert_eq!(
            Impacts::decode(&mut Reader::new(&encoded)).unwrap(),
            impacts
        );
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
