package mimic

import (
	"fmt"
	"strings"
)

// codeRule matches diagnoses whose ICD code of the given version starts with
// one of In (compared on the first Len characters), or whose first Len
// characters fall in [Lo, Hi] (string comparison).
type codeRule struct {
	Version int
	Len     int
	In      []string
	Lo, Hi  string
}

func in(version, n int, codes ...string) codeRule {
	return codeRule{Version: version, Len: n, In: codes}
}

func between(version, n int, lo, hi string) codeRule {
	return codeRule{Version: version, Len: n, Lo: lo, Hi: hi}
}

// comorbidity is one Charlson component: its column and its code rules.
type comorbidity struct {
	Column string
	Rules  []codeRule
}

// charlsonComorbidities are the Quan et al. (2005) ICD-9-CM and ICD-10 coding
// algorithms exactly as mimic-code's concepts/comorbidity/charlson.sql
// applies them (including its 'E10l' entry, kept for fidelity with the
// BigQuery table).
var charlsonComorbidities = []comorbidity{
	{"myocardial_infarct", []codeRule{
		in(9, 3, "410", "412"), in(10, 3, "I21", "I22"), in(10, 4, "I252")}},
	{"congestive_heart_failure", []codeRule{
		in(9, 3, "428"),
		in(9, 5, "39891", "40201", "40211", "40291", "40401", "40403", "40411", "40413", "40491", "40493"),
		between(9, 4, "4254", "4259"),
		in(10, 3, "I43", "I50"),
		in(10, 4, "I099", "I110", "I130", "I132", "I255", "I420", "I425", "I426", "I427", "I428", "I429", "P290")}},
	{"peripheral_vascular_disease", []codeRule{
		in(9, 3, "440", "441"),
		in(9, 4, "0930", "4373", "4471", "5571", "5579", "V434"),
		between(9, 4, "4431", "4439"),
		in(10, 3, "I70", "I71"),
		in(10, 4, "I731", "I738", "I739", "I771", "I790", "I792", "K551", "K558", "K559", "Z958", "Z959")}},
	{"cerebrovascular_disease", []codeRule{
		between(9, 3, "430", "438"), in(9, 5, "36234"),
		in(10, 3, "G45", "G46"), between(10, 3, "I60", "I69"), in(10, 4, "H340")}},
	{"dementia", []codeRule{
		in(9, 3, "290"), in(9, 4, "2941", "3312"),
		in(10, 3, "F00", "F01", "F02", "F03", "G30"), in(10, 4, "F051", "G311")}},
	{"chronic_pulmonary_disease", []codeRule{
		between(9, 3, "490", "505"), in(9, 4, "4168", "4169", "5064", "5081", "5088"),
		between(10, 3, "J40", "J47"), between(10, 3, "J60", "J67"),
		in(10, 4, "I278", "I279", "J684", "J701", "J703")}},
	{"rheumatic_disease", []codeRule{
		in(9, 3, "725"), in(9, 4, "4465", "7100", "7101", "7102", "7103", "7104", "7140", "7141", "7142", "7148"),
		in(10, 3, "M05", "M06", "M32", "M33", "M34"), in(10, 4, "M315", "M351", "M353", "M360")}},
	{"peptic_ulcer_disease", []codeRule{
		in(9, 3, "531", "532", "533", "534"), in(10, 3, "K25", "K26", "K27", "K28")}},
	{"mild_liver_disease", []codeRule{
		in(9, 3, "570", "571"),
		in(9, 4, "0706", "0709", "5733", "5734", "5738", "5739", "V427"),
		in(9, 5, "07022", "07023", "07032", "07033", "07044", "07054"),
		in(10, 3, "B18", "K73", "K74"),
		in(10, 4, "K700", "K701", "K702", "K703", "K709", "K713", "K714", "K715", "K717", "K760", "K762", "K763", "K764", "K768", "K769", "Z944")}},
	{"diabetes_without_cc", []codeRule{
		in(9, 4, "2500", "2501", "2502", "2503", "2508", "2509"),
		in(10, 4, "E100", "E10l", "E106", "E108", "E109", "E110", "E111", "E116", "E118", "E119", "E120", "E121", "E126", "E128",
			"E129", "E130", "E131", "E136", "E138", "E139", "E140", "E141", "E146", "E148", "E149")}},
	{"diabetes_with_cc", []codeRule{
		in(9, 4, "2504", "2505", "2506", "2507"),
		in(10, 4, "E102", "E103", "E104", "E105", "E107", "E112", "E113", "E114", "E115", "E117", "E122", "E123", "E124", "E125",
			"E127", "E132", "E133", "E134", "E135", "E137", "E142", "E143", "E144", "E145", "E147")}},
	{"paraplegia", []codeRule{
		in(9, 3, "342", "343"), in(9, 4, "3341", "3440", "3441", "3442", "3443", "3444", "3445", "3446", "3449"),
		in(10, 3, "G81", "G82"), in(10, 4, "G041", "G114", "G801", "G802", "G830", "G831", "G832", "G833", "G834", "G839")}},
	{"renal_disease", []codeRule{
		in(9, 3, "582", "585", "586", "V56"), in(9, 4, "5880", "V420", "V451"), between(9, 4, "5830", "5837"),
		in(9, 5, "40301", "40311", "40391", "40402", "40403", "40412", "40413", "40492", "40493"),
		in(10, 3, "N18", "N19"),
		in(10, 4, "I120", "I131", "N032", "N033", "N034", "N035", "N036", "N037", "N052", "N053", "N054", "N055", "N056", "N057",
			"N250", "Z490", "Z491", "Z492", "Z940", "Z992")}},
	{"malignant_cancer", []codeRule{
		between(9, 3, "140", "172"), between(9, 4, "1740", "1958"), between(9, 3, "200", "208"), in(9, 4, "2386"),
		in(10, 3, "C43", "C88"), between(10, 3, "C00", "C26"), between(10, 3, "C30", "C34"), between(10, 3, "C37", "C41"),
		between(10, 3, "C45", "C58"), between(10, 3, "C60", "C76"), between(10, 3, "C81", "C85"), between(10, 3, "C90", "C97")}},
	{"severe_liver_disease", []codeRule{
		in(9, 4, "4560", "4561", "4562"), between(9, 4, "5722", "5728"),
		in(10, 4, "I850", "I859", "I864", "I982", "K704", "K711", "K721", "K729", "K765", "K766", "K767")}},
	{"metastatic_solid_tumor", []codeRule{
		in(9, 3, "196", "197", "198", "199"), in(10, 3, "C77", "C78", "C79", "C80")}},
	{"aids", []codeRule{
		in(9, 3, "042", "043", "044"), in(10, 3, "B20", "B21", "B22", "B24")}},
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func (r codeRule) sql() string {
	col := fmt.Sprintf("substr(icd%d_code, 1, %d)", r.Version, r.Len)
	if len(r.In) == 0 {
		return fmt.Sprintf("%s BETWEEN %s AND %s", col, quote(r.Lo), quote(r.Hi))
	}
	q := make([]string, len(r.In))
	for i, code := range r.In {
		q[i] = quote(code)
	}
	if len(q) == 1 {
		return col + " = " + q[0]
	}
	return col + " IN (" + strings.Join(q, ", ") + ")"
}

// charlsonSQL builds the DuckDB statement that fills the derived charlson
// table. It follows mimic-code's definition: one row per admission (admissions
// LEFT JOIN the comorbidity flags, LEFT JOIN the age score), the age computed
// as mimic-code's derived.age does with BigQuery's year-boundary
// DATETIME_DIFF (anchor_age + year(admittime) - anchor_year), and the
// Charlson 1987 weights. Rows are ordered by hadm_id so the file is
// reproducible.
func charlsonSQL() string {
	var b strings.Builder
	fmt.Fprintf(&b, "INSERT INTO %s.charlson\nWITH diag AS (\n", DatasetDerived)
	b.WriteString("  SELECT hadm_id,\n    CASE WHEN icd_version = 9 THEN icd_code END AS icd9_code,\n    CASE WHEN icd_version = 10 THEN icd_code END AS icd10_code\n")
	fmt.Fprintf(&b, "  FROM %s.diagnoses_icd\n), com AS (\n  SELECT ad.hadm_id", DatasetHosp)
	for _, cm := range charlsonComorbidities {
		conds := make([]string, len(cm.Rules))
		for i, r := range cm.Rules {
			conds[i] = r.sql()
		}
		fmt.Fprintf(&b, ",\n    MAX(CASE WHEN %s THEN 1 ELSE 0 END) AS %s", strings.Join(conds, "\n      OR "), cm.Column)
	}
	fmt.Fprintf(&b, "\n  FROM %s.admissions ad LEFT JOIN diag ON ad.hadm_id = diag.hadm_id\n  GROUP BY ad.hadm_id\n), age AS (\n", DatasetHosp)
	fmt.Fprintf(&b, "  SELECT ad.hadm_id, pa.anchor_age + (year(ad.admittime) - pa.anchor_year) AS age\n  FROM %s.admissions ad JOIN %s.patients pa ON ad.subject_id = pa.subject_id\n", DatasetHosp, DatasetHosp)
	b.WriteString("), ag AS (\n  SELECT hadm_id, CASE WHEN age <= 50 THEN 0 WHEN age <= 60 THEN 1 WHEN age <= 70 THEN 2 WHEN age <= 80 THEN 3 ELSE 4 END AS age_score\n  FROM age\n)\n")
	b.WriteString("SELECT ad.subject_id, ad.hadm_id, ag.age_score")
	for _, cm := range charlsonComorbidities {
		b.WriteString(", com." + cm.Column)
	}
	b.WriteString(",\n  ag.age_score + com.myocardial_infarct + com.congestive_heart_failure + com.peripheral_vascular_disease\n" +
		"  + com.cerebrovascular_disease + com.dementia + com.chronic_pulmonary_disease + com.rheumatic_disease + com.peptic_ulcer_disease\n" +
		"  + greatest(com.mild_liver_disease, 3 * com.severe_liver_disease)\n" +
		"  + greatest(2 * com.diabetes_with_cc, com.diabetes_without_cc)\n" +
		"  + greatest(2 * com.malignant_cancer, 6 * com.metastatic_solid_tumor)\n" +
		"  + 2 * com.paraplegia + 2 * com.renal_disease + 6 * com.aids AS charlson_comorbidity_index\n")
	fmt.Fprintf(&b, "FROM %s.admissions ad\nLEFT JOIN com ON ad.hadm_id = com.hadm_id\nLEFT JOIN ag ON com.hadm_id = ag.hadm_id\nORDER BY ad.hadm_id", DatasetHosp)
	return b.String()
}
