//! Transaction-layer tests: isolation, rollback, spilling, the free list, reopening and
//! checkpoints that must respect live readers.

use super::*;
use crate::storage::vfs::MemoryVfs;

fn options() -> StoreOptions {
    StoreOptions {
        cache_bytes: 256 * 4096,
        busy_timeout: Duration::from_millis(0),
        ..StoreOptions::default()
    }
}

fn write_value(txn: &mut WriteTxn, page_no: PageNo, value: u64) {
    let page = txn.page_mut(page_no).unwrap();
    page[0] = 9;
    page[16..24].copy_from_slice(&value.to_le_bytes());
}

fn read_value(reader: &impl PageRead, page_no: PageNo) -> u64 {
    let page = reader.page(page_no).unwrap();
    u64::from_le_bytes(page[16..24].try_into().unwrap())
}

#[test]
fn commits_are_visible_to_later_snapshots_only() {
    let store = Store::open_in_memory(options()).unwrap();
    let mut txn = store.begin_write().unwrap();
    let page_no = txn.allocate_page().unwrap();
    write_value(&mut txn, page_no, 1);
    txn.commit().unwrap();

    let before = store.begin_read();
    let mut txn = store.begin_write().unwrap();
    write_value(&mut txn, page_no, 2);
    assert_eq!(
        read_value(&txn, page_no),
        2,
        "a writer sees its own changes"
    );
    assert_eq!(
        read_value(&before, page_no),
        1,
        "uncommitted changes are invisible"
    );
    txn.commit().unwrap();
    assert_eq!(
        read_value(&before, page_no),
        1,
        "an older snapshot never changes"
    );
    assert_eq!(read_value(&store.begin_read(), page_no), 2);
}

#[test]
fn rollback_and_drop_discard_everything() {
    let store = Store::open_in_memory(options()).unwrap();
    let mut txn = store.begin_write().unwrap();
    let page_no = txn.allocate_page().unwrap();
    write_value(&mut txn, page_no, 5);
    txn.set_meta(3, 42).unwrap();
    txn.commit().unwrap();
    {
        let mut txn = store.begin_write().unwrap();
        write_value(&mut txn, page_no, 6);
        txn.set_meta(3, 43).unwrap();
        txn.allocate_page().unwrap();
    }
    let mut txn = store.begin_write().unwrap();
    write_value(&mut txn, page_no, 7);
    txn.rollback();
    let reader = store.begin_read();
    assert_eq!(read_value(&reader, page_no), 5);
    assert_eq!(reader.meta(3), 42);
    assert_eq!(reader.header().page_count, 2);
}

#[test]
fn second_writer_gets_busy() {
    let store = Store::open_in_memory(options()).unwrap();
    let _first = store.begin_write().unwrap();
    assert!(matches!(
        store.begin_write(),
        Err(StorageError::Busy { .. })
    ));
}

#[test]
fn freed_pages_are_reused() {
    let store = Store::open_in_memory(options()).unwrap();
    let mut txn = store.begin_write().unwrap();
    let pages: Vec<PageNo> = (0..3000).map(|_| txn.allocate_page().unwrap()).collect();
    txn.commit().unwrap();
    let mut txn = store.begin_write().unwrap();
    for &page_no in &pages {
        txn.free_page(page_no).unwrap();
    }
    assert_eq!(txn.header().free_count, 3000);
    txn.commit().unwrap();
    let mut txn = store.begin_write().unwrap();
    let mut again: Vec<PageNo> = (0..3000).map(|_| txn.allocate_page().unwrap()).collect();
    assert_eq!(
        txn.header().page_count,
        3001,
        "no new pages while free ones exist"
    );
    assert_eq!(txn.header().free_count, 0);
    again.sort_unstable();
    assert_eq!(again, pages);
    for &page_no in &again {
        assert!(
            txn.page(page_no).unwrap().iter().all(|&b| b == 0),
            "allocated pages are zeroed"
        );
    }
    txn.commit().unwrap();
}

