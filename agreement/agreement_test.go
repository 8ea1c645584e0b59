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

func TestWilson(t *testing.T) {
	for _, tc := range []struct {
		k, n      int
		p, lo, hi float64
		nan       bool
	}{
		// Published values (Newcombe 1998, table I: 81/263 -> 0.2553-0.3662;
		// 0/20 -> 0-0.1611; 1/29 -> 0.0061-0.1718).
		{81, 263, 81.0 / 263, 0.2553, 0.3662, false},
		{0, 20, 0, 0, 0.1611, false},
		{1, 29, 1.0 / 29, 0.0061, 0.1718, false},
		{0, 0, 0, 0, 0, true},
	} {
		r := Wilson(tc.k, tc.n)
		if tc.nan {
			if r.P == r.P || r.Lo == r.Lo {
				t.Errorf("%d/%d: %+v, want NaN", tc.k, tc.n, r)
			}
			continue
		}
		if math.Abs(r.P-tc.p) > 1e-9 || math.Abs(r.Lo-tc.lo) > 5e-5 || math.Abs(r.Hi-tc.hi) > 5e-5 {
			t.Errorf("%d/%d: %+v, want %.4f [%.4f, %.4f]", tc.k, tc.n, r, tc.p, tc.lo, tc.hi)
		}
	}
}

func labelled(leaf, kind, source, tree string, result bool, judge, label string, weight float64) Labelled {
	return Labelled{Item: Item{Model: "m", Task: "t", Tree: tree, Leaf: leaf, Kind: kind, Result: result, ResultKnown: true,
		A: Verdict{Status: judge, Source: source}, B: Verdict{Status: label, Source: "label"}}, Weight: weight}
}

func TestScore(t *testing.T) {
	items := []Labelled{
		labelled("a", "band", "code", "results", true, Pass, LabelPass, 1),
		labelled("b", "band", "code", "results", true, Pass, LabelFail, 1), // false pass
		labelled("c", "band", "code", "results", true, Fail, LabelFail, 9), // dense stratum
		labelled("d", "band", "code", "results", true, Fail, LabelArguable, 1),
		labelled("e", "column_exists", "llm", "results", true, Fail, LabelPass, 1), // false fail
		labelled("f", "column_exists", "llm", "results", true, "invalid", LabelPass, 1),
		labelled("g", "sql", "code", "sql", false, Fail, LabelFail, 1),
		labelled("h", "band", "replay", "results", false, Pass, LabelPass, 1),
	}
	r := Score(items)
	all := r.Slice("all", AnswersAll)
	if all == nil || all.Labelled != 8 || all.Arguable != 1 || all.Undecided != 1 || all.Decided() != 6 ||
		all.TruePass != 2 || all.TrueFail != 2 || all.FalsePass != 1 || all.FalseFail != 1 {
		t.Fatalf("all = %+v", all)
	}
	if e := all.Errors(); e.K != 2 || e.N != 6 {
		t.Errorf("errors %+v", e)
	}
	if p := all.FailPrecision(); p.K != 2 || p.N != 3 {
		t.Errorf("fail precision %+v", p)
	}
	if rc := all.FailRecall(); rc.K != 2 || rc.N != 3 {
		t.Errorf("fail recall %+v", rc)
	}
	// Weighted: 2 wrong of weight 1 each over a total weight of 14.
	if w := all.Weighted; math.Abs(w.P-2.0/14) > 1e-12 || !(w.Lo < w.P && w.P < w.Hi) {
		t.Errorf("weighted %+v", w)
	}
	code := r.Slice("source=code", AnswersAll)
	if code == nil || code.Decided() != 3 || code.FalsePass != 1 || code.Arguable != 1 {
		t.Errorf("source=code = %+v", code)
	}
	// Code decisions of SQL leaves are answers without SQL, sliced apart.
	if ns := r.Slice("source="+SourceNoSQL, AnswersAll); ns == nil || ns.TrueFail != 1 {
		t.Errorf("no-SQL = %+v", ns)
	}
	if ks := r.Slice("kind=band source=code", AnswersResult); ks == nil || ks.Decided() != 3 {
		t.Errorf("kind x source = %+v", ks)
	}
	if nr := r.Slice("all", AnswersNoResult); nr == nil || nr.Decided() != 2 {
		t.Errorf("without result = %+v", nr)
	}
	if len(r.Wrong) != 2 || r.Wrong[0].Leaf != "b" || r.Wrong[1].Leaf != "e" {
		t.Errorf("wrong = %+v", r.Wrong)
	}
	r.Judge = "j"
	var b bytes.Buffer
	if err := WriteWrongTSV(&b, []*LabelReport{r}); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(b.String()), "\n"); len(lines) != 3 || !strings.HasPrefix(lines[1], "j\tm\tt\tresults\tb\tband\tyes\t\tpass\tcode\tfail") {
		t.Errorf("wrong TSV:\n%s", b.String())
	}
}

func TestComputeKeepsReplayApart(t *testing.T) {
	rep := item("m", "t1", "s1", "sql", true, Pass, Pass)
	rep.Tree, rep.A.Source = "sql", "replay"
	nosql := item("m", "t2", "s1", "sql", false, Fail, Fail)
	nosql.Tree = "sql"
	items := []Item{rep, nosql, item("m", "t1", "band", "band", true, Pass, Fail)}
	r := Compute(items, Options{Seed: 1, Resamples: 50})
	if all := r.Slice("all", false); all.Total() != 2 {
		t.Errorf("all: %d pairs, want 2 (the replayed pair is not counted)", all.Total())
	}
	if s := r.Slice("source=replay/recorded", false); s == nil || s.Total() != 1 {
		t.Errorf("replay slice = %+v", s)
	}
	if s := r.Slice("source=code/recorded", false); s == nil || s.Total() != 1 {
		t.Errorf("source=code/recorded = %+v: want only the results leaf", s)
	}
	if s := r.Slice("source=code:no-sql/recorded", false); s == nil || s.Total() != 1 {
		t.Errorf("no-SQL slice = %+v", s)
	}
	if s := r.Slice("kind=band source=code/recorded", true); s == nil || s.Total() != 1 {
		t.Errorf("kind x source = %+v", s)
	}
}
