package agreement

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

func TestKappa(t *testing.T) {
	for _, tc := range []struct {
		name      string
		n         [2][2]int
		raw, want float64
	}{
		// Cohen (1960)-style textbook table: po = 0.7, pe = 0.5.
		{"textbook", [2][2]int{{15, 10}, {5, 20}}, 0.7, 0.4},
		{"perfect", [2][2]int{{10, 0}, {0, 10}}, 1, 1},
		{"one answer throughout", [2][2]int{{0, 0}, {0, 10}}, 1, 0},
		{"chance", [2][2]int{{25, 25}, {25, 25}}, 0.5, 0},
		{"empty", [2][2]int{}, 0, 0},
	} {
		c := Counts{N: tc.n}
		if math.Abs(c.Raw()-tc.raw) > 1e-12 || math.Abs(c.Kappa()-tc.want) > 1e-12 {
			t.Errorf("%s: raw %v kappa %v, want %v %v", tc.name, c.Raw(), c.Kappa(), tc.raw, tc.want)
		}
	}
}

func item(model, task, leaf, kind string, result bool, a, b string) Item {
	return Item{Model: model, Task: task, Tree: "results", Leaf: leaf, Kind: kind, Result: result, ResultKnown: true,
		A: Verdict{Status: a, Source: "code", Explanation: "ours\tsays " + a}, B: Verdict{Status: b, Source: "recorded", Explanation: "theirs\nsays " + b}}
}

func TestCompute(t *testing.T) {
	items := []Item{
		item("m1", "t1", "csv", "csv_exists", true, Pass, Pass),
		item("m1", "t1", "band", "band", true, Pass, Fail),
		item("m1", "t2", "csv", "csv_exists", false, Fail, Fail),
		item("m1", "t2", "band", "band", false, Fail, Pass),
		item("m2", "t1", "csv", "csv_exists", true, Pass, Pass),
		item("m2", "t1", "band", "band", true, Pass, Pass),
		item("m2", "t1", "col", "column_exists", true, Pass, "invalid"),
	}
	r := Compute(items, Options{Seed: 1, Resamples: 200})
	all := r.Slice("all", false)
	if all == nil || all.Total() != 6 || all.N != [2][2]int{{1, 1}, {1, 3}} || all.Unpaired != 1 || all.Tasks != 3 {
		t.Fatalf("all = %+v", all)
	}
	res := r.Slice("all", true)
	if res == nil || res.Total() != 4 || res.N[1][0] != 1 || res.Tasks != 2 {
		t.Fatalf("with result = %+v", res)
	}
	if band := r.Slice("kind=band", false); band == nil || band.Total() != 3 || band.Raw() != 1.0/3 {
		t.Fatalf("band = %+v", band)
	}
	if src := r.Slice("source=code/recorded", false); src == nil || src.Total() != 6 {
		t.Fatalf("source = %+v", src)
	}
	if iv := all.Kappa; !(iv.Lo <= iv.Hi) || iv.Kappa != all.Counts.Kappa() {
		t.Errorf("interval %+v", iv)
	}
	if len(r.Disagreements) != 2 || r.Disagreements[0].Task != "t1" || r.Disagreements[1].Task != "t2" {
		t.Fatalf("disagreements = %+v", r.Disagreements)
	}
	var b bytes.Buffer
	if err := r.WriteDisagreementsTSV(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || lines[1] != "m1\tt1\tresults\tband\tband\tyes\tpass\tcode\tfail\trecorded\tours says pass\ttheirs says fail" {
		t.Errorf("disagreements TSV:\n%s", b.String())
	}
	// The interval depends on the seed only: the same items give the same
	// interval.
	if again := Compute(items, Options{Seed: 1, Resamples: 200}).Slice("all", false).Kappa; again != all.Kappa {
		t.Errorf("interval moved: %+v then %+v", all.Kappa, again)
	}
}

func TestBootstrapCoversKappa(t *testing.T) {
	// 200 answers, 4 leaves each, agreement 90% with a 60% pass rate.
	var items []Item
	for i := range 200 {
		for j := range 4 {
			a := Pass
			if (i+j)%5 == 0 {
				a = Fail
			}
			b := a
			if (i*7+j)%10 == 0 {
				b = map[string]string{Pass: Fail, Fail: Pass}[a]
			}
			items = append(items, item("m", string(rune('A'+i%26))+string(rune('a'+i/26)), string(rune('w'+j)), "band", true, a, b))
		}
	}
	r := Compute(items, Options{Seed: 7})
	s := r.Slice("all", false)
	if s.Kappa.Lo >= s.Kappa.Kappa || s.Kappa.Hi <= s.Kappa.Kappa || s.Kappa.Hi-s.Kappa.Lo > 0.3 {
		t.Errorf("kappa %.3f, interval [%.3f, %.3f]", s.Kappa.Kappa, s.Kappa.Lo, s.Kappa.Hi)
	}
}
