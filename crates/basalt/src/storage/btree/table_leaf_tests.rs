//! Unit tests of the leaf codec: positional insert/remove, relayout, heap compaction,
//! column upgrades, wide and zero-column rows, and damaged headers.

use super::*;
use crate::storage::error::StorageError;

const USABLE: usize = 4092;

fn empty_page(usable: usize) -> Vec<u8> {
    let mut page = vec![0u8; usable];
    init_leaf(&mut page);
    page
}

fn ids(page: &[u8]) -> Vec<i64> {
    TableLeaf::new(page, 1).unwrap().row_ids().collect()
}

#[test]
fn insert_at_positions_and_read_back() {
    let kinds = [ColumnKind::Fixed8, ColumnKind::Var, ColumnKind::Fixed1];
    let mut page = empty_page(USABLE);
    for (position, id) in [(0, 20), (0, 10), (2, 40), (2, 30), (4, 50)] {
        let text = format!("row{id}");
        let values = [
            ValueRef::Fixed(id as u64 * 100),
            if id == 30 {
                ValueRef::Null
            } else {
                ValueRef::Var(text.as_bytes())
            },
            ValueRef::Fixed(id as u64 % 2),
        ];
        assert!(insert_row(&mut page, 1, position, id, &kinds, &values).unwrap());
    }
    assert_eq!(ids(&page), vec![10, 20, 30, 40, 50]);
    let leaf = TableLeaf::new(&page, 1).unwrap();
    for (row, id) in [10i64, 20, 30, 40, 50].into_iter().enumerate() {
        assert_eq!(
            leaf.value(row, 0).unwrap(),
            ValueRef::Fixed(id as u64 * 100)
        );
        if id == 30 {
            assert_eq!(leaf.value(row, 1).unwrap(), ValueRef::Null);
            assert!(leaf.is_null(row, 1));
        } else {
            assert_eq!(
                leaf.value(row, 1).unwrap(),
                ValueRef::Var(format!("row{id}").as_bytes())
            );
        }
        assert_eq!(leaf.value(row, 2).unwrap(), ValueRef::Fixed(id as u64 % 2));
        // Columns beyond the page read as NULL.
        assert_eq!(leaf.value(row, 7).unwrap(), ValueRef::Null);
    }
    assert_eq!(leaf.search(30), Ok(2));
    assert_eq!(leaf.search(35), Err(3));
    let (column, width) = leaf.fixed_column(0).unwrap();
    assert_eq!(width, 8);
    assert_eq!(column.len(), 40);
    assert_eq!(u64::from_le_bytes(column[8..16].try_into().unwrap()), 2000);
    assert_eq!(leaf.null_bitmap(1).unwrap(), &[0b0000_0100]);
    assert!(leaf.fixed_column(1).is_none());
    assert!(leaf.null_bitmap(9).is_none());
    assert!(leaf.value(5, 0).is_err());
}

