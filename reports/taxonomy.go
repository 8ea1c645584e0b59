package reports

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/rubric"
)

// Bucket is an error-taxonomy class of rubric leaves.
type Bucket string

// The buckets, in the order tables show them.
const (
	BucketCohort      Bucket = "cohort specification and coding"
	BucketIntegration Bucket = "database integration"
	BucketAggregation Bucket = "aggregation and clinical statistics"
	BucketTemporal    Bucket = "temporal logic"
	BucketOutput      Bucket = "output schema and formatting"
	BucketValues      Bucket = "clinical values"
)

// Buckets lists every bucket in table order.
var Buckets = []Bucket{BucketCohort, BucketIntegration, BucketAggregation, BucketTemporal, BucketOutput, BucketValues}

// Rule tags the leaves it matches with a bucket. A leaf takes the bucket of
// the first rule that matches it.
type Rule struct {
	// Tree limits the rule to one rubric tree; "" matches both.
	Tree Tree
	// Category, a regular expression, must match the id of the leaf's
	// top-level category (the root's child above it); "" matches any.
	Category string
	// Text, a case-insensitive regular expression, must match the leaf's
	// text: its id, its requirements and the ids of its ancestors below the
	// category; "" matches any.
	Text   string
	Bucket Bucket
	// Why says what the rule captures, for the report.
	Why string
}

// temporalText is the vocabulary of time in SQL leaves: windows and
// durations, first/last events, MIMIC-IV event-time columns, interval
// arithmetic and readmission.
const temporalText = `\b(hours?|hourly|days?|daily|weeks?|months?|window|first|earliest|last|latest|` +
	`initial[- ](icu|stay|admission|hospital|measurement|reading|value|visit|event|lab|vital)s?|` +
	`index[- ](admission|stay|visit|event)|intime|outtime|admittime|dischtime|deathtime|edregtime|charttime|chartdate|` +
	`starttime|stoptime|endtime|storetime|timestamps?|datetime\w*|date_diff|timestamp_diff|interval|duration|` +
	`length[- ]of[- ]stay|los|readmi\w*|temporal\w*|chronolog\w*|time[- ]to|prior|subsequent|follow[- ]?up|` +
	`\d+[- ]?(hours?|hrs?|h|days?|d))\b`

// Rules is the error taxonomy, first match wins. The results tree splits
// into its format layer and its value layer. SQL leaves about time go to
// temporal logic whatever their category (the paper names temporal logic as
// an error type of its own, and time conditions sit in every category);
// the others follow their category: the four standard categories and the
// ad-hoc ones (48 distinct top-level ids in validation) by the words in
// their ids.
var Rules = []Rule{
	{TreeResults, `^output-format-validation$`, ``, BucketOutput,
		"results format layer: CSV exists, expected columns, no NULL or empty values"},
	{TreeResults, ``, ``, BucketValues,
		"results value layer (output-feature-, clinical-value-, output-value-validation): clinically plausible and acceptable bands"},
	{TreeSQL, `temporal|time`, ``, BucketTemporal,
		"SQL categories about time (temporal-logic-and-ranking, temporal-filtering, ...)"},
	{TreeSQL, ``, temporalText, BucketTemporal,
		"SQL leaves whose text is about time: hours/days/windows, first/last/index events, MIMIC event-time columns, intervals, length of stay, readmission"},
	{TreeSQL, `^(final-)?(output|result|formatting)`, ``, BucketOutput,
		"SQL categories about the output (output-formatting, result-formatting-and-quality, final-output-...)"},
	{TreeSQL, `integration|query-structure`, ``, BucketIntegration,
		"SQL database-integration, data-integration and query structure: joins, keys, CTEs"},
	{TreeSQL, `cohort|identification|concept|criteria|measurement`, ``, BucketCohort,
		"SQL patient-cohort-construction, medical-concept-implementation and *-identification: demographics, ICD codes, itemids, drugs"},
	{TreeSQL, ``, ``, BucketAggregation,
		"every other SQL category: clinical-analytics, aggregation, metrics, stratification, scoring, comparisons"},
}

type compiledRule struct {
	Rule
	category, text *regexp.Regexp
}

var compiledRules = func() []compiledRule {
	out := make([]compiledRule, len(Rules))
	for i, r := range Rules {
		out[i].Rule = r
		if r.Category != "" {
			out[i].category = regexp.MustCompile(r.Category)
		}
		if r.Text != "" {
			out[i].text = regexp.MustCompile(`(?i)` + r.Text)
		}
	}
	return out
}()

// Classify returns the bucket of a leaf of the given tree and the index of
// the rule that chose it.
func Classify(tree Tree, leaf *rubric.Node) (Bucket, int) {
	anc := leaf.Ancestors()
	category := ""
	var text []string
	if len(anc) >= 2 {
		category = anc[1].ID
		for _, a := range anc[2:] {
			text = append(text, a.ID)
		}
	} else if len(anc) == 1 {
		category = leaf.ID // a leaf directly under the root is its own category
	}
	text = append(text, leaf.ID, leaf.Requirements)
	joined := strings.Join(text, "\n")
	for i, r := range compiledRules {
		if r.Tree != "" && r.Tree != tree {
			continue
		}
		if r.category != nil && !r.category.MatchString(category) {
			continue
		}
		if r.text != nil && !r.text.MatchString(joined) {
			continue
		}
		return r.Bucket, i
	}
	return BucketAggregation, len(Rules) // unreachable: the last SQL and results rules match anything
}

