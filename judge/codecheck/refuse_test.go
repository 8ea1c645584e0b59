package codecheck

import (
	"strings"
	"testing"

	"github.com/clinsql/clinsql/rubric"
)

// valueTree builds a results tree whose value category holds one subtree
// per parent text, each with the band leaves given ("" skips), and a
// format category with the column leaves given. Leaf ids: v<i>-<j>,
// c<i>.
func valueTree(t *testing.T, columns []string, parents []string, bands [][]string) *rubric.Node {
	t.Helper()
	var cols []string
	for i, c := range columns {
		cols = append(cols, `{"id":"c`+string(rune('0'+i))+`","requirements":`+quote(c)+`,"sub_tasks":[]}`)
	}
	var subs []string
	for i, p := range parents {
		var leaves []string
		for j, b := range bands[i] {
			leaves = append(leaves, `{"id":"v`+string(rune('0'+i))+`-`+string(rune('0'+j))+`","requirements":`+quote(b)+`,"sub_tasks":[]}`)
		}
		subs = append(subs, `{"id":"p`+string(rune('0'+i))+`","requirements":`+quote(p)+`,"sequential":true,"sub_tasks":[`+strings.Join(leaves, ",")+`]}`)
	}
	doc := `{"id":"root","requirements":"Results Validation","sub_tasks":[` +
		`{"id":"fmt","requirements":"Output Format Validation","sequential":true,"sub_tasks":[{"id":"cols","requirements":"Column Name Exists","sub_tasks":[` + strings.Join(cols, ",") + `]}]},` +
		`{"id":"val","requirements":"Clinical Value Validation","sub_tasks":[` + strings.Join(subs, ",") + `]}]}`
	if len(cols) == 0 {
		doc = `{"id":"root","requirements":"Results Validation","sub_tasks":[` +
			`{"id":"val","requirements":"Clinical Value Validation","sub_tasks":[` + strings.Join(subs, ",") + `]}]}`
	}
	tr, err := rubric.Parse([]byte(doc), "test.json", rubric.JSON)
	if err != nil {
		t.Fatal(err)
	}
	return tr.Root
}

