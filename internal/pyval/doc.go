// Package pyval reproduces the few pieces of Python value semantics that the
// EHRSQL 2024 scorer depends on, byte for byte:
//
//   - [ParseFloat] and [ParseFloatBytes]: Python's float() on str and bytes
//     (surrounding whitespace, underscores between digits, exponents,
//     inf/infinity/nan in any case with a sign, Unicode decimal digits; no
//     hexadecimal, unlike strconv.ParseFloat).
//   - [IsSpace] and [Strip]: str.isspace() and str.strip() with no argument.
//   - [LiteralEval]: ast.literal_eval for the literals that answer files hold
//     (lists, tuples, strings, bytes, numbers, None, True, False).
//   - [Repr]: repr() of the values LiteralEval returns, and of bytes.
//
// Float printing and rounding live in internal/pyfmt; this package covers
// parsing and the other reprs. The Unicode tables are Go's, which may be a
// version ahead of the Python that ran the official scorer (Python 3.11 uses
// Unicode 14); only characters added since then can differ.
package pyval
