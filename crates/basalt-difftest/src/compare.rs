//! Comparing result rows: exactly in order when the query's ORDER BY determines the order,
//! as multisets otherwise; reals with a relative tolerance, everything else exactly
//! (an INTEGER never equals a REAL: the generator keeps every expression's type the same
//! in both dialects, so a type difference is a finding).

use std::cmp::Ordering;

use basalt_slt::engine::Cell;

/// Relative tolerance for comparing reals (summation order differs between engines).
const TOLERANCE: f64 = 1e-9;

/// Whether two reals are equal up to [`TOLERANCE`].
pub fn reals_match(left: f64, right: f64) -> bool {
    if left == right {
        return true;
    }
    let scale = left.abs().max(right.abs()).max(1.0);
    (left - right).abs() <= TOLERANCE * scale
}

/// Whether two cells are equal (reals up to the tolerance).
pub fn cells_match(left: &Cell, right: &Cell) -> bool {
    match (left, right) {
        (Cell::Real(left), Cell::Real(right)) => reals_match(*left, *right),
        _ => left == right,
    }
}

fn rank(cell: &Cell) -> u8 {
    match cell {
        Cell::Null => 0,
        Cell::Integer(_) => 1,
        Cell::Real(_) => 2,
        Cell::Text(_) => 3,
        Cell::Blob(_) => 4,
    }
}

/// A total order on cells, used to put multisets in a canonical order.
pub fn compare_cells(left: &Cell, right: &Cell) -> Ordering {
    match (left, right) {
        (Cell::Integer(left), Cell::Integer(right)) => left.cmp(right),
        // -0.0 and 0.0 are equal SQL values, and the engines differ in which they produce
        // (SQLite gives 0.0 for `-(0.0 * 1.75)`, Basalt -0.0): they must sort as equals.
        (Cell::Real(left), Cell::Real(right)) => left
            .partial_cmp(right)
            .unwrap_or_else(|| left.total_cmp(right)),
        (Cell::Text(left), Cell::Text(right)) => left.cmp(right),
        (Cell::Blob(left), Cell::Blob(right)) => left.cmp(right),
        _ => rank(left).cmp(&rank(right)),
    }
}

/// A total order on rows (cell by cell).
pub fn compare_rows(left: &[Cell], right: &[Cell]) -> Ordering {
    for (left, right) in left.iter().zip(right) {
        let order = compare_cells(left, right);
        if order != Ordering::Equal {
            return order;
        }
    }
    left.len().cmp(&right.len())
}

/// The rows in canonical order.
pub fn canonical(rows: &[Vec<Cell>]) -> Vec<Vec<Cell>> {
    let mut sorted = rows.to_vec();
    sorted.sort_by(|left, right| compare_rows(left, right));
    sorted
}

/// The rows in canonical order without duplicates (reals deduplicated up to tolerance).
pub fn canonical_set(rows: &[Vec<Cell>]) -> Vec<Vec<Cell>> {
    let mut sorted = canonical(rows);
    sorted.dedup_by(|later, earlier| rows_match(later, earlier));
    sorted
}

fn rows_match(left: &[Cell], right: &[Cell]) -> bool {
    left.len() == right.len()
        && left
            .iter()
            .zip(right)
            .all(|(left, right)| cells_match(left, right))
}

fn sequences_match(left: &[Vec<Cell>], right: &[Vec<Cell>]) -> bool {
    left.len() == right.len()
        && left
            .iter()
            .zip(right)
            .all(|(left, right)| rows_match(left, right))
}

/// Whether two results agree: in order if `ordered`, else as multisets.
pub fn results_match(left: &[Vec<Cell>], right: &[Vec<Cell>], ordered: bool) -> bool {
    if ordered {
        sequences_match(left, right)
    } else {
        sequences_match(&canonical(left), &canonical(right))
    }
}

/// Whether two results agree as sets (duplicates ignored).
pub fn sets_match(left: &[Vec<Cell>], right: &[Vec<Cell>]) -> bool {
    sequences_match(&canonical_set(left), &canonical_set(right))
}

/// Rows rendered for a report, one per line, at most `limit` of them.
pub fn describe_rows(rows: &[Vec<Cell>], limit: usize) -> String {
    let mut text: Vec<String> = rows
        .iter()
        .take(limit)
        .map(|row| {
            let cells: Vec<String> = row.iter().map(describe_cell).collect();
            format!("  ({})", cells.join(", "))
        })
        .collect();
    if rows.len() > limit {
        text.push(format!("  ... {} rows in all", rows.len()));
    }
    if rows.is_empty() {
        text.push("  (no rows)".to_owned());
    }
    text.join("\n")
}

/// One cell for a report: NULL, numbers as such, reals with a decimal point, text quoted.
pub fn describe_cell(cell: &Cell) -> String {
    match cell {
        Cell::Null => "NULL".to_owned(),
        Cell::Integer(integer) => integer.to_string(),
        Cell::Real(real) => format!("{real:?}"),
        Cell::Text(text) => format!("'{text}'"),
        Cell::Blob(bytes) => format!(
            "x'{}'",
            bytes
                .iter()
                .map(|byte| format!("{byte:02x}"))
                .collect::<String>()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multisets_ignore_order_but_not_multiplicity() {
        let one = vec![Cell::Integer(1)];
        let two = vec![Cell::Integer(2)];
        assert!(results_match(
            &[one.clone(), two.clone()],
            &[two.clone(), one.clone()],
            false
        ));
        assert!(!results_match(
            &[one.clone(), two.clone()],
            &[two.clone(), one.clone()],
            true
        ));
        assert!(!results_match(
            &[one.clone(), one.clone()],
            std::slice::from_ref(&one),
            false
        ));
        assert!(sets_match(&[one.clone(), one.clone()], &[one]));
    }

    #[test]
    fn negative_zero_equals_zero_in_multisets() {
        let row = |sign: f64, value: f64| vec![Cell::Real(sign * 0.0), Cell::Real(value)];
        let basalt = [row(-1.0, 1.75), row(1.0, -1.25)];
        let sqlite = [row(1.0, -1.25), row(1.0, 1.75)];
        assert!(results_match(&basalt, &sqlite, false));
    }

    #[test]
    fn reals_compare_with_tolerance_and_types_strictly() {
        assert!(cells_match(&Cell::Real(0.1 + 0.2), &Cell::Real(0.3)));
        assert!(!cells_match(&Cell::Real(1.0), &Cell::Real(1.001)));
        assert!(!cells_match(&Cell::Real(1.0), &Cell::Integer(1)));
        assert!(!cells_match(&Cell::Null, &Cell::Integer(0)));
    }
}