#[test]
fn large_transactions_spill_and_still_commit_or_roll_back() {
    let store = Store::open_in_memory(options()).unwrap();
    let mut txn = store.begin_write().unwrap();
    let pages: Vec<PageNo> = (0..2000).map(|_| txn.allocate_page().unwrap()).collect();
    for &page_no in &pages {
        write_value(&mut txn, page_no, u64::from(page_no) * 3);
    }
    assert!(
        !txn.spilled.is_empty(),
        "a 2000-page transaction over a 128-page budget spills"
    );
    for &page_no in &pages {
        assert_eq!(read_value(&txn, page_no), u64::from(page_no) * 3);
    }
    txn.commit().unwrap();
    let reader = store.begin_read();
    for &page_no in &pages {
        assert_eq!(read_value(&reader, page_no), u64::from(page_no) * 3);
    }
    drop(reader);
    let mut txn = store.begin_write().unwrap();
    for &page_no in &pages {
        write_value(&mut txn, page_no, 0);
    }
    txn.rollback();
    let reader = store.begin_read();
    for &page_no in &pages {
        assert_eq!(read_value(&reader, page_no), u64::from(page_no) * 3);
    }
}

#[test]
fn data_survives_reopen_with_and_without_checkpoint() {
    let vfs = MemoryVfs::new();
    let path = Path::new("/db/reopen.basalt");
    let options = StoreOptions {
        autocheckpoint_frames: 0,
        ..options()
    };
    {
        let store = Store::open_with_vfs(&vfs, path, options).unwrap();
        let mut txn = store.begin_write().unwrap();
        let page_no = txn.allocate_page().unwrap();
        write_value(&mut txn, page_no, 11);
        txn.set_meta(0, 99).unwrap();
        txn.commit().unwrap();
        let mut txn = store.begin_write().unwrap();
        let page_no = txn.allocate_page().unwrap();
        write_value(&mut txn, page_no, 12);
        txn.commit().unwrap();
    }
    {
        let store = Store::open_with_vfs(&vfs, path, options).unwrap();
        assert_eq!(store.pager().recovery_report().transactions, 2);
        let reader = store.begin_read();
        assert_eq!(
            (
                read_value(&reader, 1),
                read_value(&reader, 2),
                reader.meta(0)
            ),
            (11, 12, 99)
        );
        drop(reader);
        let mut txn = store.begin_write().unwrap();
        write_value(&mut txn, 1, 13);
        txn.commit().unwrap();
        store.checkpoint().unwrap();
    }
    let store = Store::open_with_vfs(&vfs, path, options).unwrap();
    assert_eq!(
        store.pager().recovery_report().transactions,
        0,
        "the checkpoint emptied the log"
    );
    let reader = store.begin_read();
    assert_eq!((read_value(&reader, 1), read_value(&reader, 2)), (13, 12));
}

#[test]
fn a_second_open_of_a_locked_file_fails() {
    let vfs = MemoryVfs::new();
    let path = Path::new("/db/locked.basalt");
    let _first = Store::open_with_vfs(&vfs, path, options()).unwrap();
    assert!(matches!(
        Store::open_with_vfs(&vfs, path, options()),
        Err(StorageError::LockedByAnotherProcess { .. })
    ));
}

#[test]
fn checkpoint_never_overwrites_what_a_live_reader_needs() {
    let store = Store::open_in_memory(StoreOptions {
        autocheckpoint_frames: 0,
        ..options()
    })
    .unwrap();
    let mut txn = store.begin_write().unwrap();
    let page_no = txn.allocate_page().unwrap();
    write_value(&mut txn, page_no, 1);
    txn.commit().unwrap();
    store.checkpoint().unwrap();

    let old_reader = store.begin_read();
    for value in 2..5 {
        let mut txn = store.begin_write().unwrap();
        write_value(&mut txn, page_no, value);
        txn.commit().unwrap();
        let report = store.checkpoint().unwrap();
        assert!(!report.log_reset, "the old reader still needs the log");
        assert_eq!(read_value(&old_reader, page_no), 1);
    }
    let new_reader = store.begin_read();
    assert_eq!(read_value(&new_reader, page_no), 4);
    drop(old_reader);
    let report = store.checkpoint().unwrap();
    assert!(report.log_reset && report.pages_written > 0);
    assert_eq!(
        read_value(&new_reader, page_no),
        4,
        "a reader at the newest snapshot reads the main file"
    );
    assert_eq!(read_value(&store.begin_read(), page_no), 4);
}