#[test]
fn remove_and_compact() {
    let kinds = [ColumnKind::Var, ColumnKind::Fixed4];
    let mut page = empty_page(USABLE);
    let blob = vec![7u8; 300];
    let mut count = 0;
    while insert_row(
        &mut page,
        1,
        count,
        count as i64,
        &kinds,
        &[ValueRef::Var(&blob), ValueRef::Fixed(count as u64)],
    )
    .unwrap()
    {
        count += 1;
    }
    assert!(count >= 12, "only {count} rows of 300 bytes fit");
    // Remove every other row: the heap holds garbage, yet new rows fit after compaction.
    for position in (0..count).rev().step_by(2) {
        remove_row(&mut page, 1, position).unwrap();
    }
    let leaf = TableLeaf::new(&page, 1).unwrap();
    assert!(leaf.header().heap_garbage > 0);
    let remaining = leaf.row_count();
    let mut next_id = 1000;
    let mut added = 0;
    while insert_row(
        &mut page,
        1,
        remaining + added,
        next_id,
        &kinds,
        &[ValueRef::Var(&blob), ValueRef::Fixed(1)],
    )
    .unwrap()
    {
        next_id += 1;
        added += 1;
    }
    assert!(added >= count / 2 - 1);
    let leaf = TableLeaf::new(&page, 1).unwrap();
    for row in 0..leaf.row_count() {
        assert_eq!(leaf.value(row, 0).unwrap(), ValueRef::Var(&blob));
    }
    assert_eq!(
        leaf.heap_bytes(0..leaf.row_count()).unwrap(),
        leaf.live_heap_bytes()
    );
    // Removing all rows resets the heap.
    while TableLeaf::new(&page, 1).unwrap().row_count() > 0 {
        remove_row(&mut page, 1, 0).unwrap();
    }
    let leaf = TableLeaf::new(&page, 1).unwrap();
    assert_eq!(leaf.live_heap_bytes(), 0);
    assert_eq!(leaf.header().heap_garbage, 0);
}

#[test]
fn relayout_changes_capacity_with_row_size() {
    let kinds = [ColumnKind::Var];
    let mut page = empty_page(USABLE);
    // Small rows first: a large capacity is chosen.
    for id in 0..20 {
        assert!(
            insert_row(
                &mut page,
                1,
                id as usize,
                id,
                &kinds,
                &[ValueRef::Var(b"ab")]
            )
            .unwrap()
        );
    }
    let small_capacity = TableLeaf::new(&page, 1).unwrap().capacity();
    // Then big rows: the arrays shrink to give the heap room.
    let big = vec![1u8; 400];
    let mut id = 20;
    while insert_row(
        &mut page,
        1,
        id as usize,
        id,
        &kinds,
        &[ValueRef::Var(&big)],
    )
    .unwrap()
    {
        id += 1;
    }
    let leaf = TableLeaf::new(&page, 1).unwrap();
    assert!(leaf.capacity() < small_capacity);
    assert!(
        leaf.used_bytes() > USABLE * 85 / 100,
        "used {}",
        leaf.used_bytes()
    );
    for row in 0..20 {
        assert_eq!(leaf.value(row, 0).unwrap(), ValueRef::Var(b"ab"));
    }
}

#[test]
fn fixed_rows_fill_the_page() {
    for usable in [4092, 65532] {
        let kinds = [ColumnKind::Fixed8, ColumnKind::Fixed8];
        let mut page = empty_page(usable);
        let mut count = 0;
        while insert_row(
            &mut page,
            1,
            count,
            count as i64,
            &kinds,
            &[ValueRef::Fixed(1), ValueRef::Fixed(2)],
        )
        .unwrap()
        {
            count += 1;
        }
        let leaf = TableLeaf::new(&page, 1).unwrap();
        assert!(
            leaf.used_bytes() * 100 > usable * 98,
            "{} of {usable}",
            leaf.used_bytes()
        );
        assert_eq!(leaf.row_count(), count);
    }
}

