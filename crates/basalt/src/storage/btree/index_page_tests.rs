//! Unit tests of the index page codecs: positional inserts, deletes, defragmentation,
//! full-page detection, separators, size limits and damaged headers.

use super::*;

const USABLE: usize = 4092;

fn leaf() -> Vec<u8> {
    let mut page = vec![0u8; USABLE];
    init(&mut page, 1, true).unwrap();
    page
}

fn keys(page: &[u8]) -> Vec<Vec<u8>> {
    let node = Node::parse(page, 1).unwrap();
    (0..node.count())
        .map(|i| node.key(i).unwrap().to_vec())
        .collect()
}

#[test]
fn insert_at_positions_keeps_slot_order() {
    let mut page = leaf();
    assert!(insert_leaf_entry(&mut page, 1, 0, b"m", b"1").unwrap());
    assert!(insert_leaf_entry(&mut page, 1, 0, b"a", b"22").unwrap());
    assert!(insert_leaf_entry(&mut page, 1, 2, b"z", b"").unwrap());
    assert!(insert_leaf_entry(&mut page, 1, 1, b"f", b"333").unwrap());
    assert_eq!(
        keys(&page),
        vec![b"a".to_vec(), b"f".to_vec(), b"m".to_vec(), b"z".to_vec()]
    );
    let node = Node::parse(&page, 1).unwrap();
    assert_eq!(node.value(1).unwrap(), b"333");
    assert_eq!(node.value(3).unwrap(), b"");
    assert_eq!(node.lower_bound(b"f").unwrap(), (1, true));
    assert_eq!(node.lower_bound(b"g").unwrap(), (2, false));
    assert_eq!(node.upper_bound(b"f").unwrap(), 2);
    assert_eq!(node.upper_bound(b"").unwrap(), 0);
    node.validate().unwrap();
    assert_eq!(node.used_bytes(), HEADER_SIZE + 4 * 2 + 4 * 4 + 4 + 6);
}

#[test]
fn delete_fragments_and_defragment_reclaims() {
    let mut page = leaf();
    for (i, k) in [b"a", b"b", b"c", b"d"].iter().enumerate() {
        assert!(insert_leaf_entry(&mut page, 1, i, *k, &[7u8; 100]).unwrap());
    }
    // "b" is not at the start of the cell area ("d" is), so it becomes fragmentation.
    remove_cell(&mut page, 1, 1).unwrap();
    let node = Node::parse(&page, 1).unwrap();
    assert_eq!(node.fragmented, 105);
    node.validate().unwrap();
    // "d" was written last, so it sits at content_start: the area shrinks instead.
    remove_cell(&mut page, 1, 2).unwrap();
    let node = Node::parse(&page, 1).unwrap();
    assert_eq!(node.fragmented, 105);
    node.validate().unwrap();
    defragment(&mut page, 1).unwrap();
    let node = Node::parse(&page, 1).unwrap();
    assert_eq!(node.fragmented, 0);
    assert_eq!(node.content_start, USABLE - 2 * 105);
    node.validate().unwrap();
    assert_eq!(keys(&page), vec![b"a".to_vec(), b"c".to_vec()]);
    remove_cell(&mut page, 1, 0).unwrap();
    remove_cell(&mut page, 1, 0).unwrap();
    let node = Node::parse(&page, 1).unwrap();
    assert_eq!(
        (node.count(), node.content_start, node.fragmented),
        (0, USABLE, 0)
    );
}

#[test]
fn full_page_is_detected_and_fragmented_space_is_reused() {
    let mut page = leaf();
    let value = [1u8; 90];
    let mut n = 0usize;
    while insert_leaf_entry(&mut page, 1, n, &(n as u32).to_be_bytes(), &value).unwrap() {
        n += 1;
    }
    // 100-byte cells + 2-byte slots in 4076 bytes of space.
    assert_eq!(n, (USABLE - HEADER_SIZE) / 100);
    let node = Node::parse(&page, 1).unwrap();
    assert!(node.free_bytes() < 100);
    node.validate().unwrap();
    // Free two cells in the middle: the gap is too small, but defragmenting makes room.
    remove_cell(&mut page, 1, 5).unwrap();
    remove_cell(&mut page, 1, 5).unwrap();
    let node = Node::parse(&page, 1).unwrap();
    assert_eq!(node.fragmented, 2 * 98);
    assert!(insert_leaf_entry(&mut page, 1, 5, &[0, 0, 0, 5], &[2u8; 150]).unwrap());
    let node = Node::parse(&page, 1).unwrap();
    node.validate().unwrap();
    assert_eq!(node.value(5).unwrap(), &[2u8; 150]);
    assert!(!insert_leaf_entry(&mut page, 1, 0, b"", &[0u8; 200]).unwrap());
}

