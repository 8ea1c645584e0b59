// Package executortest holds what the engines' tests share: comparing the
// values an engine returns with the values a test expects, by meaning
// (numbers by value, times by instant and zone, nested arrays and structs
// element by element) rather than by Go representation.
package executortest