#[test]
fn readers_on_many_threads_see_consistent_snapshots() {
    let store = Store::open_in_memory(options()).unwrap();
    let mut txn = store.begin_write().unwrap();
    let first = txn.allocate_page().unwrap();
    let second = txn.allocate_page().unwrap();
    write_value(&mut txn, first, 500);
    write_value(&mut txn, second, 500);
    txn.commit().unwrap();
    std::thread::scope(|scope| {
        for _ in 0..3 {
            let store = store.clone();
            scope.spawn(move || {
                for _ in 0..2000 {
                    let reader = store.begin_read();
                    assert_eq!(
                        read_value(&reader, first) + read_value(&reader, second),
                        1000
                    );
                }
            });
        }
        for step in 0..300u64 {
            let mut txn = store.begin_write().unwrap();
            let moved = step % 7;
            let a = read_value(&txn, first);
            let b = read_value(&txn, second);
            let (a, b) = if a >= b {
                (a - moved, b + moved)
            } else {
                (a + moved, b - moved)
            };
            write_value(&mut txn, first, a);
            write_value(&mut txn, second, b);
            txn.commit().unwrap();
            if step % 50 == 0 {
                store.checkpoint().unwrap();
            }
        }
    });
}

#[test]
fn savepoints_undo_exactly_what_came_after_them() {
    let store = Store::open_in_memory(options()).unwrap();
    let mut txn = store.begin_write().unwrap();
    let page_no = txn.allocate_page().unwrap();
    write_value(&mut txn, page_no, 1);
    let outer = txn.savepoint();
    write_value(&mut txn, page_no, 2);
    let extra = txn.allocate_page().unwrap();
    write_value(&mut txn, extra, 7);
    let inner = txn.savepoint();
    write_value(&mut txn, page_no, 3);
    txn.free_page(extra).unwrap();
    txn.rollback_to_savepoint(inner).unwrap();
    assert_eq!((read_value(&txn, page_no), read_value(&txn, extra)), (2, 7));
    txn.release_savepoint(inner).unwrap();
    // Spilling in between must not confuse the undo log.
    let many: Vec<PageNo> = (0..400).map(|_| txn.allocate_page().unwrap()).collect();
    for &p in &many {
        write_value(&mut txn, p, 9);
    }
    txn.rollback_to_savepoint(outer).unwrap();
    assert_eq!(read_value(&txn, page_no), 1);
    assert_eq!(
        txn.header().page_count,
        2,
        "pages allocated after the savepoint are gone"
    );
    write_value(&mut txn, page_no, 5);
    txn.commit().unwrap();
    let reader = store.begin_read();
    assert_eq!(read_value(&reader, page_no), 5);
    assert_eq!(reader.header().page_count, 2);
}

/// A checkpoint hands each copied page's cache entry to the main file's version. Keeping the
/// frame's entry beside it put one image in two slots, and the cache counts a shared image as
/// pinned: after a few checkpoints every slot was pinned, nothing could be evicted, and each
/// miss swept the whole cache (E.complex ran 15× slower once its data outgrew the cache).
#[test]
fn checkpointed_pages_stay_evictable() {
    let store = Store::open_in_memory(StoreOptions {
        autocheckpoint_frames: 0,
        ..options()
    })
    .unwrap();
    for round in 0..4u64 {
        let mut txn = store.begin_write().unwrap();
        for _ in 0..40 {
            let page_no = txn.allocate_page().unwrap();
            write_value(&mut txn, page_no, round);
        }
        txn.commit().unwrap();
        store.pager().checkpoint().unwrap();
    }
    assert!(store.pager().cached_pages() > 0);
    assert_eq!(
        store.pager().pinned_cached_pages(),
        0,
        "with no transaction open, nothing but the cache holds a cached page"
    );
}

