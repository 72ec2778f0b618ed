//! The integrity check of the free list.
//!
//! [`check_free_list`] walks the chain of free-list trunks from the header (see
//! docs/file-format.md, "Free list") and returns every page it lists, trunks included, with
//! a description of each problem: a trunk of the wrong kind, an entry count above a trunk's
//! capacity, a page number outside the file, a page listed twice, a chain that loops, and a
//! total that disagrees with the header's free count. It never follows a bad link twice, so
//! a damaged chain cannot make it loop. `PRAGMA integrity_check` (`crate::exec::integrity`)
//! uses the pages to find pages that are both free and in use, or neither.

use std::collections::HashSet;

use super::TRUNK_HEADER;
use crate::storage::format::Header;
use crate::storage::page::{PageNo, PageRead, kind};

/// Pages the free list holds (trunks included) and the problems found on the way.
#[derive(Debug, Default)]
pub struct FreeListReport {
    pub pages: HashSet<PageNo>,
    pub problems: Vec<String>,
}

fn read_u32(page: &[u8], at: usize) -> Option<u32> {
    let bytes = page.get(at..at + 4)?;
    Some(u32::from_le_bytes(bytes.try_into().ok()?))
}

/// Walks the free list of the snapshot `store` whose header is `header`.
pub fn check_free_list<S: PageRead + ?Sized>(store: &S, header: &Header) -> FreeListReport {
    let mut report = FreeListReport::default();
    let capacity = store.usable_size().saturating_sub(TRUNK_HEADER) / 4;
    let in_file = |page_no: PageNo| page_no != 0 && page_no < header.page_count;
    let mut trunk_no = header.freelist_head;
    while trunk_no != 0 {
        if !in_file(trunk_no) {
            report.problems.push(format!(
                "free list: trunk page {trunk_no} is outside the file ({} pages)",
                header.page_count
            ));
            break;
        }
        if !report.pages.insert(trunk_no) {
            report
                .problems
                .push(format!("free list: page {trunk_no} is listed twice"));
            break;
        }
        let trunk = match store.page(trunk_no) {
            Ok(trunk) => trunk,
            Err(error) => {
                report
                    .problems
                    .push(format!("free list: trunk page {trunk_no}: {error}"));
                break;
            }
        };
        if trunk.first() != Some(&kind::FREELIST_TRUNK) {
            report.problems.push(format!(
                "free list: page {trunk_no} is a trunk but has page kind {:?}",
                trunk.first()
            ));
            break;
        }
        let (Some(next), Some(count)) = (read_u32(&trunk, 4), read_u32(&trunk, 8)) else {
            report
                .problems
                .push(format!("free list: trunk page {trunk_no} is truncated"));
            break;
        };
        let count = count as usize;
        if count > capacity {
            report.problems.push(format!(
                "free list: trunk page {trunk_no} claims {count} entries, at most {capacity} fit"
            ));
        }
        for entry in 0..count.min(capacity) {
            let Some(page_no) = read_u32(&trunk, TRUNK_HEADER + entry * 4) else {
                break;
            };
            if !in_file(page_no) {
                report.problems.push(format!(
                    "free list: trunk page {trunk_no} lists page {page_no}, outside the file"
                ));
            } else if !report.pages.insert(page_no) {
                report
                    .problems
                    .push(format!("free list: page {page_no} is listed twice"));
            }
        }
        trunk_no = next;
    }
    let listed = report.pages.len();
    if u32::try_from(listed).ok() != Some(header.free_count) {
        report.problems.push(format!(
            "free list: {listed} pages listed, the header counts {}",
            header.free_count
        ));
    }
    report
}
