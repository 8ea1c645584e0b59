package codecheck

import "testing"

func FuzzParseBands(f *testing.F) {
	for _, s := range []string{"Clinically Plausible (0-20)", "between 5 and 90", "(>0.01 and <0.1)", "Home: 60-95%, Facility: 30-70%", "(-80 to -10)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, b := range parseBands(s) {
			if b.Lo > b.Hi {
				t.Fatalf("band %v from %q", b, s)
			}
		}
	})
}