#[test]
fn column_upgrade_and_conflicts() {
    let mut page = empty_page(USABLE);
    let narrow = [ColumnKind::Fixed8];
    let wide = [ColumnKind::Fixed8, ColumnKind::Var, ColumnKind::Fixed2];
    for id in 0..5 {
        assert!(
            insert_row(
                &mut page,
                1,
                id as usize,
                id,
                &narrow,
                &[ValueRef::Fixed(id as u64)]
            )
            .unwrap()
        );
    }
    assert!(
        insert_row(
            &mut page,
            1,
            5,
            5,
            &wide,
            &[
                ValueRef::Fixed(5),
                ValueRef::Var(b"new"),
                ValueRef::Fixed(9)
            ]
        )
        .unwrap()
    );
    // A narrow row after the upgrade gets NULLs in the new columns.
    assert!(insert_row(&mut page, 1, 6, 6, &narrow, &[ValueRef::Fixed(6)]).unwrap());
    let leaf = TableLeaf::new(&page, 1).unwrap();
    assert_eq!(leaf.column_count(), 3);
    assert_eq!(leaf.value(0, 1).unwrap(), ValueRef::Null);
    assert_eq!(leaf.value(5, 1).unwrap(), ValueRef::Var(b"new"));
    assert_eq!(leaf.value(5, 2).unwrap(), ValueRef::Fixed(9));
    assert_eq!(leaf.value(6, 2).unwrap(), ValueRef::Null);
    for row in 0..7 {
        assert_eq!(leaf.value(row, 0).unwrap(), ValueRef::Fixed(row as u64));
    }
    let conflicting = [ColumnKind::Var];
    assert!(matches!(
        insert_row(&mut page, 1, 7, 7, &conflicting, &[ValueRef::Var(b"x")]),
        Err(StorageError::InvalidArgument(_))
    ));
    // A mismatched value shape is rejected.
    assert!(insert_row(&mut page, 1, 7, 7, &narrow, &[ValueRef::Var(b"x")]).is_err());
}

#[test]
fn many_columns_and_zero_columns() {
    // Each column costs at least 16 bytes of arrays (padded bitmap and values), so a 4 KiB
    // page takes about 250 columns and a 64 KiB page about 4000.
    for (usable, columns) in [(4092, 200), (65532, 3000)] {
        let kinds = vec![ColumnKind::Fixed1; columns];
        let values: Vec<ValueRef<'_>> = (0..columns)
            .map(|column| ValueRef::Fixed(column as u64 % 256))
            .collect();
        let mut page = empty_page(usable);
        let mut count = 0;
        while insert_row(&mut page, 1, count, count as i64, &kinds, &values).unwrap() {
            count += 1;
        }
        assert!(count >= 2, "{count} rows of {columns} columns");
        let leaf = TableLeaf::new(&page, 1).unwrap();
        assert_eq!(
            leaf.value(1, columns - 1).unwrap(),
            ValueRef::Fixed((columns as u64 - 1) % 256)
        );
        assert!(!row_fits_twice(
            &vec![ColumnKind::Fixed1; columns * 2],
            usable,
            0
        ));
    }

    let mut page = empty_page(USABLE);
    let mut count = 0;
    while insert_row(&mut page, 1, 0, -(count as i64), &[], &[]).unwrap() {
        count += 1;
    }
    assert!(count >= (USABLE - 24) / 8 - 1, "{count} zero-column rows");
    let leaf = TableLeaf::new(&page, 1).unwrap();
    assert_eq!(leaf.column_count(), 0);
    assert_eq!(leaf.value(0, 0).unwrap(), ValueRef::Null);
    let ids: Vec<i64> = leaf.row_ids().collect();
    assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
}

