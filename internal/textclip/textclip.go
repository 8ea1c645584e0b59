package textclip

import "unicode/utf8"

// Runes returns the first n characters of s, with "…" when it cut. It
// reads no further than the cut: the rest of s, however large, is neither
// scanned nor copied (converting s to runes would take four times its size).
func Runes(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos] + "…"
		}
		i++
	}
	return s
}

// JSON returns the longest prefix of s whose JSON string encoding (as
// encoding/json writes it, HTML characters escaped) takes at most n bytes
// besides its quotes, with "…" when it cut (the mark counts in n). A
// record of untrusted text (a model's query, an engine's message) is
// bounded this way in the file that holds it, whatever its characters: a
// control character or "<" takes six bytes there. It reads no further than
// the cut.
func JSON(s string, n int) string {
	const mark = "…"
	size, cut := 0, -1
	for pos, r := range s {
		w := jsonWidth(r, s[pos:])
		if cut < 0 && size+w > n-len(mark) {
			cut = pos // the last place the mark still fits
		}
		if size += w; size > n {
			return s[:cut] + mark
		}
	}
	return s
}

// jsonWidth is the bytes encoding/json writes for the rune r, which starts
// rest.
func jsonWidth(r rune, rest string) int {
	switch {
	case r == '"' || r == '\\' || r == '\n' || r == '\r' || r == '\t':
		return 2
	case r < 0x20 || r == '<' || r == '>' || r == '&' || r == '\u2028' || r == '\u2029':
		return 6
	case r == utf8.RuneError:
		if _, size := utf8.DecodeRuneInString(rest); size == 1 {
			return 6 // invalid UTF-8 is written \ufffd
		}
	}
	return utf8.RuneLen(r)
}
