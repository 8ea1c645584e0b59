package audit

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/judge/codecheck"
	"github.com/clinsql/clinsql/judge/ledger"
)

// SQL mutations change the gold SQL where the change maps to a leaf
// cleanly, and run the changed SQL on an engine (the embedded DuckDB over
// the MIMIC-IV demo, typically). The leaves that must fail are the SQL
// leaves that state the changed property; the results tree cannot be told
// (the engine's sample is not the database the gold result came from).

var (
	genderLit = regexp.MustCompile(`(?i)(\bgender\s*=\s*)'([FM])'`)
	ageBound  = regexp.MustCompile(`(?i)(\banchor_age\s+between\s+)(\d+)(\s+and\s+)(\d+)|(\banchor_age\s*[<>]=?\s*)(\d+)`)
	// The words a leaf uses for each gender. \b keeps "male" out of
	// "female".
	genderWords = map[string]*regexp.Regexp{
		"F": regexp.MustCompile(`(?i)\b(?:female|females|women|woman)\b|'F'`),
		"M": regexp.MustCompile(`(?i)\b(?:male|males|men|man)\b|'M'`),
	}
	ageWord = regexp.MustCompile(`(?i)\bage[ds]?\b|\banchor_age\b|\byears? old\b`)
)

// ageShift moves an age bound: 7 years, so a window of 10 years keeps no
// bound in common with the gold one.
const ageShift = 7

// mutateSQL returns the gold SQL changed by m, a description, and the
// pattern of leaf text that states the changed property (nil when m does
// not apply to this SQL).
func mutateSQL(sql, m string) (string, string, func(text string) bool) {
	switch m {
	case SQLGender:
		lits := map[string]bool{}
		for _, g := range genderLit.FindAllStringSubmatch(sql, -1) {
			lits[strings.ToUpper(g[2])] = true
		}
		if len(lits) != 1 {
			// None, or both genders: flipping would not change one
			// stated property.
			return "", "", nil
		}
		var from string
		for g := range lits {
			from = g
		}
		to := map[string]string{"F": "M", "M": "F"}[from]
		out := genderLit.ReplaceAllString(sql, "${1}'"+to+"'")
		words := genderWords[from]
		return out, fmt.Sprintf("gender '%s' -> '%s'", from, to), func(text string) bool { return words.MatchString(text) }
	case SQLAge:
		var bounds []string
		out := ageBound.ReplaceAllStringFunc(sql, func(s string) string {
			g := ageBound.FindStringSubmatch(s)
			if g[1] != "" {
				bounds = append(bounds, g[2], g[4])
				return g[1] + shifted(g[2]) + g[3] + shifted(g[4])
			}
			bounds = append(bounds, g[6])
			return g[5] + shifted(g[6])
		})
		if len(bounds) == 0 {
			return "", "", nil
		}
		nums := make([]*regexp.Regexp, len(bounds))
		for i, b := range bounds {
			nums[i] = regexp.MustCompile(`(?:^|[^\d.])` + b + `(?:$|[^\d.])`)
		}
		return out, "anchor_age bounds " + strings.Join(bounds, ", ") + " shifted by " + strconv.Itoa(ageShift), func(text string) bool {
			if !ageWord.MatchString(text) {
				return false
			}
			for _, n := range nums {
				if n.MatchString(text) {
					return true
				}
			}
			return false
		}
	}
	return "", "", nil
}

func shifted(n string) string {
	v, _ := strconv.Atoi(n)
	return strconv.Itoa(v + ageShift)
}

// maxQueryTime bounds one mutated query on the engine.
const maxQueryTime = 2 * time.Minute

// SQLVariant builds the SQL mutation m of a task's gold answer and runs it
// on ex; nil when the mutation does not apply. A failed run is an answer
// too (it stays a wrong SQL).
func SQLVariant(ctx context.Context, t *datasets.Task, m string, ex executor.Executor) (*Variant, error) {
	sql, desc, states := mutateSQL(t.GoldSQL, m)
	if states == nil {
		return nil, nil
	}
	_, gold, err := goldAnswer(t)
	if err != nil {
		return nil, err
	}
	a := &codecheck.Answer{Key: t.Key, Dir: t.Key.String(), Question: t.Question, SQL: sql}
	qctx, cancel := context.WithTimeout(ctx, maxQueryTime)
	res, err := ex.Query(qctx, sql)
	cancel()
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		a.Error = err.Error()
	default:
		a.Executed, a.Table = true, codecheck.TableFromResult(res)
		a.RowCount = a.Table.TotalRows
	}
	v := &Variant{Task: t, Mutation: m, Param: desc, Answer: a, Gold: gold, Expect: map[ledger.LeafKey]Expect{}}
	for _, l := range t.SQLRubric.Root.Leaves() {
		if states(l.Requirements) {
			v.Expect[leafKey(t, ledger.TreeSQL, l)] = Expect{Reason: desc + ", which the leaf states"}
		}
	}
	return v, nil
}