// TestRefusals: issue 27's binding that refuses when unsure. A leaf is
// decided only when the quantity it names (the group, the statistic,
// the unit) is found in the result; what is absent or ambiguous goes to
// the judge. Each case states the rubric wording it follows.
func TestRefusals(t *testing.T) {
	type want struct {
		leaf          string
		decided, pass bool
		explainHas    string
	}
	for _, tc := range []struct {
		name     string
		columns  []string
		parents  []string
		bands    [][]string
		csv      string
		expected []want
	}{
		{
			// A rubric gives each value its own subtree: "DKA AKI Rate"
			// and "General Cohort AKI Rate" are two values. One column of
			// a one-row result cannot be both: neither is decided (it
			// passed both before).
			name:    "two values, one cell",
			parents: []string{"Validate Value for DKA AKI Rate (e.g., dka_cohort_aki_rate_pct)", "Validate Value for General Cohort AKI Rate (e.g., general_cohort_aki_rate_pct)"},
			bands:   [][]string{{"Clinically Plausible (0-100)"}, {"Clinically Plausible (0-100)"}},
			csv:     "aki_rate_pct,n\n12.5,300\n",
			expected: []want{
				{leaf: "v0-0", explainHas: `answers both this value and "v1-0"`},
				{leaf: "v1-0", explainHas: `answers both this value and "v0-0"`},
			},
		},
		{
			// The two values in two columns: each decided on its own.
			name:    "two values, two cells",
			parents: []string{"Validate Value for DKA AKI Rate (e.g., dka_cohort_aki_rate_pct)", "Validate Value for General Cohort AKI Rate (e.g., general_cohort_aki_rate_pct)"},
			bands:   [][]string{{"Clinically Plausible (0-100)"}, {"Acceptable Range (20-40)"}},
			csv:     "dka_aki_rate_pct,general_aki_rate_pct\n12.5,30\n",
			expected: []want{
				{leaf: "v0-0", decided: true, pass: true, explainHas: "dka_aki_rate_pct = 12.5"},
				{leaf: "v1-0", decided: true, pass: true, explainHas: "general_aki_rate_pct = 30"},
			},
		},
		{
			// Plausible and acceptable under one parent are one value
			// checked twice, and so are two subtrees with the same words.
			name:    "one value, two bands",
			parents: []string{"Validate mean LOS (days)", "Validation of Mean LOS (days)"},
			bands:   [][]string{{"Clinically Plausible (1-30)", "Acceptable Range (3-8)"}, {"Clinically Plausible (1-20)"}},
			csv:     "mean_los_days\n5\n",
			expected: []want{
				{leaf: "v0-0", decided: true, pass: true},
				{leaf: "v0-1", decided: true, pass: true},
				{leaf: "v1-0", decided: true, pass: true},
			},
		},
		{
			// The held-out failure: siblings name the cohort ("for the
			// post-cardiac-arrest cohort"), this leaf does not, and the
			// result is that one group: its value may well be this leaf's.
			name:    "one group named by a sibling",
			parents: []string{"Validate mean ICU LOS for the post-cardiac-arrest cohort", "Validate mortality rate"},
			bands:   [][]string{{"Clinically Plausible (1-30)"}, {"Acceptable Range (10-60%)"}},
			csv:     "cohort,mean_icu_los,mortality_rate_pct\nPost-cardiac-arrest,4.2,35\n",
			expected: []want{
				{leaf: "v0-0", decided: true, pass: true, explainHas: "mean_icu_los = 4.2"},
				{leaf: "v1-0", explainHas: `one group, "Post-cardiac-arrest", which the rubric names elsewhere`},
			},
		},
		{
			// A quoted group the result's one row is not labelled with.
			name:     "quoted group, another row",
			parents:  []string{"Mortality rate (%) for 'Borderline' troponin"},
			bands:    [][]string{{"Acceptable Range (20-65)"}},
			csv:      "category,percent\nnormal,30\n",
			expected: []want{{leaf: "v0-0", explainHas: `about "Borderline", and the result's one row is labelled "normal"`}},
		},
		{
			// An unlabelled one-row result is the question's cohort.
			name:     "quoted group, unlabelled row",
			parents:  []string{"Mortality rate (%) with LOS > 7 days for 'Sepsis'"},
			bands:    [][]string{{"Acceptable Range (8-25)"}},
			csv:      "mortality_pct_los_gt_7\n12\n",
			expected: []want{{leaf: "v0-0", decided: true, pass: true}},
		},
		{
			// A quoted group named more fully than the row ('Discharged
			// to Facility' for "Facility"): the one label whose words it
			// holds; two such labels are not told apart.
			name:     "quoted group, row named shorter",
			parents:  []string{"Mean LOS for 'Discharged to Facility'"},
			bands:    [][]string{{"Acceptable Range (5-12 days)"}},
			csv:      "discharge_category,mean_los\nDeath,9\nFacility,7.5\nHome,4\n",
			expected: []want{{leaf: "v0-0", decided: true, pass: true, explainHas: "mean_los = 7.5"}},
		},
		{
			name:     "quoted group, two rows fit",
			parents:  []string{"Mean LOS for 'Discharged Home or Facility'"},
			bands:    [][]string{{"Acceptable Range (5-12 days)"}},
			csv:      "discharge_category,mean_los\nDeath,9\nFacility,7.5\nHome,4\n",
			expected: []want{{leaf: "v0-0", explainHas: "no row of the result is labelled so"}},
		},
		{
			// The lone numeric column of a small result binds only when
			// its name can hold the value: "percentile_90" is not the
			// length of stay; BigQuery's unnamed "f0_" may be anything.
			name:     "lone column of another quantity",
			parents:  []string{"Validate column for Hospital Length of Stay (Days)"},
			bands:    [][]string{{"Acceptable Range (5-40)"}},
			csv:      "percentile_90\n11\n",
			expected: []want{{leaf: "v0-0", explainHas: "no result column can be tied"}},
		},
		{
			name:     "lone unnamed column",
			parents:  []string{"Validation of the total number of admissions"},
			bands:    [][]string{{"Acceptable Range (50-1000)"}},
			csv:      "f0_\n287\n",
			expected: []want{{leaf: "v0-0", decided: true, pass: true, explainHas: "f0_ = 287"}},
		},
		{
			// A rate is the mean of an indicator, so a mean column may
			// hold one, and so may a column naming no statistic: the
			// names choose, not the statistic ("avg_length_of_stay" was
			// bound to a mortality rate before).
			name:     "rate beside a mean",
			parents:  []string{"Validation for In-Hospital Mortality Rate Percent"},
			bands:    [][]string{{"Clinically Plausible (0-50)"}},
			csv:      "avg_length_of_stay,in_hospital_mortality\n8.5,0.114\n",
			expected: []want{{leaf: "v0-0", decided: true, pass: true, explainHas: "in_hospital_mortality = 0.114"}},
		},
		{
			// Columns the names do not tell apart, however weakly the
			// best fits, are all candidates: differing verdicts refuse.
			name:     "weak tie",
			parents:  []string{"Validation of mean critical lab events per stroke patient"},
			bands:    [][]string{{"Acceptable Range (0.1-10)"}},
			csv:      "critical_lab_burden,stroke_score\n42,3\n",
			expected: []want{{leaf: "v0-0", explainHas: "both fit, and the verdict differs"}},
		},
		{
			// Interval notation and a one-sided bound are bands.
			name:    "interval and bound",
			parents: []string{"Validate the 75th percentile of distinct ECG procedures", "Validation of patient count column (e.g., `patient_count`)"},
			bands:   [][]string{{"Clinically Plausible ([0, 10])", "Acceptable Range ([1, 3])"}, {"Patient counts are clinically plausible (>= 1)"}},
			csv:     "group,p75_ecg_procedures,patient_count\nA,2,0\nB,1,40\n",
			expected: []want{
				{leaf: "v0-0", decided: true, pass: true, explainHas: "within [0, 10]"},
				{leaf: "v0-1", decided: true, pass: true, explainHas: "within [1, 3]"},
				{leaf: "v1-0", explainHas: "1 of 2 values within >= 1"},
			},
		},
		{
			// A leaf stating a band for each of two things it does not
			// tie to values ("Insulin ... (30-95%). Other oral agents are
			// low (<20%).") is not decided on the first band alone.
			name:     "two bands, two things",
			parents:  []string{"Validation of 'initiation_rate_first_12h_pct' column"},
			bands:    [][]string{{"Insulin initiation rate is acceptably high (30-95%). Other oral agents are low (<20%)."}},
			csv:      "initiation_rate_first_12h_pct\n60\n",
			expected: []want{{leaf: "v0-0", explainHas: "states 2 ranges"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := valueTree(t, tc.columns, tc.parents, tc.bands)
			a := table(t, tc.csv)
			for _, w := range tc.expected {
				d := Check(root.Find(w.leaf), a)
				if d.Decided != w.decided || d.Pass != w.pass {
					t.Errorf("%s: decided %v pass %v, want %v %v: %s", w.leaf, d.Decided, d.Pass, w.decided, w.pass, d.Explanation)
				}
				if !strings.Contains(d.Explanation, w.explainHas) {
					t.Errorf("%s: explanation %q lacks %q", w.leaf, d.Explanation, w.explainHas)
				}
			}
		})
	}
}

// TestColumnClaims: a column that two column leaves about different
// quantities both pass on, by the quantity rather than a name the rubric
// gives, decides neither; examples spanning a column decide it.
func TestColumnClaims(t *testing.T) {
	for _, tc := range []struct {
		name    string
		columns []string
		csv     string
		want    []struct {
			decided, pass bool
			explainHas    string
		}
	}{
		{
			// "risk percentile" (a rank) took "median_risk" for a
			// percentile: the same column the median risk score names.
			name:    "two quantities, one column",
			columns: []string{"Column for median risk score exists (e.g., `median_risk_score`)", "Column for risk percentile exists (e.g., `matched_profile_risk_percentile`)"},
			csv:     "median_risk,n\n4,10\n",
			want: []struct {
				decided, pass bool
				explainHas    string
			}{{explainHas: `is also what "c1" asks for`}, {explainHas: `is also what "c0" asks for`}},
		},
		{
			// A name the rubric gives stands: only the other is refused.
			name:    "a named column stands",
			columns: []string{"Column for median risk score exists (e.g., `median_risk_score`)", "Column for risk percentile exists (e.g., `matched_profile_risk_percentile`)"},
			csv:     "median_risk_score,n\n4,10\n",
			want: []struct {
				decided, pass bool
				explainHas    string
			}{{decided: true, pass: true, explainHas: "named as required"}, {explainHas: `is also what "c0" asks for`}},
		},
		{
			// Between the examples "median_glucose" and
			// "median_peak_glucose_dka": the quantity of one, with a
			// qualifier of the other.
			name:    "span of examples",
			columns: []string{"Primary Column Exists (e.g., 'median_peak_glucose_dka', 'median_glucose')"},
			csv:     "median_peak_glucose\n180\n",
			want: []struct {
				decided, pass bool
				explainHas    string
			}{{decided: true, pass: true, explainHas: `names the quantity of "median_glucose"`}},
		},
		{
			// ... but not in another time unit than the rubric states.
			name:    "span in another unit",
			columns: []string{"Column exists for median time to death (e.g., 'median_time_to_death_days', 'median_ttd')"},
			csv:     "median_time_to_death_hours\n180\n",
			want: []struct {
				decided, pass bool
				explainHas    string
			}{{explainHas: "related to the requirement"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := valueTree(t, tc.columns, nil, nil)
			a := table(t, tc.csv)
			for i, w := range tc.want {
				d := Check(root.Find("c"+string(rune('0'+i))), a)
				if d.Decided != w.decided || d.Pass != w.pass {
					t.Errorf("c%d: decided %v pass %v, want %v %v: %s", i, d.Decided, d.Pass, w.decided, w.pass, d.Explanation)
				}
				if !strings.Contains(d.Explanation, w.explainHas) {
					t.Errorf("c%d: explanation %q lacks %q", i, d.Explanation, w.explainHas)
				}
			}
		})
	}
}

// TestAbsenceRefusals: issue 27's labelled leaves showed a fail decided
// on what the result does not show. A column's absence is shown only
// where the requirement names a quantity and every column's name says
// what it holds; a NULL only where it is the value's row; a cell only
// where it is not a packed value with empty fields inside. Each refuses
// rather than fails.
func TestAbsenceRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, category, parent, text, csv string
		decided, pass                     bool
		explainHas                        string
	}{
		// "Column for primary values (e.g., 'value', 'result')": a wide
		// result holds its values in named columns.
		{name: "role: values in a wide layout", category: format, parent: "Column Name Exists", text: "Column for primary values exists (e.g., 'value', 'result')",
			csv: "mortality_rate,mean_los\n0.2,5\n", explainHas: "role in the layout"},
		{name: "role: or similar", category: format, parent: "Column Name Exists", text: "Column 'metric_name' or similar must exist",
			csv: "mortality_rate,mean_los\n0.2,5\n", explainHas: "role in the layout"},
		{name: "role: metric or measure", category: format, parent: "Column Name Exists", text: "Column for metrics exists (e.g., 'metric', 'measure')",
			csv: "category,amount\nmortality,0.2\n", explainHas: "role in the layout"},
		// The name the rubric gives still passes.
		{name: "role: the name given", category: format, parent: "Column Name Exists", text: "Column 'value' or similar must exist",
			csv: "metric,value\nmortality,0.2\n", decided: true, pass: true, explainHas: "named as required"},
		// A quantity named and absent still fails.
		{name: "quantity absent", category: format, parent: "Column Name Exists", text: "Column for mortality rate exists (e.g., 'mortality_rate')",
			csv: "mean_los,n\n5,10\n", decided: true, explainHas: "no column relates"},
		// A subgroup column is a grouping column, named freely.
		{name: "subgroup", category: format, parent: "Column Name Exists", text: "Column exists for subgroup identification (e.g., 'subgroup')",
			csv: "serotonergic_group,mortality_rate\n>=2,0.2\n", explainHas: "grouping column"},
		// BigQuery names an unnamed expression f0_: it may hold the count.
		{name: "generic name", category: format, parent: "Column Name Exists", text: "The output contains a column for the total number of admissions (e.g., 'total_admissions')",
			csv: "f0_\n1234\n", explainHas: "generic name"},
		// A section of a stacked result named in passing: its rows are
		// NULL in the column, another section's rows hold it.
		{name: "stacked sections", category: values, parent: "Validate values in the average length of stay column", text: "Clinically Plausible (1-60). Stroke can have very long stays.",
			csv: "section,group_type,n_drugs,avg_los_days\ndistribution,stroke,2,\ndistribution,stroke,3,\noutcomes,top,,7.5\n", explainHas: "stacks sections"},
		// A group's own row NULL where the other's is not (an empty
		// cohort): its value is missing, and the leaf fails.
		{name: "empty group's NULL", category: values, parent: "DKA mortality rate", text: "Acceptable Range (2-25)",
			csv: "cohort,n,mortality_pct\nGeneral,600,4.4\nDKA,0,\n", decided: true, explainHas: "NULL"},
		// A STRUCT written out with a None field: whether that counts
		// as a NULL is a reader's call.
		{name: "packed null", category: format, parent: "", text: "No NULL or empty values in the output",
			csv: "metric,value\np95,\"{'N': None, 'mean': 11.0}\"\n", explainHas: "packed value"},
		{name: "packed, no null", category: format, parent: "", text: "No NULL or empty values in the output",
			csv: "metric,value\np95,\"{'N': 4, 'mean': 11.0}\"\n", decided: true, pass: true, explainHas: "no NULL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leaf := resultsLeaf(t, tc.category, tc.parent, tc.text)
			d := Check(leaf, table(t, tc.csv))
			if d.Decided != tc.decided || d.Pass != tc.pass {
				t.Errorf("decided %v pass %v, want %v %v: %s", d.Decided, d.Pass, tc.decided, tc.pass, d.Explanation)
			}
			if !strings.Contains(d.Explanation, tc.explainHas) {
				t.Errorf("explanation %q lacks %q", d.Explanation, tc.explainHas)
			}
		})
	}
}