#[test]
fn interior_cells_and_child_removal() {
    let mut page = vec![0u8; USABLE];
    init(&mut page, 9, false).unwrap();
    set_rightmost(&mut page, 9, 40).unwrap();
    assert!(insert_interior_cell(&mut page, 9, 0, 10, b"k1").unwrap());
    assert!(insert_interior_cell(&mut page, 9, 1, 20, b"k2").unwrap());
    assert!(insert_interior_cell(&mut page, 9, 2, 30, b"k3").unwrap());
    let children = |page: &[u8]| {
        let node = Node::parse(page, 9).unwrap();
        (0..=node.count())
            .map(|i| node.child(i).unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(children(&page), vec![10, 20, 30, 40]);
    let node = Node::parse(&page, 9).unwrap();
    assert_eq!(node.upper_bound(b"k1").unwrap(), 1);
    assert_eq!(node.upper_bound(b"k0").unwrap(), 0);
    assert_eq!(node.upper_bound(b"z").unwrap(), 3);
    node.validate().unwrap();
    remove_child(&mut page, 9, 3).unwrap();
    assert_eq!(children(&page), vec![10, 20, 30]);
    remove_child(&mut page, 9, 0).unwrap();
    assert_eq!(children(&page), vec![20, 30]);
    assert_eq!(keys_of_interior(&page), vec![b"k2".to_vec()]);
    set_child(&mut page, 9, 0, 21).unwrap();
    remove_separator_and_right(&mut page, 9, 0).unwrap();
    assert_eq!(children(&page), vec![21]);
    assert_eq!(Node::parse(&page, 9).unwrap().count(), 0);
}

fn keys_of_interior(page: &[u8]) -> Vec<Vec<u8>> {
    let node = Node::parse(page, 9).unwrap();
    (0..node.count())
        .map(|i| node.key(i).unwrap().to_vec())
        .collect()
}

#[test]
fn truncated_separators() {
    assert_eq!(separator(b"abc", b"abd").unwrap(), b"abd");
    assert_eq!(separator(b"abc", b"abdzzz").unwrap(), b"abd");
    assert_eq!(separator(b"ab", b"abc").unwrap(), b"abc");
    assert_eq!(separator(b"", b"x").unwrap(), b"x");
    assert_eq!(separator(b"apple", b"banana").unwrap(), b"b");
    assert_eq!(separator(b"ab\xff", b"ac\x00\x00").unwrap(), b"ac");
    assert!(separator(b"b", b"a").is_none());
    assert!(separator(b"a", b"a").is_none());
}

#[test]
fn size_limits() {
    assert_eq!(max_entry_size(4092), 1019);
    assert_eq!(max_entry_size(65532), 16379);
    assert_eq!(entry_size(10, 3), 19);
    // Three maximal cells always fit: the split guarantee.
    let mut page = leaf();
    let big = vec![5u8; max_entry_size(USABLE) - ENTRY_OVERHEAD];
    for i in 0..3u8 {
        let mut key = big.clone();
        key[0] = i;
        assert!(insert_leaf_entry(&mut page, 1, i as usize, &key, b"").unwrap());
    }
}

#[test]
fn damaged_headers_and_slots_are_errors() {
    let mut page = leaf();
    insert_leaf_entry(&mut page, 1, 0, b"key", b"value").unwrap();
    let mut bad_kind = page.clone();
    bad_kind[0] = 99;
    assert!(Node::parse(&bad_kind, 1).is_err());
    let mut bad_count = page.clone();
    bad_count[2..4].copy_from_slice(&5000u16.to_le_bytes());
    assert!(Node::parse(&bad_count, 1).is_err());
    let mut bad_slot = page.clone();
    bad_slot[16..18].copy_from_slice(&(USABLE as u16 - 2).to_le_bytes());
    let node = Node::parse(&bad_slot, 1).unwrap();
    assert!(node.key(0).is_err());
    assert!(node.validate().is_err());
    assert!(
        insert_leaf_entry(&mut bad_slot, 1, 0, b"a", b"").is_err() || {
            // The insert itself may succeed without touching the bad cell; validation fails.
            Node::parse(&bad_slot, 1).unwrap().validate().is_err()
        }
    );
    let mut bad_len = page.clone();
    let offset = USABLE - 12;
    bad_len[offset..offset + 2].copy_from_slice(&60000u16.to_le_bytes());
    assert!(Node::parse(&bad_len, 1).unwrap().value(0).is_err());
}