#[test]
fn overflow_pointers_and_empty_values() {
    let kinds = [ColumnKind::Var, ColumnKind::Var, ColumnKind::Var];
    let mut page = empty_page(USABLE);
    let prefix = vec![5u8; 100];
    let values = [
        ValueRef::Overflow {
            first_page: 9,
            total_len: 1 << 20,
            prefix: &[],
        },
        ValueRef::Var(b""),
        ValueRef::Overflow {
            first_page: 12,
            total_len: 4080 * 2 + 100,
            prefix: &prefix,
        },
    ];
    assert!(insert_row(&mut page, 1, 0, 1, &kinds, &values).unwrap());
    let leaf = TableLeaf::new(&page, 1).unwrap();
    assert_eq!(leaf.value(0, 0).unwrap(), values[0]);
    assert_eq!(leaf.value(0, 1).unwrap(), ValueRef::Var(b""));
    assert_eq!(leaf.value(0, 2).unwrap(), values[2]);
    assert_eq!(values[2].chain(), Some((12, 4080 * 2)));
    assert!(!leaf.is_null(0, 1));
    assert_eq!(leaf.live_heap_bytes(), 12 + 12 + 100);
    // The entry is {u32 first page, u64 total length, prefix}, its descriptor length the
    // entry length with the overflow flag.
    let (_, values_at, _) = leaf.column_location(2).unwrap();
    let offset = usize::from(read_u16(&page, values_at));
    assert_eq!(read_u16(&page, values_at + 2), 0x8000 | 112);
    assert_eq!(read_u32(&page, offset), 12);
    assert_eq!(read_u64(&page, offset + 4), 4080 * 2 + 100);
    assert_eq!(&page[offset + 12..offset + 112], prefix.as_slice());
    // Relayouts (forced by filling the page) carry the entries over intact.
    let mut id = 2;
    while insert_row(&mut page, 1, 0, -id, &kinds, &values).unwrap() {
        id += 1;
    }
    assert!(id > 20, "{id} rows of overflow entries");
    let leaf = TableLeaf::new(&page, 1).unwrap();
    for row in 0..leaf.row_count() {
        assert_eq!(leaf.value(row, 2).unwrap(), values[2]);
        assert_eq!(leaf.value(row, 0).unwrap(), values[0]);
    }
}

#[test]
fn inline_limit_and_prefix_rule() {
    // The numbers documented in the module doc.
    assert_eq!(ArrayPlan::for_kinds(&[ColumnKind::Var], 2).arrays_end, 56);
    assert_eq!(max_inline_len(4092), 2018);
    assert_eq!(max_inline_len(65532), 32738);
    for usable in [4092, 8188, 16380, 32764, 65532] {
        let limit = max_inline_len(usable);
        let per_page = usable - 12;
        // Every entry length fits the descriptor next to the flag bit.
        assert!(limit + OVERFLOW_POINTER_LEN < usize::from(OVERFLOW_FLAG));
        // Two one-column rows at the limit fit a leaf, a third does not.
        let mut page = empty_page(usable);
        let value = vec![1u8; limit];
        for id in 0..2 {
            assert!(
                insert_row(
                    &mut page,
                    1,
                    id,
                    id as i64,
                    &[ColumnKind::Var],
                    &[ValueRef::Var(&value)]
                )
                .unwrap()
            );
        }
        assert!(
            !insert_row(
                &mut page,
                1,
                2,
                2,
                &[ColumnKind::Var],
                &[ValueRef::Var(&value)]
            )
            .unwrap()
        );
        // Step 2: the remainder stays inline when it fits, filling the chain's pages.
        assert_eq!(overflow_prefix_len(usable, limit + 1), 0);
        assert_eq!(overflow_prefix_len(usable, per_page), 0);
        assert_eq!(overflow_prefix_len(usable, per_page + 1), 1);
        let kept = limit - OVERFLOW_POINTER_LEN;
        assert_eq!(overflow_prefix_len(usable, 3 * per_page + kept), kept);
        assert_eq!(overflow_prefix_len(usable, 3 * per_page + kept + 1), 0);
    }
    // Three rows of the memory test's shape (id, 1000-byte text) share a 4 KiB leaf.
    let kinds = [ColumnKind::Fixed8, ColumnKind::Var];
    let mut page = empty_page(USABLE);
    let text = vec![2u8; 1000];
    for id in 0..3 {
        assert!(
            insert_row(
                &mut page,
                1,
                id,
                id as i64,
                &kinds,
                &[ValueRef::Fixed(1), ValueRef::Var(&text)]
            )
            .unwrap()
        );
    }
}

