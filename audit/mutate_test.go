package audit

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/rubric"
)

type node = map[string]any

func leafNode(id, req string) node {
	return node{"id": id, "requirements": req, "sequential": false, "sub_tasks": []any{}}
}

func groupNode(id, req string, kids ...node) node {
	k := make([]any, len(kids))
	for i, c := range kids {
		k[i] = c
	}
	return node{"id": id, "requirements": req, "sequential": false, "sub_tasks": k}
}

func mustTree(t *testing.T, n node) *rubric.Tree {
	t.Helper()
	b, err := json.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := rubric.Parse(b, "test.json", rubric.JSON)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// task builds a task whose results tree has the leaf under the output
// format category (format true) or the value category.
func task(t *testing.T, format bool, leaf, goldCSV, sql string, sqlLeaves ...string) *datasets.Task {
	t.Helper()
	cat := groupNode("clinical-value-validation", "Clinical Value Validation", leafNode("the-leaf", leaf))
	if format {
		cat = groupNode("output-format-validation", "Output Format Validation", leafNode("the-leaf", leaf))
	}
	var sl []node
	for i, s := range sqlLeaves {
		sl = append(sl, leafNode("sql-"+string(rune('a'+i)), s))
	}
	if len(sl) == 0 {
		sl = append(sl, leafNode("sql-a", "Uses the right tables."))
	}
	return &datasets.Task{Key: datasets.Key{Split: "validation", Domain: "D", Difficulty: "easy", ID: "001"}, GoldSQL: sql,
		GoldResult:    []byte(goldCSV),
		SQLRubric:     mustTree(t, groupNode("sql-root", "SQL", sl...)),
		ResultsRubric: mustTree(t, groupNode("results-root", "Results Validation", cat))}
}

func testable(t *testing.T, tk *datasets.Task, m string) []bool {
	t.Helper()
	vs, err := ResultVariants(tk, m)
	if err != nil {
		t.Fatal(err)
	}
	var out []bool
	for _, v := range vs {
		_, ok := v.Expect[judgefmt.LeafKey{Task: tk.Key.String(), Tree: judgefmt.TreeResults, Leaf: "the-leaf"}]
		out = append(out, ok)
	}
	return out
}

// TestExpectValues: a band leaf must fail under a mutation only when no
// value, total or count of the changed result could satisfy it.
func TestExpectValues(t *testing.T) {
	for _, c := range []struct {
		name, leaf, gold, mutation string
		want                       bool
	}{
		{"count x100 leaves the band", "Acceptable Range (2-5)", "p75_procedures\n3\n", Scale100, true},
		{"count x0.01 leaves the band", "Acceptable Range (2-5)", "p75_procedures\n3\n", Scale001, true},
		{"a percentage x0.01 reads as a fraction", "Mortality rate is plausible (10-60%)", "mortality_pct\n25\n", Scale001, false},
		{"a percentage x100 leaves the band", "Mortality rate is plausible (10-60%)", "mortality_pct\n25\n", Scale100, true},
		{"a fraction x100 reads as a percentage", "Mortality fraction (0.1 to 0.6)", "mortality_fraction\n0.25\n", Scale100, false},
		{"a band for a total", "Total number of stays across all categories should be between 2000 and 5000.", "cat,n\na,1000\nb,2000\n", Scale100, true},
		{"a count of categories stays", "Number of age groups reported (3-6)", "age_group,n\na,1\nb,2\nc,3\nd,4\n", Scale100, false},
		{"a value in the band by chance", "Acceptable Range (2-5)", "p75,n\n3,400\n", Scale001, false},
		{"NULL values leave nothing", "Acceptable Range (2-5)", "p75_procedures\n3\n", Null, true},
		{"the row count is a candidate after NULL", "Acceptable Range (1-5)", "p75_procedures\n3\n", Null, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := testable(t, task(t, false, c.leaf, c.gold, ""), c.mutation)
			if len(got) != 1 || got[0] != c.want {
				t.Errorf("testable %v, want [%v]", got, c.want)
			}
		})
	}
}

