//! The correctness gate: a driver is timed only if its answer equals the reference driver's.
//!
//! The orchestrator runs the reference driver (SQLite, tuned) first and hands its warm-up
//! answers to every other driver's worker. Each worker computes its own answer in the
//! warm-up iteration and calls [`admit`] before the first timed iteration; a driver that
//! disagrees, or that has nothing to be compared with, is reported and never timed. After the
//! run, [`drift`] compares the answers of the timed iterations too, catching a driver that
//! answered right once and wrong afterwards.

use std::collections::BTreeMap;

use crate::digest::Answer;
use crate::model::{MetricReport, Status};

/// What the reference says about a metric, as the worker received it.
#[derive(Clone, Copy, Debug)]
pub enum Reference<'a> {
    /// This worker is the reference (or runs standalone): nothing to compare with.
    Itself,
    /// The reference's answers by metric name.
    Answers(&'a BTreeMap<String, Answer>),
}

/// Whether a metric whose warm-up produced `actual` may be timed; the refusal says why.
pub fn admit(reference: Reference<'_>, metric: &str, actual: Answer) -> Result<(), Status> {
    match reference {
        Reference::Itself => Ok(()),
        Reference::Answers(answers) => match answers.get(metric) {
            None => Err(Status::NoReference),
            Some(expected) if *expected == actual => Ok(()),
            Some(expected) => Err(Status::Mismatch {
                expected: *expected,
                actual,
            }),
        },
    }
}

/// The first timed iteration whose answer differs between `subject` and `reference`
/// (comparing the iterations both ran), as a message for the report.
pub fn drift(subject: &MetricReport, reference: &MetricReport) -> Option<String> {
    subject
        .sample_answers
        .iter()
        .zip(&reference.sample_answers)
        .position(|(a, b)| a != b)
        .map(|index| {
            format!(
                "timed iteration {} answered {} but the reference answered {}",
                index + 1,
                subject.sample_answers[index],
                reference.sample_answers[index]
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(rows: u64, hash: u64) -> Answer {
        Answer { rows, hash }
    }

    #[test]
    fn matching_answer_is_admitted() {
        let answers = BTreeMap::from([("lookup".to_string(), answer(10, 7))]);
        assert_eq!(
            admit(Reference::Answers(&answers), "lookup", answer(10, 7)),
            Ok(())
        );
    }

    #[test]
    fn wrong_answer_is_refused() {
        let answers = BTreeMap::from([("lookup".to_string(), answer(10, 7))]);
        // Same row count, different values: still refused.
        assert_eq!(
            admit(Reference::Answers(&answers), "lookup", answer(10, 8)),
            Err(Status::Mismatch {
                expected: answer(10, 7),
                actual: answer(10, 8)
            })
        );
        assert!(matches!(
            admit(Reference::Answers(&answers), "lookup", answer(9, 7)),
            Err(Status::Mismatch { .. })
        ));
    }

    #[test]
    fn metric_without_reference_answer_is_refused() {
        let answers = BTreeMap::new();
        assert_eq!(
            admit(Reference::Answers(&answers), "bfs", answer(1, 1)),
            Err(Status::NoReference)
        );
    }

    #[test]
    fn the_reference_admits_itself() {
        assert_eq!(admit(Reference::Itself, "x", answer(0, 0)), Ok(()));
    }

    #[test]
    fn drift_finds_the_first_differing_iteration() {
        let report = |answers: Vec<Answer>| MetricReport {
            name: "m".into(),
            unit: "op".into(),
            status: Status::Ok,
            answer: None,
            sample_answers: answers,
            timings: Vec::new(),
            notes: BTreeMap::new(),
            rankings: Vec::new(),
        };
        let reference = report(vec![answer(1, 1), answer(1, 2), answer(1, 3)]);
        assert_eq!(
            drift(&report(vec![answer(1, 1), answer(1, 2)]), &reference),
            None
        );
        let message = drift(&report(vec![answer(1, 1), answer(1, 9)]), &reference);
        assert!(message.is_some_and(|m| m.starts_with("timed iteration 2")));
    }
}