// TaxonomyRow is one model's leaves of one bucket.
type TaxonomyRow struct {
	Model  string
	Bucket Bucket
	// Leaves in the bucket over the model's graded tasks; Passed and Failed
	// have a valid verdict; Invalid a judge error or unreadable reply;
	// Skipped were not judged (after a failed gate); Missing have no
	// decision at all.
	Leaves, Passed, Failed, Invalid, Skipped, Missing int
	// failed and decided are per graded task (the failure rate's
	// bootstrap resamples tasks).
	failed, decided []float64
}

// FailRate is Failed over the leaves with a valid verdict.
func (r TaxonomyRow) FailRate() float64 {
	if r.Passed+r.Failed == 0 {
		return 0
	}
	return float64(r.Failed) / float64(r.Passed+r.Failed)
}

// LeafFailure is how often a model failed leaves of one id (leaf ids such
// as gender-selection recur across tasks).
type LeafFailure struct {
	Model  string
	Tree   Tree
	LeafID string
	Bucket Bucket
	// Decided is the number of tasks where the leaf had a valid verdict;
	// Failed where that verdict was a failure.
	Decided, Failed int
	// Example is one task where it failed.
	Example datasets.Key
}

// Taxonomy is the error taxonomy of every model.
type Taxonomy struct {
	Rows []TaxonomyRow
	// Top holds each model's most often failed leaf ids, most failures
	// first.
	Top []LeafFailure
	// RuleLeaves counts the leaves of the task set each rule tagged.
	RuleLeaves []int
}

// topLeaves is how many failing leaf ids per model the taxonomy lists.
const topLeaves = 10

func taxonomy(models []*Model, tasks map[datasets.Key]*datasets.Task) *Taxonomy {
	tx := &Taxonomy{RuleLeaves: make([]int, len(Rules)+1)}
	type leafInfo struct {
		tree   Tree
		node   *rubric.Node
		bucket Bucket
	}
	// Classify each task's leaves once.
	leaves := map[datasets.Key][]leafInfo{}
	keys := make([]datasets.Key, 0, len(tasks))
	for k := range tasks {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].Less(keys[j]) })
	for _, k := range keys {
		t := tasks[k]
		for _, tr := range []struct {
			tree Tree
			root *rubric.Node
		}{{TreeSQL, t.SQLRubric.Root}, {TreeResults, t.ResultsRubric.Root}} {
			for _, l := range tr.root.Leaves() {
				b, i := Classify(tr.tree, l)
				tx.RuleLeaves[i]++
				leaves[k] = append(leaves[k], leafInfo{tr.tree, l, b})
			}
		}
	}
	for _, m := range models {
		rows := map[Bucket]*TaxonomyRow{}
		for _, b := range Buckets {
			rows[b] = &TaxonomyRow{Model: m.Name, Bucket: b}
		}
		type idKey struct {
			tree Tree
			id   string
		}
		fails := map[idKey]*LeafFailure{}
		for _, t := range m.Strict.Tasks {
			if !t.Graded {
				continue // no decisions at all: nothing to classify
			}
			dec := m.Decisions[t.Key]
			for _, b := range Buckets {
				rows[b].failed = append(rows[b].failed, 0)
				rows[b].decided = append(rows[b].decided, 0)
			}
			for _, l := range leaves[t.Key] {
				row := rows[l.bucket]
				row.Leaves++
				d := dec[LeafKey{l.tree, l.node.ID}]
				st := rubric.Missing
				if d != nil {
					st = d.Status
				}
				switch st {
				case rubric.Pass:
					row.Passed++
					row.decided[len(row.decided)-1]++
				case rubric.Fail:
					row.Failed++
					row.decided[len(row.decided)-1]++
					row.failed[len(row.failed)-1]++
				case rubric.Invalid:
					row.Invalid++
				case rubric.Skipped:
					row.Skipped++
				default:
					row.Missing++
				}
				if st != rubric.Pass && st != rubric.Fail {
					continue
				}
				ik := idKey{l.tree, l.node.ID}
				f := fails[ik]
				if f == nil {
					f = &LeafFailure{Model: m.Name, Tree: l.tree, LeafID: l.node.ID, Bucket: l.bucket}
					fails[ik] = f
				}
				f.Decided++
				if st == rubric.Fail {
					if f.Failed == 0 {
						f.Example = t.Key
					}
					f.Failed++
				}
			}
		}
		for _, b := range Buckets {
			tx.Rows = append(tx.Rows, *rows[b])
		}
		var list []*LeafFailure
		for _, f := range fails {
			if f.Failed > 0 {
				list = append(list, f)
			}
		}
		sort.Slice(list, func(i, j int) bool {
			a, b := list[i], list[j]
			if a.Failed != b.Failed {
				return a.Failed > b.Failed
			}
			if a.Decided != b.Decided {
				return a.Decided < b.Decided
			}
			if a.Tree != b.Tree {
				return a.Tree < b.Tree
			}
			return a.LeafID < b.LeafID
		})
		for i, f := range list {
			if i == topLeaves {
				break
			}
			tx.Top = append(tx.Top, *f)
		}
	}
	return tx
}

// Row returns a model's row of a bucket.
func (tx *Taxonomy) Row(model string, b Bucket) (TaxonomyRow, bool) {
	for _, r := range tx.Rows {
		if r.Model == model && r.Bucket == b {
			return r, true
		}
	}
	return TaxonomyRow{}, false
}

// ruleText renders a rule's match condition for tables.
func ruleText(r Rule) (tree, category, text string) {
	tree = string(r.Tree)
	if tree == "" {
		tree = "any"
	}
	category, text = r.Category, r.Text
	if category == "" {
		category = "any"
	}
	switch {
	case text == "":
		text = "any"
	case text == temporalText:
		text = "temporal vocabulary (see temporalText)"
	}
	return
}

func rate(n, d int) string {
	if d == 0 {
		return ""
	}
	return fmt.Sprintf("%.1f", 100*float64(n)/float64(d))
}
