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
	"github.com/clinsql/clinsql/judge/judgefmt"
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
	ageWord  = regexp.MustCompile(`(?i)\bage[ds]?\b|\banchor_age\b|\byears? old\b`)
	icdLike  = regexp.MustCompile(`(?i)(\bicd_code\s+like\s+')([A-Z0-9]{2,7})(%')`)
	joinOn   = regexp.MustCompile(`(?i)(\bON\s+[a-z_][a-z0-9_]*\.)(subject_id|hadm_id|stay_id)(\s*=\s*[a-z_][a-z0-9_]*\.)(subject_id|hadm_id|stay_id)\b`)
	keyEq    = regexp.MustCompile(`(?i)\.(subject_id|hadm_id|stay_id)\s*=\s*[a-z_][a-z0-9_]*\.(subject_id|hadm_id|stay_id)\b`)
	joinWord = regexp.MustCompile(`(?i)\bjoin(?:s|ed|ing)?\b`)
)

// otherKey is the wrong key a changed join uses: another identifier of
// the same tables, so the query still runs.
var otherKey = map[string]string{"subject_id": "hadm_id", "hadm_id": "subject_id", "stay_id": "hadm_id"}

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
	case SQLICD:
		return mutateICD(sql)
	case SQLJoin:
		return mutateJoin(sql)
	}
	return "", "", nil
}

// mutateICD drops an ICD prefix: every "icd_code LIKE 'P%'" of the first
// prefix P used only that way becomes a pattern no code matches. A leaf
// must fail that names P as a code prefix: quoted, followed by %, or, for
// a prefix with a letter, beside the words ICD or code.
func mutateICD(sql string) (string, string, func(string) bool) {
	for _, m := range icdLike.FindAllStringSubmatch(sql, -1) {
		p := m[2]
		if strings.Count(strings.ToUpper(sql), strings.ToUpper(p)) != countLike(sql, p) {
			continue // used elsewhere too (NOT LIKE, IN lists): not one property
		}
		out := icdLike.ReplaceAllStringFunc(sql, func(s string) string {
			g := icdLike.FindStringSubmatch(s)
			if !strings.EqualFold(g[2], p) {
				return s
			}
			return g[1] + "~" + g[2] + g[3]
		})
		q := regexp.QuoteMeta(p)
		named := regexp.MustCompile("(?i)['\"\x60]" + q + `|(?:^|[^A-Za-z0-9])` + q + `%`)
		bare := regexp.MustCompile(`(?i)(?:^|[^A-Za-z0-9])` + q + `(?:[^A-Za-z0-9]|$)`)
		letter := strings.IndexFunc(p, func(r rune) bool { return r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' }) >= 0
		icdWord := regexp.MustCompile(`(?i)\bicd\b|\bcodes?\b`)
		return out, "ICD prefix " + p + " dropped", func(text string) bool {
			return named.MatchString(text) || letter && bare.MatchString(text) && icdWord.MatchString(text)
		}
	}
	return "", "", nil
}

func countLike(sql, p string) int {
	n := 0
	for _, m := range icdLike.FindAllStringSubmatch(sql, -1) {
		if strings.EqualFold(m[2], p) {
			n++
		}
	}
	return n
}

// mutateJoin changes the key of a join: the first "ON a.K = b.K" whose key
// K joins nothing else becomes "ON a.K = b.W", W another identifier. A
// leaf must fail that speaks of joining and names K.
func mutateJoin(sql string) (string, string, func(string) bool) {
	// Every equality of two columns of one key, in ON or WHERE: the key
	// must join once only, so a leaf naming it is about this join.
	count := map[string]int{}
	for _, m := range keyEq.FindAllStringSubmatch(sql, -1) {
		if strings.EqualFold(m[1], m[2]) {
			count[strings.ToLower(m[1])]++
		}
	}
	for _, m := range joinOn.FindAllStringSubmatch(sql, -1) {
		k := strings.ToLower(m[2])
		if !strings.EqualFold(m[2], m[4]) || count[k] != 1 || regexp.MustCompile(`(?i)\busing\s*\([^)]*\b`+k+`\b`).MatchString(sql) {
			continue
		}
		w := otherKey[k]
		out := strings.Replace(sql, m[0], m[1]+m[2]+m[3]+w, 1)
		key := regexp.MustCompile(`(?i)\b` + k + `\b`)
		return out, "join on " + k + " changed to " + k + " = " + w, func(text string) bool {
			return joinWord.MatchString(text) && key.MatchString(text)
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
	v := &Variant{Task: t, Mutation: m, Param: desc, Answer: a, Gold: gold, Expect: map[judgefmt.LeafKey]Expect{}}
	for _, l := range t.SQLRubric.Root.Leaves() {
		if states(l.Requirements) {
			v.Expect[leafKey(t, judgefmt.TreeSQL, l)] = Expect{Reason: desc + ", which the leaf states"}
		}
	}
	return v, nil
}
