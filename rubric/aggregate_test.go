package rubric

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

// aggCase is one file of testdata/aggregate: a tree and leaf decisions.
type aggCase struct {
	Note      string                     `json:"note"`
	Tree      json.RawMessage            `json:"tree"`
	Decisions map[string]json.RawMessage `json:"decisions"`
}

// decode reads decisions written as 1/0 (pass/fail with that score), a
// status name, or {"status": ..., "score": ...}.
func (c aggCase) decode(t *testing.T) (*Tree, Decisions) {
	t.Helper()
	tr, err := Parse(c.Tree, "tree", JSON)
	if err != nil {
		t.Fatal(err)
	}
	d := Decisions{}
	for id, raw := range c.Decisions {
		var num float64
		var name string
		var obj struct {
			Status Status  `json:"status"`
			Score  float64 `json:"score"`
		}
		switch {
		case json.Unmarshal(raw, &num) == nil:
			st := Fail
			if num >= 1 {
				st = Pass
			}
			d[id] = Verdict{Status: st, Score: num}
		case json.Unmarshal(raw, &name) == nil:
			var st Status
			if err := st.UnmarshalText([]byte(name)); err != nil {
				t.Fatal(err)
			}
			d[id] = Verdict{Status: st}
		case json.Unmarshal(raw, &obj) == nil:
			d[id] = Verdict{Status: obj.Status, Score: obj.Score}
		default:
			t.Fatalf("decision %s: %s", id, raw)
		}
	}
	return tr, d
}

func TestAggregateGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/aggregate/*.json")
	if len(files) == 0 {
		t.Fatal("no cases")
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".json"), func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var c aggCase
			if err := json.Unmarshal(raw, &c); err != nil {
				t.Fatal(err)
			}
			tr, d := c.decode(t)
			var got bytes.Buffer
			fmt.Fprintf(&got, "# %s\n", c.Note)
			for _, m := range []Mode{Reference, Strict} {
				fmt.Fprintf(&got, "\n%s:\n", m)
				Fprint(&got, Evaluate(tr.Root, d, m))
			}
			golden := strings.TrimSuffix(f, ".json") + ".golden"
			if *update {
				if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				os.WriteFile(strings.TrimSuffix(f, ".json")+".got-golden", got.Bytes(), 0o644)
				t.Errorf("output differs from %s:\n%s", golden, got.String())
			}
		})
	}
}

// TestWorkedExample pins the figures of clinsql.md section 3 to the last
// digit, independently of the golden files.
func TestWorkedExample(t *testing.T) {
	for _, tc := range []struct {
		file string
		want float64
	}{
		{"worked_example.json", 0.7333333333333333},
		{"results_tree.json", 0.6666666666666666},
	} {
		raw, _ := os.ReadFile(filepath.Join("testdata/aggregate", tc.file))
		var c aggCase
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		tr, d := c.decode(t)
		for _, m := range []Mode{Reference, Strict} {
			if got := Evaluate(tr.Root, d, m).Value; got != tc.want {
				t.Errorf("%s %s = %v, want %v", tc.file, m, got, tc.want)
			}
		}
	}
}

func TestInvalidBounds(t *testing.T) {
	raw, _ := os.ReadFile("testdata/aggregate/invalid.json")
	var c aggCase
	json.Unmarshal(raw, &c)
	tr, d := c.decode(t)
	s := Evaluate(tr.Root, d, Strict)
	// seq: a1 pass, a2 invalid, a3 fail -> 1/2 (a2 as fail) or 2/3 (a2 as pass).
	// par: critical leaf missing -> 0 or 1 (b2 passes).
	// gated: c1 pass, c2 skipped yet reached -> 1/2 or 1.
	if s.Invalid != 3 {
		t.Errorf("invalid = %d, want 3", s.Invalid)
	}
	want := (0.5 + 0 + 0.5) / 3
	if math.Abs(s.Value-want) > 1e-15 || math.Abs(s.Lo-want) > 1e-15 || math.Abs(s.Hi-(2.0/3+1+1)/3) > 1e-15 {
		t.Errorf("strict = %v in [%v, %v], want %v in [%v, %v]", s.Value, s.Lo, s.Hi, want, want, (2.0/3+1+1)/3)
	}
	ref := Evaluate(tr.Root, d, Reference)
	// Reference: a2 recorded 1 -> seq 2/3; b-crit missing = 0 -> par 0; c2 skipped has score 0 -> 1/2.
	if w := (2.0/3 + 0 + 0.5) / 3; math.Abs(ref.Value-w) > 1e-15 {
		t.Errorf("reference = %v, want %v", ref.Value, w)
	}
}

// randomTree builds a tree with weights >= minWeight, depth <= 4.
func randomTree(r *rand.Rand, minWeight int) *Node {
	id := 0
	var build func(depth int, parent *Node) *Node
	build = func(depth int, parent *Node) *Node {
		id++
		n := &Node{ID: fmt.Sprintf("n%d", id), Weight: minWeight + r.IntN(3), Parent: parent,
			Sequential: r.IntN(2) == 0, Critical: r.IntN(3) == 0}
		if depth < 4 && (depth == 0 || r.IntN(3) > 0) {
			for range 1 + r.IntN(4) {
				n.Children = append(n.Children, build(depth+1, n))
			}
		}
		return n
	}
	return build(0, nil)
}

func randomDecisions(r *rand.Rand, root *Node, statuses []Status) Decisions {
	d := Decisions{}
	for _, l := range root.Leaves() {
		st := statuses[r.IntN(len(statuses))]
		score := 0.0
		if st == Pass {
			score = 1
		}
		d[l.ID] = Verdict{Status: st, Score: score}
	}
	return d
}

func TestProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 1500 {
		root := randomTree(r, 1)
		allPass := Decisions{}
		for _, l := range root.Leaves() {
			allPass[l.ID] = Verdict{Status: Pass, Score: 1}
		}
		d := randomDecisions(r, root, []Status{Pass, Fail, Invalid, Missing})
		for _, m := range []Mode{Reference, Strict} {
			if s := Evaluate(root, allPass, m); s.Value != 1 || s.Lo != 1 || s.Hi != 1 {
				t.Fatalf("tree %d %s: all-pass scores %v", i, m, s.Value)
			}
			s := Evaluate(root, d, m)
			var check func(*Score)
			check = func(s *Score) {
				if s.Value < 0 || s.Value > 1 || s.Lo > s.Value || s.Hi < s.Value || s.Lo < 0 || s.Hi > 1 {
					t.Fatalf("tree %d %s node %s: %v in [%v, %v]", i, m, s.Node.ID, s.Value, s.Lo, s.Hi)
				}
				for _, c := range s.Children {
					check(c)
				}
			}
			check(s)
		}
		// Strict: with no invalid leaf the bounds collapse; turning a
		// failure into an invalid verdict keeps the point score.
		valid := randomDecisions(r, root, []Status{Pass, Fail})
		s := Evaluate(root, valid, Strict)
		if s.Invalid != 0 || s.Lo != s.Value || s.Hi != s.Value {
			t.Fatalf("tree %d: valid decisions gave invalid=%d [%v, %v]", i, s.Invalid, s.Lo, s.Hi)
		}
		for id, v := range valid {
			if v.Status == Fail {
				inv := maps(valid)
				inv[id] = Verdict{Status: Invalid}
				if got := Evaluate(root, inv, Strict); got.Value != s.Value || got.Lo > s.Value || got.Hi < s.Value {
					t.Fatalf("tree %d: invalid %s moved the point score %v -> %v", i, id, s.Value, got.Value)
				}
				break
			}
		}
	}
}

func maps(d Decisions) Decisions {
	out := make(Decisions, len(d))
	for k, v := range d {
		out[k] = v
	}
	return out
}

// TestSkippingKeepsScores judges random trees leaf by leaf in file order,
// skipping what Skippable allows, and checks that the scores equal those of
// judging every leaf.
func TestSkippingKeepsScores(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	skipped, total := 0, 0
	for i := range 1500 {
		minW := 1
		if i%5 == 0 {
			minW = 0 // exercise zero weights
		}
		root := randomTree(r, minW)
		full := randomDecisions(r, root, []Status{Pass, Fail, Fail})
		for _, m := range []Mode{Reference, Strict} {
			partial := Decisions{}
			for _, l := range root.Leaves() {
				total++
				if ok, _ := Skippable(l, partial, m); ok {
					partial[l.ID] = Verdict{Status: Skipped}
					skipped++
					continue
				}
				partial[l.ID] = full[l.ID]
			}
			want, got := Evaluate(root, full, m), Evaluate(root, partial, m)
			if want.Value != got.Value || got.Invalid != 0 {
				var a, b bytes.Buffer
				Fprint(&a, want)
				Fprint(&b, got)
				t.Fatalf("tree %d %s: skipping changed the score:\n%s\n%s", i, m, a.String(), b.String())
			}
		}
	}
	if skipped == 0 {
		t.Fatal("nothing was ever skipped")
	}
	t.Logf("skipped %d of %d leaves", skipped, total)
}
