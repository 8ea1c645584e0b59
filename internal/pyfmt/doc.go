// Package pyfmt formats numbers exactly as Python's str() and repr() do.
//
// Result CSVs in the ClinSQL release were written by pandas, and EHRSQL 2024
// compares answers as Python strings, so every number the engine writes or
// compares goes through here: the shortest digits that round-trip, fixed
// notation for decimal exponents in [-4, 16) with ".0" on integral values,
// scientific notation with a sign and two exponent digits otherwise.
package pyfmt
