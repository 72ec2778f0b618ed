//! The registry entries of the array functions and operators; their definitions and NULL
//! rules are in [`crate::types::array::functions`].

use super::ScalarFunction;
use crate::types::array::functions::*;

pub(super) static FUNCTIONS: &[ScalarFunction] = &[
    function!("$array", constructor_type, constructor, strict: false, volatile: false),
    function!("$subscript", subscript_type, subscript),
    function!("$slice", first_array_type, slice),
    function!("$quantified", boolean_type, quantified, strict: false, volatile: false),
    function!("array_length", integer_type, array_length),
    function!("cardinality", integer_type, cardinality),
    function!("array_ndims", integer_type, array_ndims),
    function!("array_dims", text_type, array_dims),
    function!("array_lower", integer_type, array_lower),
    function!("array_upper", integer_type, array_upper),
    function!("array_position", integer_type, array_position, strict: false, volatile: false),
    function!("array_positions", integers_type, array_positions, strict: false, volatile: false),
    function!("array_append", first_array_type, array_append, strict: false, volatile: false),
    function!("array_prepend", second_array_type, array_prepend, strict: false, volatile: false),
    function!("array_cat", first_array_type, array_cat, strict: false, volatile: false),
    function!("array_remove", first_array_type, array_remove, strict: false, volatile: false),
    function!("array_replace", first_array_type, array_replace, strict: false, volatile: false),
    function!("array_to_string", text_type, array_to_string, strict: false, volatile: false),
    function!("string_to_array", texts_type, string_to_array, strict: false, volatile: false),
    function!("arraycontains", boolean_type, contains),
    function!("arraycontained", boolean_type, contained),
    function!("arrayoverlap", boolean_type, overlap),
];
