// Package textclip cuts text for display without reading past the cut: the
// text may be a model's output or a cell of a result file, of any size, and
// only its first characters are shown.
package textclip