// TestExpectColumns: a column leaf must fail after rename or drop only
// when nothing left could name what it asks for.
func TestExpectColumns(t *testing.T) {
	const mort = "Column exists for hospital mortality (e.g., `mortality_rate`)"
	for _, c := range []struct {
		name, leaf, gold, mutation string
		want                       []bool
	}{
		{"renamed", mort, "mortality_rate\n0.2\n", Rename, []bool{true}},
		{"a row label could name it", mort, "metric,value\nhospital mortality,0.2\n", Rename, []bool{false}},
		{"the leaf's example is generic", "Column exists (e.g., `col_1`)", "x\n1\n", Rename, []bool{false}},
		{"lab_1_name is no generic name", "Column exists for the first lab test's name (e.g., `lab_1_name`)", "lab_1_name\n1\n", Rename, []bool{true}},
		// A leaf that names only a role of the layout (a metric) is one
		// the code refuses (codecheck), so no mutation can test it.
		{"a leaf naming only a role", "Column exists for the first metric's name (e.g., `metric_1_name`)", "metric_1_name\n1\n", Rename, []bool{false}},
		{"dropped: only the leaf's column", mort, "age_group,mortality_rate\na,0.2\n", Drop, []bool{false, true}},
		{"dropped while a related column stays", mort, "mortality_count,mortality_rate\n3,0.2\n", Drop, []bool{false, false}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := testable(t, task(t, true, c.leaf, c.gold, ""), c.mutation)
			if len(got) != len(c.want) {
				t.Fatalf("testable %v, want %v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("testable %v, want %v", got, c.want)
				}
			}
		})
	}
}

// TestExpectNulls: a no-NULL leaf must fail when the columns it covers
// are all NULL and it allows no NULL.
func TestExpectNulls(t *testing.T) {
	for _, c := range []struct {
		name, leaf, gold string
		want             bool
	}{
		{"every column NULL", "No NULL/Empty Values", "a,b\n1,2\n", true},
		{"a text column is left", "No NULL/Empty Values", "group,b\nx,2\n", false},
		{"the named column is NULL", "No NULL values in `mortality_rate`", "group,mortality_rate\nx,2\n", true},
		{"the named column is text", "No NULL values in `group_name`", "group_name,mortality_rate\nx,2\n", false},
		{"NULLs allowed", "No NULL values in `mortality_rate` (NULL acceptable for empty strata)", "group,mortality_rate\nx,2\n", false},
		{"if applicable", "No NULL values in `mortality_rate` if applicable", "group,mortality_rate\nx,2\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := testable(t, task(t, true, c.leaf, c.gold, ""), Null)
			if len(got) != 1 || got[0] != c.want {
				t.Errorf("testable %v, want [%v]", got, c.want)
			}
		})
	}
}

// TestNoResultMutations: without a result every results leaf must fail,
// and the SQL tree is not testable.
func TestNoResultMutations(t *testing.T) {
	tk := task(t, true, "A CSV file exists", "a\n1\n", "SELECT 1")
	for _, m := range []string{Empty, Failed} {
		vs, err := ResultVariants(tk, m)
		if err != nil || len(vs) != 1 {
			t.Fatalf("%s: %v %v", m, vs, err)
		}
		v := vs[0]
		if len(v.Expect) != 1 || v.Answer.HasResult() {
			t.Errorf("%s: expect %v, has result %v", m, v.Expect, v.Answer.HasResult())
		}
		for _, e := range v.Expect {
			if e.Pass {
				t.Errorf("%s: a leaf must pass: %+v", m, e)
			}
		}
	}
}