#[test]
fn damaged_overflow_entries_are_errors() {
    let kinds = [ColumnKind::Var];
    let mut page = empty_page(USABLE);
    let prefix = [7u8; 20];
    let value = ValueRef::Overflow {
        first_page: 3,
        total_len: 4080 + 20,
        prefix: &prefix,
    };
    assert!(insert_row(&mut page, 1, 0, 1, &kinds, &[value]).unwrap());
    let leaf = TableLeaf::new(&page, 1).unwrap();
    let (_, values_at, _) = leaf.column_location(0).unwrap();
    let offset = usize::from(read_u16(&page, values_at));
    let damaged = |edit: &dyn Fn(&mut Vec<u8>)| {
        let mut copy = page.clone();
        edit(&mut copy);
        let leaf = TableLeaf::new(&copy, 1).unwrap();
        matches!(leaf.value(0, 0), Err(StorageError::Corrupt { .. }))
    };
    // Entry shorter than the pointer.
    assert!(damaged(&|bytes| write_u16(
        bytes,
        values_at + 2,
        0x8000 | 11
    )));
    assert!(damaged(&|bytes| write_u16(bytes, values_at + 2, 0x8000)));
    // Entry running past the page.
    assert!(damaged(&|bytes| write_u16(bytes, values_at + 2, 0xFFFF)));
    // Page 0, a total length not above the prefix, an absurd total length.
    assert!(damaged(&|bytes| write_u32(bytes, offset, 0)));
    assert!(damaged(&|bytes| write_uint(bytes, offset + 4, 8, 20)));
    assert!(damaged(&|bytes| write_uint(bytes, offset + 4, 8, 0)));
    assert!(damaged(&|bytes| write_uint(bytes, offset + 4, 8, u64::MAX)));
    assert!(!damaged(&|_| {}));
    // The writer refuses entries a descriptor cannot describe.
    let mut big_page = empty_page(65532);
    let huge = vec![0u8; 0x8000];
    assert!(insert_row(&mut big_page, 1, 0, 1, &kinds, &[ValueRef::Var(&huge)]).is_err());
    for bad in [
        ValueRef::Overflow {
            first_page: 3,
            total_len: 20,
            prefix: &prefix,
        },
        ValueRef::Overflow {
            first_page: 0,
            total_len: 200,
            prefix: &prefix,
        },
    ] {
        assert!(insert_row(&mut page, 1, 1, 2, &kinds, &[bad]).is_err());
    }
}

#[test]
fn damaged_headers_are_errors_not_panics() {
    let kinds = [ColumnKind::Var, ColumnKind::Fixed8];
    let mut page = empty_page(USABLE);
    for id in 0..10 {
        insert_row(
            &mut page,
            1,
            id as usize,
            id,
            &kinds,
            &[ValueRef::Var(b"hello"), ValueRef::Fixed(3)],
        )
        .unwrap();
    }
    let mut wrong_kind = page.clone();
    wrong_kind[0] = 9;
    assert!(TableLeaf::new(&wrong_kind, 1).is_err());
    let mut too_many_rows = page.clone();
    too_many_rows[4..6].copy_from_slice(&u16::MAX.to_le_bytes());
    assert!(TableLeaf::new(&too_many_rows, 1).is_err());
    let mut bad_heap = page.clone();
    bad_heap[8..10].copy_from_slice(&10u16.to_le_bytes());
    assert!(TableLeaf::new(&bad_heap, 1).is_err());
    let mut bad_column_kind = page.clone();
    bad_column_kind[LEAF_HEADER_LEN] = 3;
    assert!(TableLeaf::new(&bad_column_kind, 1).is_err());
    // A descriptor pointing outside the heap is caught when read.
    let leaf = TableLeaf::new(&page, 1).unwrap();
    let (_, values_at, _) = leaf.column_location(0).unwrap();
    let mut bad_descriptor = page.clone();
    bad_descriptor[values_at..values_at + 2].copy_from_slice(&4000u16.to_le_bytes());
    bad_descriptor[values_at + 2..values_at + 4].copy_from_slice(&500u16.to_le_bytes());
    assert!(
        TableLeaf::new(&bad_descriptor, 1)
            .unwrap()
            .value(0, 0)
            .is_err()
    );
    bad_descriptor[values_at..values_at + 2].copy_from_slice(&30u16.to_le_bytes());
    bad_descriptor[values_at + 2..values_at + 4].copy_from_slice(&5u16.to_le_bytes());
    assert!(
        TableLeaf::new(&bad_descriptor, 1)
            .unwrap()
            .value(0, 0)
            .is_err()
    );
    // Random garbage anywhere: reading every value either succeeds or errors.
    let mut seed = 12345u64;
    for _ in 0..2000 {
        let mut damaged = page.clone();
        for _ in 0..4 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let at = (seed >> 33) as usize % damaged.len();
            damaged[at] = (seed >> 17) as u8;
        }
        if let Ok(leaf) = TableLeaf::new(&damaged, 1) {
            for row in 0..leaf.row_count() + 1 {
                for column in 0..leaf.column_count() + 1 {
                    let _ = leaf.value(row, column);
                }
            }
            let _ = leaf.heap_bytes(0..leaf.row_count());
            let _ = insert_row(
                &mut damaged,
                1,
                0,
                -1,
                &kinds,
                &[ValueRef::Var(b"x"), ValueRef::Fixed(1)],
            );
            if TableLeaf::new(&damaged, 1).is_ok_and(|leaf| leaf.row_count() > 0) {
                let _ = remove_row(&mut damaged, 1, 0);
            }
        }
    }
}

