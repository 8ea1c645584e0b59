package textclip

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