/// Commits `count` transactions of one new page each, with values `first..`.
fn commit_pages(store: &Store, first: u64, count: u64) {
    for value in first..first + count {
        let mut txn = store.begin_write().unwrap();
        let page_no = txn.allocate_page().unwrap();
        write_value(&mut txn, page_no, value);
        txn.commit().unwrap();
    }
}

#[test]
fn a_background_checkpoint_runs_by_the_time_the_last_handle_is_dropped() {
    let vfs = MemoryVfs::new();
    let path = Path::new("/db/background.basalt");
    let options = StoreOptions {
        autocheckpoint_frames: 8,
        background_checkpoint: true,
        busy_timeout: Duration::from_secs(10),
        ..options()
    };
    {
        let store = Store::open_with_vfs(&vfs, path, options).unwrap();
        // Each commit writes two frames (the new page and the header page): past the
        // threshold after four, so checkpoints are asked for along the way and once more
        // near the end.
        commit_pages(&store, 100, 9);
    }
    // Dropping the store waited for the thread and its checkpoint: the file lock is free
    // (the open succeeds) and the log was emptied.
    let store = Store::open_with_vfs(&vfs, path, options).unwrap();
    assert_eq!(
        store.pager().recovery_report().transactions,
        0,
        "the checkpoint asked for by the last commits ran before the drop returned"
    );
    let reader = store.begin_read();
    for (page_no, value) in (1..=9).zip(100..) {
        assert_eq!(read_value(&reader, page_no), value);
    }
}

#[test]
fn without_the_background_thread_the_committer_checkpoints() {
    let vfs = MemoryVfs::new();
    let path = Path::new("/db/inline.basalt");
    let options = StoreOptions {
        autocheckpoint_frames: 8,
        background_checkpoint: false,
        ..options()
    };
    let store = Store::open_with_vfs(&vfs, path, options).unwrap();
    commit_pages(&store, 1, 4);
    assert!(
        store.pager().log_frames() == 0,
        "the fourth commit reached 8 frames and checkpointed inline"
    );
}

#[test]
fn a_commit_that_changes_no_header_field_leaves_page_zero_alone() {
    let vfs = MemoryVfs::new();
    let path = Path::new("/db/header.basalt");
    let options = StoreOptions {
        autocheckpoint_frames: 0,
        ..options()
    };
    let store = Store::open_with_vfs(&vfs, path, options).unwrap();
    // The first page a new database allocates is page 1.
    commit_pages(&store, 1, 1);
    let page_no = 1;
    let allocated = store.pager().log_frames();
    assert_eq!(
        allocated, 2,
        "the new page and the header, whose page count grew"
    );

    let reader = store.begin_read();
    let seq_before = reader.snapshot_seq();
    let counter_before = reader.header().commit_counter;
    let mut txn = store.begin_write().unwrap();
    write_value(&mut txn, page_no, 2);
    txn.commit().unwrap();
    assert_eq!(
        store.pager().log_frames(),
        allocated + 1,
        "only the changed page: the header did not change"
    );
    let after = store.begin_read();
    assert!(
        after.snapshot_seq() > seq_before,
        "the commit is told apart by its sequence"
    );
    assert_eq!(after.header().commit_counter, counter_before);
    assert_eq!(read_value(&after, page_no), 2);
    assert_eq!(
        read_value(&reader, page_no),
        1,
        "the older snapshot is unchanged"
    );
    drop((reader, after, store));

    // Recovery finds the header in the first commit's frame and the page in the second's.
    let store = Store::open_with_vfs(&vfs, path, options).unwrap();
    assert_eq!(store.pager().recovery_report().transactions, 2);
    assert_eq!(read_value(&store.begin_read(), page_no), 2);
}
