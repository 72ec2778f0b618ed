//! Unit tests of the jsonpath parser, printer and evaluator.

use super::*;
