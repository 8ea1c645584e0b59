package codecheck

import (
	"os"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/rubric"
	"github.com/clinsql/clinsql/runfolder"
)

func TestTokens(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"avg_length_of_stay_days", "mean los day"},
		{"mean_los_days", "mean los day"},
		{"meanLOS", "mean los"},
		{"p75_los_days", "p75 los day"},
		{"percentile_75_glucose", "p75 glucose"},
		{"75th percentile of admission glucose", "p75 admission glucose"},
		{"q3_risk_score", "p75 risk score"},
		{"median_los", "p50 los"},
		{"stddev_sbp", "sd sbp"},
		{"in_hospital_mortality_pct", "hosp mortality pct"},
		{"mortality_rate_90_day_perc", "mortality pct 90 pct"},
		{"prevalence_first48", "prevalence first 48"},
		{"prevalence_pct_first_48h", "prevalence pct first 48"},
		{"percentile_90bpm", "prank 90 bpm"},
		{"calculated percentile for a heart rate of 90 bpm", "prank hr 90 bpm"},
		{"num_patients", "count patient"},
		{"iqr_25", "p25"},
		{"ninety_day_mortality", "90 day mortality"},
	} {
		if got := strings.Join(Tokens(tc.in), " "); got != tc.want {
			t.Errorf("Tokens(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestIdentifiers(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Primary Column Exists (e.g., `p75_cardiac_procedures`, `percentile_75_count`)", "p75_cardiac_procedures percentile_75_count"},
		{"Column exists for hospital mortality (e.g., 'in_hospital_mortality_pct', 'mortality_rate')", "in_hospital_mortality_pct mortality_rate"},
		{"Exists column for admission counts (e.g., count_of_admissions)", "count_of_admissions"},
		{"Column for patient counts exists (e.g., 'patient_count', 'count')", "patient_count count"},
		{"Column exists for 75th percentile of laboratory instability score", ""},
		{"Validation of 'Septic Shock' group metrics", ""},
	} {
		if got := strings.Join(Identifiers(tc.in), " "); got != tc.want {
			t.Errorf("Identifiers(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// resultsLeaf builds the usual results tree around one leaf and returns the
// leaf: root > category > [parent >] leaf.
func resultsLeaf(t *testing.T, category, parent, text string) *rubric.Node {
	t.Helper()
	return resultsLeafBeside(t, category, parent, text, "")
}

// resultsLeafBeside is resultsLeaf with a sibling of the parent (a leaf)
// whose requirement is sibling, when not "".
func resultsLeafBeside(t *testing.T, category, parent, text, sibling string) *rubric.Node {
	t.Helper()
	leaf := `{"id":"the-leaf","requirements":` + quote(text) + `,"sub_tasks":[]}`
	inner := leaf
	if parent != "" {
		inner = `{"id":"the-parent","requirements":` + quote(parent) + `,"sequential":true,"sub_tasks":[` + leaf + `]}`
	}
	if sibling != "" {
		inner += `,{"id":"the-sibling","requirements":` + quote(sibling) + `,"sub_tasks":[]}`
	}
	doc := `{"id":"root","requirements":"Results Validation","sub_tasks":[{"id":"cat","requirements":` + quote(category) +
		`,"sequential":true,"sub_tasks":[` + inner + `]}]}`
	tr, err := rubric.Parse([]byte(doc), "test.json", rubric.JSON)
	if err != nil {
		t.Fatal(err)
	}
	return tr.Root.Find("the-leaf")
}

func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

func table(t *testing.T, csv string) *Answer {
	t.Helper()
	tb, err := ReadCSV(strings.NewReader(csv), MaxTableRows)
	if err != nil {
		t.Fatal(err)
	}
	return &Answer{SQL: "SELECT 1", Executed: true, RowCount: tb.TotalRows, Table: tb}
}

const (
	format = "Output Format Validation"
	values = "Clinical Value Validation"
)

func TestCheck(t *testing.T) {
	failed := &Answer{SQL: "SELECT x FROM y", Error: "400 Unrecognized name: x"}
	empty := &Answer{SQL: "SELECT 1 WHERE FALSE", Executed: true, Placeholder: true}
	none := &Answer{}
	absent := &Answer{SQL: "SELECT *", Executed: true, RowCount: 989918} // the release lacks this result file
	for _, tc := range []struct {
		name          string
		category      string
		parent, text  string
		sibling       string
		answer        *Answer
		csv           string
		kind          LeafKind
		decided, pass bool
		explainHas    string
	}{
		// CSV exists means: the query ran and returned at least one row.
		{name: "csv ok", category: format, text: "CSV File Exists", csv: "a\n1\n", kind: KindCSV, decided: true, pass: true, explainHas: "1 row(s) x 1 column(s)"},
		{name: "csv failed query", category: format, text: "CSV File Exists", answer: failed, kind: KindCSV, decided: true, explainHas: "query failed (400 Unrecognized name"},
		{name: "csv placeholder", category: format, text: "CSV File Exists", answer: empty, kind: KindCSV, decided: true, explainHas: "no rows"},
		{name: "csv absent file with rows", category: format, text: "CSV File Exists", answer: absent, kind: KindCSV, decided: true, pass: true, explainHas: "989918 row(s)"},
		{name: "band absent file", category: values, parent: "Validation", text: "Acceptable Range (2-5)", answer: absent, kind: KindBand, explainHas: "not in the run"},
		{name: "csv no sql", category: format, text: "The CSV file is generated.", answer: none, kind: KindCSV, decided: true, explainHas: "no SQL was produced"},

		// Columns: exact and spelling-equal names pass; unrelated fail;
		// related but different names go to the judge.
		{name: "column exact", category: format, parent: "Column Name Exists", text: "Primary Column Exists (e.g., `p75_cardiac_procedures`, `percentile_75_count`)",
			csv: "p75_cardiac_procedures\n3\n", kind: KindColumn, decided: true, pass: true, explainHas: `"p75_cardiac_procedures" is named as required`},
		{name: "column case and separators", category: format, parent: "Column Name Exists", text: "Column exists for mean LOS (e.g., 'Mean_LOS_Days')",
			csv: "meanlosdays\n3\n", kind: KindColumn, decided: true, pass: true},
		{name: "column synonyms", category: format, parent: "Column Name Exists", text: "Exists a column for average length of stay (e.g., 'avg_length_of_stay_days')",
			csv: "quartile,mean_los_days\n1,3\n", kind: KindColumn, decided: true, pass: true, explainHas: "up to spelling"},
		{name: "column reordered", category: format, parent: "Column Name Exists", text: "Column Exists for 'p75_los'",
			csv: "los_p75\n3\n", kind: KindColumn, decided: true, pass: true, explainHas: "same quantity"},
		{name: "column same words without qualifiers", category: format, parent: "Column Name Exists", text: "Column exists for in-hospital mortality rate (e.g., 'in_hospital_mortality_rate_pct')",
			csv: "n,mortality_percent\n10,3.5\n", kind: KindColumn, decided: true, pass: true, explainHas: `"mortality_percent" names the same quantity as "in_hospital_mortality_rate_pct"`},
		{name: "column related spelling", category: format, parent: "Column Name Exists", text: "Column Exists for Neurologic Complication Rate (e.g., neuro_complication_rate_pct)",
			csv: "quintile,mortality_rate,neurologic_complication_rate\n1,3,4\n", kind: KindColumn, decided: true, pass: true, explainHas: "neurologic_complication_rate"},
		{name: "column from the description", category: format, parent: "Column Name Exists", text: "Column exists for minimum first troponin",
			csv: "patient_count,min_first_troponin\n1,3\n", kind: KindColumn, decided: true, pass: true, explainHas: "the description"},
		{name: "column another grouping goes to the judge", category: format, parent: "Column Name Exists", text: "Column 'metric_type' or similar must exist",
			csv: "cohort_type,n_patients\nA,3\n", kind: KindColumn},
		{name: "column in another time unit goes to the judge", category: format, parent: "Column Name Exists", text: "Column exists for top decile average ICU LOS (e.g., 'top_decile_avg_icu_los_days')",
			csv: "avg_icu_los_hours_top_decile\n30\n", kind: KindColumn},
		{name: "column another window goes to the judge", category: format, parent: "Column Name Exists", text: "Column exists for 30-day mortality rate (e.g., 'mortality_30_day_rate_pct')",
			csv: "n,mortality_percent\n10,3.5\n", kind: KindColumn},
		{name: "column another statistic goes to the judge", category: format, parent: "Column Name Exists", text: "Column Exists: Median Initial Troponin T (e.g., 'median_initial_troponin_t')",
			csv: "patient_count,mean_initial_troponin\n10,3.5\n", kind: KindColumn},
		{name: "column absent", category: format, parent: "Column Name Exists", text: "Column exists for RRT percentage (e.g., 'rrt_prevalence_pct')",
			csv: "time_window,basal_count,bolus_count\nfirst,1,2\n", kind: KindColumn, decided: true, explainHas: "no column relates"},
		{name: "column quartiles for an IQR go to the judge", category: format, parent: "Column Name Exists", text: "Primary Column Exists (related to IQR of mechanical circulatory support procedures)",
			csv: "Q1,Q3\n,\n", kind: KindColumn},
		{name: "column percentile_70 for a rank goes to the judge", category: format, parent: "Column Name Exists", text: "Primary Column Exists for Percentile Rank",
			csv: "percentile_70,mean_los\n40,3\n", kind: KindColumn},
		{name: "column grouping goes to the judge", category: format, parent: "Column Name Exists", text: "Exists a column for discharge grouping (e.g., 'discharge_group', 'destination')",
			csv: "outcome,mean_los\nhome,3\n", kind: KindColumn},
		{name: "column long format goes to the judge", category: format, parent: "Column Name Exists", text: "A column representing the mean ICU length of stay exists.",
			csv: "metric,value\nMean ICU LOS (days),3.2\n", kind: KindColumn},
		{name: "column nothing named", category: format, parent: "Column Name Exists", text: "Secondary Column Exists (if applicable)",
			csv: "a\n1\n", kind: KindColumn},

		// No NULL values.
		{name: "nulls none", category: format, text: "No NULL/Empty Values in answer-relevant columns", csv: "a,b\n1,x\n", kind: KindNoNull, decided: true, pass: true},
		{name: "nulls unscoped", category: format, text: "No NULL/Empty Values", csv: "a,b\n1,\n", kind: KindNoNull, decided: true, explainHas: "b (1)"},
		{name: "nulls NaN", category: format, text: "No NULL/Empty Values", csv: "a\nNaN\n", kind: KindNoNull, decided: true},
		{name: "nulls in named column", category: format, text: "No NULL/Empty values in key columns (`procedures_median`, `procedures_iqr`)",
			csv: "procedures_median,procedures_iqr\n3,\n", kind: KindNoNull, decided: true, explainHas: "procedures_iqr (1)"},
		{name: "nulls elsewhere than the named column", category: format, text: "No NULL/Empty Values in the `stddev_sbp` column",
			csv: "stddev_sbp,note\n3,\n", kind: KindNoNull},
		{name: "nulls allowed by the leaf", category: format, text: "No unexpected NULL/Empty values. It is acceptable for `diff` to be empty for the reference group.",
			csv: "group,diff\nref,\n", kind: KindNoNull},
		{name: "nulls in a vaguely scoped leaf", category: format, text: "No NULL/Empty Values in answer-relevant columns", csv: "a,b\n1,\n", kind: KindNoNull},

		// Bands, bound through the parent's text.
		{name: "band in", category: values, parent: "Exist Column Related to 75th percentile of distinct cardiac procedures", text: "Clinically Plausible (0-20)",
			csv: "p75_cardiac_procedures\n3\n", kind: KindBand, decided: true, pass: true, explainHas: "p75_cardiac_procedures = 3 lies within [0, 20]"},
		{name: "band out", category: values, parent: "Exist Column Related to 75th percentile of distinct cardiac procedures", text: "Acceptable Range (2-5)",
			csv: "p75_cardiac_procedures\n7\n", kind: KindBand, decided: true, explainHas: "outside [2, 5]"},
		{name: "band bound by name among several", category: values, parent: "Validate column for in-hospital mortality percentage (e.g., 'mortality_rate_pct')", text: "Clinically Plausible (0.0 - 60.0)",
			csv: "n,mean_los,mortality_rate_pct\n100,4.5,12.5\n", kind: KindBand, decided: true, pass: true, explainHas: "mortality_rate_pct = 12.5"},
		{name: "band bound by description", category: values, parent: "Validation for average length of stay (days)", text: "Acceptable Range (2.0-15.0)",
			csv: "complexity_tertile,n,mean_los,mortality_pct\n1,10,4.72,1\n2,10,4.01,2\n", kind: KindBand, decided: true, pass: true},
		{name: "band every row", category: values, parent: "Validate Mean LOS Values", text: "Acceptable Range (4-12 days)",
			csv: "outcome,mean_los\nhome,5.4\nfacility,14\n", kind: KindBand},
		{name: "band row named by the parent", category: values, parent: "Validate 'percent_los_lte_10' for 'Discharged Home' group.", text: "Acceptable Range (85.0-95.0 %)",
			csv: "discharge_category,n,pct_los_le_10_days\nDied in Hospital,1065,57.6\nDischarged Home,14123,88.8\n", kind: KindBand, decided: true, pass: true, explainHas: "88.8"},
		{name: "band labelled per row", category: values, parent: "Validation of the discharge groups' share with LOS <= 7 days (pct_los_le_7)", text: "Values are within an acceptable range (Home: 60-95%, Facility: 30-70%)",
			csv: "group,pct_los_le_7\nHome,79\nFacility,55\n", kind: KindBand, decided: true, pass: true},
		{name: "band scale ambiguous", category: values, parent: "Validation of in-hospital mortality (%)", text: "Acceptable Range (10-50%)",
			csv: "in_hospital_mortality\n0.35\n", kind: KindBand},
		{name: "band unit conflict", category: values, parent: "Validate column for Hospital Length of Stay (Days)", text: "Acceptable Range (5-40)",
			csv: "group,avg_hospital_los_hours\na,233.4\n", kind: KindBand},
		{name: "band time unit unstated", category: values, parent: "Median time to death for the cohort", text: "Clinically Plausible (8-60)",
			csv: "n,median_time_to_death_hours\n10,428\n", kind: KindBand, explainHas: "hours"},
		{name: "band leading statistic", category: values, parent: "Validation for the column 'iqr_of_stay_averages'.", text: "Clinically Plausible: IQR values for all categories are between 1 and 20.",
			csv: "map_category,stay_count,mean_mean_map,q1_mean_map,q3_mean_map\n<65,10,60.5,55,66\n", kind: KindBand},
		{name: "band indicator column is no value", category: values, parent: "Validate Value for DKA ARDS Rate (e.g., dka_cohort_ards_rate_pct)", text: "Clinically Plausible (0-100)",
			csv: "is_dka,ards_rate\n0,0.27\n", kind: KindBand, decided: true, pass: true, explainHas: "ards_rate = 0.27"},
		{name: "band null value", category: values, parent: "Exist Column Related to p25 of LOS", text: "Clinically Plausible (0-20)",
			csv: "p25_los,n\n,5\n", kind: KindBand, decided: true, explainHas: "no value"},
		{name: "band all null", category: values, parent: "Validation for something", text: "Clinically Plausible (0-20)",
			csv: "a,b\n,\n", kind: KindBand, decided: true, explainHas: "every cell is NULL"},
		{name: "band only column", category: values, parent: "Validate the computed statistic", text: "Clinically Plausible (0-100)",
			csv: "value\n42\n", kind: KindBand, decided: true, pass: true},
		{name: "band unbound", category: values, parent: "Validate the cohort's risk", text: "Clinically Plausible (0-100)",
			csv: "a_score,b_score\n1,2\n", kind: KindBand},
		{name: "band tie with the same verdict", category: values, parent: "Validation of the 'initiation_prevalence_first_72h_pct' column values.", text: "Clinically Plausible (0-100)",
			csv: "insulin_first_72h_pct,oral_first_72h_pct\n40,12\n", kind: KindBand, decided: true, pass: true, explainHas: "whichever"},
		{name: "band tie with different verdicts", category: values, parent: "Validation of the 'initiation_prevalence_first_72h_pct' column values.", text: "Acceptable Range (20-90)",
			csv: "insulin_first_72h_pct,oral_first_72h_pct\n40,12\n", kind: KindBand},
		// Issue 16's error classes, rebuilt from the scanned decisions.
		{name: "band fraction against a percent band", category: values, parent: "Share of admissions on mechanical ventilation", text: "Clinically Plausible (0-70%)",
			csv: "cohort,ventilated\nA,1.0\nB,0.9996\n", kind: KindBand, explainHas: "fraction or as a percentage"},
		{name: "band fraction against a (%) band", category: values, parent: "Complication rate (%)", text: "Acceptable Range (%) 0-60",
			csv: "complication_rate\n0.72\n", kind: KindBand, explainHas: "fraction or as a percentage"},
		{name: "band named fraction is scaled", category: values, parent: "Share of admissions on mechanical ventilation", text: "Clinically Plausible (0-70%)",
			csv: "mv_fraction\n0.9996\n", kind: KindBand, decided: true, explainHas: "fractions, lies outside"},
		{name: "band fraction both readings agree", category: values, parent: "Share of admissions on mechanical ventilation", text: "Clinically Plausible (0-70%)",
			csv: "mv_rate\n0.25\n", kind: KindBand, decided: true, pass: true},
		{name: "band median ttd among death counts", category: values, parent: "Median time to death for 'Sepsis'", text: "Acceptable Range (1-30 days)",
			csv: "group,deaths_los_le_7,deaths_los_gt_7,median_ttd_days\nSepsis,129,161,3.08\nShock,100,120,18.48\n", kind: KindBand, decided: true, pass: true, explainHas: "median_ttd_days = 3.08"},
		{name: "band empty cohort rate", category: values, parent: "In-hospital mortality rate", text: "Clinically Plausible (0-100%)",
			csv: "deaths,total_admissions,mortality_rate\n0,0,0.0\n", kind: KindBand, decided: true, explainHas: "empty cohort"},
		{name: "band zero rate of a real cohort", category: values, parent: "In-hospital mortality rate", text: "Clinically Plausible (0-100%)",
			csv: "deaths,total_admissions,mortality_rate\n0,50,0.0\n", kind: KindBand, decided: true, pass: true},
		{name: "band IQR not a mean", category: values, parent: "IQR of mortality", text: "Clinically Plausible (0-100)",
			csv: "average_mortality_rate\n12.5\n", kind: KindBand, explainHas: "computes the IQR"},
		{name: "band id column is no value", category: values, parent: "Validate respiratory rate", text: "Clinically Plausible (10-30)",
			csv: "itemid,label\n220210,RR\n", kind: KindBand, explainHas: "no numeric column"},
		{name: "band stratum by comparison", category: values, parent: "Median time to death with LOS > 7 days for 'Sepsis'", text: "Clinically Plausible (8-60)",
			csv: "diagnosis_group,n_los_le_7,n_los_gt_7,median_time_to_death_los_le_7,median_time_to_death_los_gt_7\nSepsis,10,12,3,22\n", kind: KindBand, decided: true, pass: true, explainHas: "median_time_to_death_los_gt_7 = 22 lies"},
		{name: "band rate not a count", category: values, parent: "Validate mortality rate (e.g., 'mortality_pct')", text: "Clinically Plausible (0-40)",
			csv: "group,n_deaths,mortality_pct\nA,300,12.5\n", kind: KindBand, decided: true, pass: true, explainHas: "mortality_pct = 12.5"},
		// Rows bound by the group the text names, unquoted. A one-group
		// result of a group the rubric names elsewhere may be the group
		// the leaf is about, unnamed, or another: the judge's call
		// (issue 27; it failed such leaves before).
		{name: "band row named without quotes", category: values, parent: "Validate Value for DKA Survivor LOS (e.g., dka_cohort_survivor_los_days)", text: "Acceptable Range (4-20)",
			csv: "cohort_type,mean_survivor_los,n\nGeneral,3.1,62762\nDKA,5.4,120\n", kind: KindBand, decided: true, pass: true, explainHas: "mean_survivor_los = 5.4 lies"},
		{name: "band another group's row", category: values, parent: "Validate Value for DKA Survivor LOS (e.g., dka_cohort_survivor_los_days)", text: "Acceptable Range (4-20)",
			sibling: "Validate Value for General Cohort Survivor LOS", csv: "cohort_type,mean_survivor_los,n\nGeneral,5.4,62762\n", kind: KindBand, explainHas: `one group, "General", which the rubric names elsewhere`},
		{name: "band rows of a negated group", category: values, parent: "Validation of 'initiation_rate_final_48h_pct' column", text: "Non-insulin oral agent initiation rates near discharge are in the acceptable range (e.g., 0.0-10.0)",
			csv: "medication_class,final_48h_percent\nInsulin,34.11\nMetformin,3.49\nSulfonylurea,2.45\n", kind: KindBand, decided: true, pass: true, explainHas: "final_48h_percent = 3.49, 2.45 lies"},
		{name: "band age range is the cohort's", category: values, parent: "Validation for the total number of admissions in the specified cohort.", text: "The total number of admissions for this specific Medicare cohort (female, 63-73, transfer, atrial fibrillation) is expected to be a moderate number.",
			csv: "total_admissions\n45\n", kind: KindBand, explainHas: "age range"},
		{name: "band zero rates without counts", category: values, parent: "Validate the value in the column 'prevalence_pct_first_48h'.", text: "Acceptable Range (0.0 - 2.0)",
			csv: "prevalence_first_48h,prevalence_final_12h,absolute_pp_difference\n0,0,0\n", kind: KindBand, decided: true, pass: true},
		{name: "band one row of another group with qualifiers", category: values, parent: "Validate Value for DKA 30d Mortality Rate (e.g., dka_cohort_30d_mortality_rate_pct)", text: "Clinically Plausible (0-100)",
			sibling: "Validate Value for General Cohort 30d Mortality Rate", csv: "cohort,thirty_day_mortality_rate_pct\n\"General (59-69, M)\",4.03\n", kind: KindBand, explainHas: "one group"},
		{name: "band IQR not on the quartiles", category: values, parent: "Validation for the column 'iqr_of_stay_averages'.", text: "Clinically Plausible: IQR values for all categories are between 1 and 20.",
			csv: "map_category,stay_count,mean_of_mean_map,median_of_mean_map,iqr_25,iqr_75\n<65,10,60.5,60,59.63,63.87\n", kind: KindBand, explainHas: "computes the IQR"},
		{name: "band without result", category: values, parent: "Validation", text: "Acceptable Range (2-5)", answer: failed, kind: KindBand, decided: true},

		// Issue 16, deciding more: a column named by its statistic alone,
		// the grouping a requirement describes, confidence intervals,
		// prevalence and hospital as qualifiers.
		{name: "column bare statistic", category: format, parent: "Column Name Exists", text: "Column exists for the 75th percentile of Troponin-T (e.g., 'p75_troponin_t', 'q3_troponin').",
			csv: "n,mean,sd,min,max,p25,median,p75\n10,1,0.5,0.1,3,0.4,0.8,1.2\n", kind: KindColumn, decided: true, pass: true, explainHas: `"p75" is the only column computing`},
		{name: "column bare count", category: format, parent: "Column Name Exists", text: "Column exists for number of patients (e.g., 'num_patients', 'n_patients')",
			csv: "n,mean_los\n10,4.5\n", kind: KindColumn, decided: true, pass: true, explainHas: `"n" is the only column`},
		{name: "column bare count of another thing goes to the judge", category: format, parent: "Column Name Exists", text: "Column exists for number of deaths (e.g., 'death_count')",
			csv: "n,mortality_pct\n10,4.5\n", kind: KindColumn},
		{name: "band bare count of another thing goes to the judge", category: values, parent: "Validation for number of deaths", text: "Acceptable Range (10-50)",
			csv: "n,mean_los,mortality_pct\n30,4.5,3\n", kind: KindBand},
		{name: "column bare statistic beside a named one goes to the judge", category: format, parent: "Column Name Exists", text: "Column exists for the 75th percentile of Troponin-T (e.g., 'p75_troponin_t')",
			csv: "p75,p75_los\n1.2,5\n", kind: KindColumn},
		{name: "column bare statistic of a long result goes to the judge", category: format, parent: "Column Name Exists", text: "Column exists for final 24h prevalence (e.g., 'prevalence_pct_final_24h')",
			csv: "time_window,percentage\nFirst 24h,3\nFinal 24h,4\n", kind: KindColumn},
		{name: "column grouping named otherwise", category: format, parent: "Column Name Exists", text: "Column for LOS stratification exists (e.g., 'los_group')",
			csv: "LOS_Bin,ICU_Status,Admission_Count\n1-4,ICU,14\n5-8,ICU,35\n", kind: KindColumn, decided: true, pass: true, explainHas: `"LOS_Bin" holds group labels`},
		{name: "column grouping by number", category: format, parent: "Column Name Exists", text: "Exists column for tertile stratification (e.g., complexity_tertile)",
			csv: "tertile,admissions\n1,46\n2,50\n3,48\n", kind: KindColumn, decided: true, pass: true, explainHas: `"tertile" holds group labels`},
		{name: "column grouping of measured values goes to the judge", category: format, parent: "Column Name Exists", text: "Column for LOS stratification exists (e.g., 'los_group')",
			csv: "mean_los,n\n4.5,10\n", kind: KindColumn},
		{name: "column prevalence as a rate", category: format, parent: "Column Name Exists", text: "Primary column exists for mechanical ventilation prevalence (e.g., mech_vent_prevalence_percent)",
			csv: "los_group,total_patients,mortality_pct,mech_vent_pct\nA,10,3,4\n", kind: KindColumn, decided: true, pass: true, explainHas: `"mech_vent_pct"`},
		{name: "column hospital stay is the stay", category: format, parent: "Column Name Exists", text: "Primary Column Exists for 25th percentile of hospital length of stay",
			csv: "los_25th_percentile\n3\n", kind: KindColumn, decided: true, pass: true, explainHas: `"los_25th_percentile"`},
		{name: "band bare statistic", category: values, parent: "Validation of the Interquartile Range of In-Hospital Mortality", text: "Clinically Plausible (0.0-1.0)",
			csv: "p25,p75,iqr,total_encounters\n0,0.1,0.1,51217\n", kind: KindBand, decided: true, pass: true, explainHas: "iqr = 0.1 lies"},
		{name: "band confidence interval bounds, not the estimate", category: values, parent: "Validation for 95% Confidence Intervals for mortality", text: "Confidence interval bounds are within an acceptable range (1.0-20.0%) and the upper bound is greater than the lower bound.",
			csv: "los_group,total,deaths,mortality_percent,ci_lower,ci_upper\n1-3,4121,150,3.64,14999.43,15000.57\n4-7,4126,186,4.51,18599.37,18600.63\n", kind: KindBand, decided: true, explainHas: "ci_lower"},
		{name: "band row of a statistic is not the group's", category: values, parent: "Validate mean instability score for top quartile (e.g., avg_instability_score_in_top_quartile)", text: "Clinically Plausible (0 to 1)",
			csv: "group_type,ischemic_stroke,N,mean_instability\n95th_percentile_instability,,,350.3\nischemic_stroke,1,17,500.2\n", kind: KindBand, decided: true, explainHas: "350.3, 500.2"},
		{name: "band confidence interval without bounds goes to the judge", category: values, parent: "Validation for 95% Confidence Intervals for mortality", text: "Confidence interval bounds are plausible (0.1-30.0%).",
			csv: "los_category,total_patients,deaths,mortality_percent\n1-3,4121,150,3.64\n", kind: KindBand, explainHas: "confidence interval"},

		// Other value leaves: decided only without a result.
		{name: "other", category: values, parent: "Validation of relative differences", text: "Shock cohort has higher mean hypotension burden than No-Shock cohort",
			csv: "shock,burden\nyes,3\nno,1\n", kind: KindOther},
		{name: "other without result", category: values, parent: "Validation of relative differences", text: "Shock cohort has higher burden", answer: empty, kind: KindOther, decided: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leaf := resultsLeafBeside(t, tc.category, tc.parent, tc.text, tc.sibling)
			a := tc.answer
			if a == nil {
				a = table(t, tc.csv)
			}
			d := Check(leaf, a)
			if d.Kind != tc.kind || d.Decided != tc.decided || (d.Decided && d.Pass != tc.pass) {
				t.Fatalf("Check = kind %s decided %v pass %v (%s), want %s %v %v", d.Kind, d.Decided, d.Pass, d.Explanation, tc.kind, tc.decided, tc.pass)
			}
			if !strings.Contains(d.Explanation, tc.explainHas) {
				t.Errorf("explanation %q lacks %q", d.Explanation, tc.explainHas)
			}
			if d.Decided && d.Evidence == nil {
				t.Errorf("a decision without evidence")
			}
		})
	}
}

func TestPlaceholder(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := dir + "/" + name
		if err := writeFile(p, body); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ph := write("ph.csv", "result\n\"\"\n")
	phCRLF := write("phcrlf.csv", "result\r\n\"\"\r\n")
	real := write("real.csv", "p25\n\"\"\n")
	for _, tc := range []struct {
		name        string
		file        string
		success     bool
		rows        int
		placeholder bool
		hasResult   bool
	}{
		{"failed run", ph, false, 0, true, false},
		{"empty run", phCRLF, true, 0, true, false},
		{"real NULL row named result", ph, true, 1, false, true},
		{"real NULL row", real, true, 1, false, true},
	} {
		o := &runfolder.Output{ResultCSV: tc.file, Summary: runfolder.ExecutionSummary{FinalSQL: "SELECT 1", ExecutionSuccess: tc.success, RowCount: int64(tc.rows)}}
		a := LoadAnswer(o, "q")
		if a.Placeholder != tc.placeholder || a.HasResult() != tc.hasResult {
			t.Errorf("%s: placeholder %v has result %v", tc.name, a.Placeholder, a.HasResult())
		}
	}
}

func writeFile(p, body string) error { return os.WriteFile(p, []byte(body), 0o644) }