#[test]
fn replace_at_position_reuses_space() {
    // A replacement is a remove plus an insert at the same position; repeated replacements
    // of a value by one of the same size never run out of room (garbage is compacted).
    let kinds = [ColumnKind::Var, ColumnKind::Fixed2];
    let mut page = empty_page(USABLE);
    for id in 0..10 {
        let value = vec![id as u8; 200];
        assert!(
            insert_row(
                &mut page,
                1,
                id as usize,
                id,
                &kinds,
                &[ValueRef::Var(&value), ValueRef::Fixed(id as u64)]
            )
            .unwrap()
        );
    }
    for round in 0..200u64 {
        let position = (round * 7 % 10) as usize;
        let row_id = TableLeaf::new(&page, 1).unwrap().row_id(position);
        remove_row(&mut page, 1, position).unwrap();
        let value = vec![round as u8; 200];
        assert!(
            insert_row(
                &mut page,
                1,
                position,
                row_id,
                &kinds,
                &[ValueRef::Var(&value), ValueRef::Fixed(round)]
            )
            .unwrap()
        );
        let leaf = TableLeaf::new(&page, 1).unwrap();
        assert_eq!(leaf.value(position, 0).unwrap(), ValueRef::Var(&value));
        assert_eq!(
            leaf.value(position, 1).unwrap(),
            ValueRef::Fixed(round & 0xFFFF)
        );
        assert_eq!(
            leaf.row_ids().collect::<Vec<_>>(),
            (0..10).collect::<Vec<i64>>()
        );
        assert_eq!(leaf.heap_bytes(0..10).unwrap(), leaf.live_heap_bytes());
    }
}