// TestMutateSQL: the mutated SQL and the leaves stating the property.
func TestMutateSQL(t *testing.T) {
	const sql = "SELECT 1 FROM patients p WHERE p.gender = 'F' AND p.anchor_age BETWEEN 65 AND 75"
	for _, c := range []struct {
		name, sql, m, wantSQL string
		states, not           []string
	}{
		{"gender", sql, SQLGender, "SELECT 1 FROM patients p WHERE p.gender = 'M' AND p.anchor_age BETWEEN 65 AND 75",
			[]string{"Filters to female patients with `p.gender = 'F'`.", "Women aged 65-75"},
			[]string{"Joins `patients` and `admissions`.", "Restricts ages to 65–75"}},
		{"age", sql, SQLAge, "SELECT 1 FROM patients p WHERE p.gender = 'F' AND p.anchor_age BETWEEN 72 AND 82",
			[]string{"Restricts ages to 65–75 with `p.anchor_age BETWEEN 65 AND 75`.", "Patients aged 65 to 75"},
			[]string{"Filters to female patients.", "Counts 75 procedures", "Ages 650 or more"}},
		{"icd", "SELECT 1 FROM d WHERE d.icd_code LIKE 'I21%' OR d.icd_code LIKE '410%'", SQLICD,
			"SELECT 1 FROM d WHERE d.icd_code LIKE '~I21%' OR d.icd_code LIKE '410%'",
			[]string{"Selects myocardial infarction with ICD-10 codes I21 and ICD-9 410.", "Uses `icd_code LIKE 'I21%'`", "codes starting with I21%"},
			[]string{"Selects myocardial infarction with ICD-9 codes 410.", "Patients with I210 excluded", "Joins diagnoses on hadm_id"}},
		{"icd used elsewhere", "SELECT 1 FROM d WHERE d.icd_code LIKE 'I21%' AND d.icd_code NOT IN ('I21')", SQLICD, "", nil, nil},
		{"join", "SELECT 1 FROM patients p JOIN admissions a ON p.subject_id = a.subject_id JOIN diagnoses_icd d ON a.hadm_id = d.hadm_id", SQLJoin,
			"SELECT 1 FROM patients p JOIN admissions a ON p.subject_id = a.hadm_id JOIN diagnoses_icd d ON a.hadm_id = d.hadm_id",
			[]string{"Joins patients and admissions on subject_id.", "Correctly joins the tables using `subject_id` and `hadm_id`."},
			[]string{"Joins admissions and diagnoses on hadm_id.", "Counts distinct subject_id."}},
		{"join key also in WHERE", "SELECT 1 FROM a JOIN b ON a.hadm_id = b.hadm_id, c WHERE c.hadm_id = b.hadm_id", SQLJoin, "", nil, nil},
		{"join key used twice", "SELECT 1 FROM a JOIN b ON a.hadm_id = b.hadm_id JOIN c ON b.hadm_id = c.hadm_id", SQLJoin, "", nil, nil},
		{"both genders", "SELECT CASE WHEN gender = 'F' THEN 1 END, gender = 'M' FROM patients", SQLGender, "", nil, nil},
		{"no age", "SELECT 1 FROM patients", SQLAge, "", nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, _, states := mutateSQL(c.sql, c.m)
			if got != c.wantSQL || (states == nil) != (c.wantSQL == "") {
				t.Fatalf("got %q (states %v), want %q", got, states != nil, c.wantSQL)
			}
			for _, s := range c.states {
				if !states(s) {
					t.Errorf("%q should state the property", s)
				}
			}
			for _, s := range c.not {
				if states(s) {
					t.Errorf("%q should not state the property", s)
				}
			}
		})
	}
}

// TestLint: gold answers that fail their own rubric.
func TestLint(t *testing.T) {
	for _, c := range []struct {
		name, leaf, gold string
		format           bool
		want             string
	}{
		{"gold outside the band", "Acceptable Range: between 2 and 10 days", "median_days\n1\n", false, "no gold value lies in [2, 10] days"},
		{"gold inside", "Acceptable Range: between 2 and 10 days", "median_days\n3\n", false, ""},
		// A reader checks the value the leaf names: another column's value
		// inside the band (here the cohort size, the row and column counts)
		// does not make the gold satisfy it.
		{"named gold column outside, another value inside", "`median_days` between 2 and 10 days", "median_days,n_patients\n1,5\n", false,
			"no value of the gold column median_days lies in [2, 10] days"},
		{"named gold column inside", "`median_days` between 2 and 10 days", "median_days,n_patients\n3,50\n", false, ""},
		{"a cohort age range is no band", "Admissions for this cohort (female, 63-73, transfer) are moderate", "n\n50\n", false, ""},
		{"generic gold names", "A column representing the mean ICU length of stay exists.", "cohort_size,result_metric_1\n10,2.5\n", true, "names its columns generically (result_metric_1)"},
		{"specific gold names", "A column representing the mean ICU length of stay exists.", "cohort_size,mean_icu_los\n10,2.5\n", true, ""},
		{"gold NULL in a named column", "No NULL values in `los_days`", "grp,los_days\nx,\n", true, "the gold column los_days has a NULL value"},
		{"empty gold", "A CSV file exists", "a\n", true, "the gold result has no rows"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tk := task(t, c.format, c.leaf, c.gold, "")
			_, gold, err := goldAnswer(tk)
			if err != nil {
				t.Fatal(err)
			}
			fs := Lint(tk, gold)
			got := ""
			for _, f := range fs {
				got += f.Problem
			}
			if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
				t.Errorf("lint %q, want %q", got, c.want)
			}
		})
	}
}