#[test]
fn overwrite_in_place_when_values_fit() {
    let kinds = [ColumnKind::Fixed8, ColumnKind::Var, ColumnKind::Fixed4];
    let mut page = empty_page(USABLE);
    for id in 0..5i64 {
        let text = format!("value-{id}");
        let values = [
            ValueRef::Fixed(id as u64),
            ValueRef::Var(text.as_bytes()),
            ValueRef::Fixed(7),
        ];
        assert!(insert_row(&mut page, 1, id as usize, id, &kinds, &values).unwrap());
    }
    let before = page.clone();
    // Same-length and shorter Var values, new fixed values and a NULL fit in place.
    let values = [ValueRef::Fixed(99), ValueRef::Var(b"short"), ValueRef::Null];
    assert!(overwrite_row(&mut page, 1, 2, &kinds, &values).unwrap());
    let leaf = TableLeaf::new(&page, 1).unwrap();
    assert_eq!(leaf.value(2, 0).unwrap(), ValueRef::Fixed(99));
    assert_eq!(leaf.value(2, 1).unwrap(), ValueRef::Var(b"short"));
    assert_eq!(leaf.value(2, 2).unwrap(), ValueRef::Null);
    assert!(leaf.is_null(2, 2));
    // The other rows are untouched, and the heap accounts for the two bytes given up.
    for row in [0usize, 1, 3, 4] {
        assert_eq!(
            leaf.value(row, 1).unwrap(),
            ValueRef::Var(format!("value-{row}").as_bytes())
        );
        assert_eq!(leaf.value(row, 2).unwrap(), ValueRef::Fixed(7));
    }
    assert_eq!(leaf.heap_bytes(0..5).unwrap(), leaf.live_heap_bytes());
    assert_eq!(leaf.row_ids().collect::<Vec<_>>(), vec![0, 1, 2, 3, 4]);

    // A longer Var value, an overflow entry or a kind mismatch does not fit: nothing changes.
    let mut untouched = before.clone();
    let longer = [
        ValueRef::Fixed(1),
        ValueRef::Var(b"a value longer than before"),
        ValueRef::Fixed(1),
    ];
    assert!(!overwrite_row(&mut untouched, 1, 1, &kinds, &longer).unwrap());
    let overflow = [
        ValueRef::Fixed(1),
        ValueRef::Overflow {
            first_page: 9,
            total_len: 5000,
            prefix: b"",
        },
        ValueRef::Fixed(1),
    ];
    assert!(!overwrite_row(&mut untouched, 1, 1, &kinds, &overflow).unwrap());
    let other_kinds = [ColumnKind::Fixed8, ColumnKind::Fixed8, ColumnKind::Fixed4];
    let fixed = [ValueRef::Fixed(1), ValueRef::Fixed(2), ValueRef::Fixed(3)];
    assert!(!overwrite_row(&mut untouched, 1, 1, &other_kinds, &fixed).unwrap());
    assert!(!overwrite_row(&mut untouched, 1, 5, &kinds, &values).unwrap());
    assert_eq!(untouched, before);

    // A NULL Var value grows back only through remove-and-insert.
    let null_text = [ValueRef::Fixed(5), ValueRef::Null, ValueRef::Fixed(5)];
    assert!(overwrite_row(&mut page, 1, 4, &kinds, &null_text).unwrap());
    assert!(!overwrite_row(&mut page, 1, 4, &kinds, &longer).unwrap());
    let leaf = TableLeaf::new(&page, 1).unwrap();
    assert_eq!(leaf.value(4, 1).unwrap(), ValueRef::Null);
    assert_eq!(leaf.heap_bytes(0..5).unwrap(), leaf.live_heap_bytes());
}

/// `remove_bit` (a byte at a time) against moving the bits down one by one, over bitmaps of
/// every length to three words, every position, every start byte and mixed patterns.
#[test]
fn removing_a_bit_shifts_the_bits_above_it() {
    use super::super::table_leaf_write::remove_bit;
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for rows in 1..=200usize {
        for position in 0..rows {
            for offset in [0usize, 3] {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                let mut bytes = vec![0u8; offset + rows.div_ceil(8) + 2];
                for row in 0..rows {
                    let on = (state >> (row % 61)) & 1 == 1 || row % 7 == 3;
                    set_bit(&mut bytes, offset, row, on);
                }
                let mut expected = bytes.clone();
                for row in position..rows - 1 {
                    let null = bit(&expected, offset, row + 1);
                    set_bit(&mut expected, offset, row, null);
                }
                set_bit(&mut expected, offset, rows - 1, false);
                remove_bit(&mut bytes, offset, position, rows);
                assert_eq!(bytes, expected, "rows {rows}, position {position}");
            }
        }
    }
}
