package mimic

import (
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/runfolder"
)

// Project is the BigQuery project that hosts MIMIC-IV.
const Project = "physionet-data"

// Datasets of MIMIC-IV v3.1 on BigQuery. The DuckDB database built by [Build]
// has one schema of the same name for each, so `physionet-data.<dataset>.<table>`
// maps onto <dataset>.<table>.
const (
	DatasetHosp    = "mimiciv_3_1_hosp"
	DatasetICU     = "mimiciv_3_1_icu"
	DatasetDerived = "mimiciv_3_1_derived"
)

// BigQuery column types used by the schema.
const (
	Int64    executor.Type = "INT64"
	Float64  executor.Type = "FLOAT64"
	String   executor.Type = "STRING"
	Date     executor.Type = "DATE"
	Datetime executor.Type = "DATETIME"
)

// Column is one column of a MIMIC-IV table.
type Column struct {
	Name string
	Type executor.Type
	// Note explains a column that is easy to confuse with another one (empty
	// for most columns).
	Note string
}

// Table is one MIMIC-IV table.
type Table struct {
	Dataset     string // DatasetHosp, DatasetICU or DatasetDerived
	Name        string
	Description string
	Columns     []Column
	// Module is the folder of the PhysioNet CSV release holding the table's
	// file ("hosp", "icu"); empty for derived tables, which are computed.
	Module string
	// StoreOrder is the column the build stores the table's rows in order
	// of, or "". DuckDB keeps each row group's minimum and maximum per
	// column (zone maps) and skips the row groups a filter on that column
	// cannot match, so a table stored by itemid serves "itemid IN (...)"
	// by reading the groups of those items only. Rows in a table have no
	// order in SQL, so this changes no query's answer: a query whose
	// result depends on the order of rows (ties under ORDER BY, LIMIT
	// without ORDER BY) is as undetermined on BigQuery.
	StoreOrder string
}

// FullName is "<dataset>.<table>", the DuckDB spelling.
func (t *Table) FullName() string { return t.Dataset + "." + t.Name }

// BigQueryName is "physionet-data.<dataset>.<table>".
func (t *Table) BigQueryName() string { return Project + "." + t.Dataset + "." + t.Name }

// Column returns the named column, or nil.
func (t *Table) Column(name string) *Column {
	for i := range t.Columns {
		if t.Columns[i].Name == name {
			return &t.Columns[i]
		}
	}
	return nil
}

// Schema is a set of tables.
type Schema struct {
	Tables []*Table
}

// Table returns the named table, or nil.
func (s *Schema) Table(dataset, name string) *Table {
	for _, t := range s.Tables {
		if t.Dataset == dataset && t.Name == name {
			return t
		}
	}
	return nil
}

// Dataset returns the tables of one dataset in schema order.
func (s *Schema) Dataset(dataset string) []*Table {
	var out []*Table
	for _, t := range s.Tables {
		if t.Dataset == dataset {
			out = append(out, t)
		}
	}
	return out
}

func c(name string, t executor.Type, note ...string) Column {
	col := Column{Name: name, Type: t}
	if len(note) > 0 {
		col.Note = note[0]
	}
	return col
}

func hosp(name, desc string, cols ...Column) *Table {
	return &Table{Dataset: DatasetHosp, Module: "hosp", Name: name, Description: desc, Columns: cols}
}

func icu(name, desc string, cols ...Column) *Table {
	return &Table{Dataset: DatasetICU, Module: "icu", Name: name, Description: desc, Columns: cols}
}

// ordered sets t's StoreOrder to col, which must be one of its columns.
func ordered(col string, t *Table) *Table {
	if t.Column(col) == nil {
		panic("mimic: " + t.FullName() + " has no column " + col + " to store its rows by")
	}
	t.StoreOrder = col
	return t
}

// Notes shared by many tables.
const (
	noteSubject  = "patient identifier; one patient has many admissions"
	noteHadm     = "hospital admission identifier; NULL for events outside an admission"
	noteStay     = "ICU stay identifier (icu tables); one admission may have several ICU stays, so join ICU tables on stay_id, hospital tables on hadm_id"
	noteItemICU  = "ICU item identifier: look up in mimiciv_3_1_icu.d_items (not d_labitems)"
	noteItemLab  = "lab item identifier: look up in mimiciv_3_1_hosp.d_labitems (not icu d_items)"
	noteChart    = "when the measurement was taken (use this for clinical timing)"
	noteStore    = "when the value was recorded in the system, after charttime"
	noteValue    = "value as text; numeric values are in valuenum"
	noteValuenum = "numeric value, NULL when value is not numeric"
	noteUOM      = "unit of measurement of value/valuenum"
	noteICDCode  = "ICD code as a string without dots (e.g. '4280', 'I509'); meaning depends on icd_version"
	noteICDVer   = "9 or 10: ICD-9-CM or ICD-10-CM/PCS; always filter codes together with their version"
	noteSeq      = "priority order of the code within the admission (1 = primary)"
	noteCaregver = "caregiver who documented the event (icu.caregiver)"
	noteProvider = "provider identifier, a string such as 'P003F3' (hosp.provider)"
)

// V31Patients is the number of patients in MIMIC-IV v3.1 (hosp.patients):
// a database holding far fewer is a sample, such as the 100-patient demo.
const V31Patients = runfolder.MIMICIVPatients

// V31 is the MIMIC-IV v3.1 schema as published on BigQuery: every hosp and
// icu table with its columns and BigQuery types (after MIT-LCP/mimic-code
// mimic-iv/buildmimic/bigquery/schemas and the v3.1 CSV headers), plus the
// derived table mimiciv_3_1_derived.charlson. Code columns (icd_code, ndc,
// drg_code, hcpcs_cd, gsn, ...) are STRING; identifier columns are INT64
// except the string ids poe_id, emar_id and the provider ids.
var V31 = &Schema{Tables: []*Table{
	// hosp module.
	hosp("admissions", "one row per hospital admission (hadm_id)",
		c("subject_id", Int64, noteSubject), c("hadm_id", Int64, "hospital admission identifier (primary key)"),
		c("admittime", Datetime, "admission time"), c("dischtime", Datetime, "discharge time"),
		c("deathtime", Datetime, "in-hospital death time, NULL if the patient survived the admission"),
		c("admission_type", String), c("admit_provider_id", String, noteProvider), c("admission_location", String),
		c("discharge_location", String), c("insurance", String), c("language", String), c("marital_status", String),
		c("race", String), c("edregtime", Datetime, "emergency department registration time"),
		c("edouttime", Datetime, "emergency department discharge time"),
		c("hospital_expire_flag", Int64, "1 if the patient died during this admission, else 0")),
	hosp("d_hcpcs", "dictionary of HCPCS (CPT) codes used in hcpcsevents",
		c("code", String, "HCPCS code (hcpcsevents.hcpcs_cd)"), c("category", Int64), c("long_description", String), c("short_description", String)),
	hosp("d_icd_diagnoses", "dictionary of ICD-9 and ICD-10 diagnosis codes",
		c("icd_code", String, noteICDCode), c("icd_version", Int64, noteICDVer), c("long_title", String)),
	hosp("d_icd_procedures", "dictionary of ICD-9 and ICD-10 procedure codes",
		c("icd_code", String, noteICDCode), c("icd_version", Int64, noteICDVer), c("long_title", String)),
	hosp("d_labitems", "dictionary of laboratory items (labevents.itemid)",
		c("itemid", Int64, noteItemLab), c("label", String), c("fluid", String), c("category", String)),
	hosp("diagnoses_icd", "billed ICD diagnoses per admission",
		c("subject_id", Int64, noteSubject), c("hadm_id", Int64), c("seq_num", Int64, noteSeq),
		c("icd_code", String, noteICDCode), c("icd_version", Int64, noteICDVer)),
	hosp("drgcodes", "diagnosis-related groups billed per admission",
		c("subject_id", Int64, noteSubject), c("hadm_id", Int64), c("drg_type", String, "HCFA or APR"),
		c("drg_code", String, "DRG code, a string"), c("description", String),
		c("drg_severity", Int64), c("drg_mortality", Int64)),
	hosp("emar", "electronic medication administration record: one row per administration event",
		c("subject_id", Int64, noteSubject), c("hadm_id", Int64), c("emar_id", String, "string identifier '<subject_id>-<emar_seq>'"),
		c("emar_seq", Int64), c("poe_id", String), c("pharmacy_id", Int64), c("enter_provider_id", String, noteProvider),
		c("charttime", Datetime, "time of administration"), c("medication", String), c("event_txt", String, "what happened, e.g. 'Administered', 'Not Given'"),
		c("scheduletime", Datetime), c("storetime", Datetime)),
	hosp("emar_detail", "details of each eMAR administration (dose, route, infusion)",
		c("subject_id", Int64, noteSubject), c("emar_id", String), c("emar_seq", Int64), c("parent_field_ordinal", String),
		c("administration_type", String), c("pharmacy_id", Int64), c("barcode_type", String), c("reason_for_no_barcode", String),
		c("complete_dose_not_given", String), c("dose_due", String), c("dose_due_unit", String), c("dose_given", String, "a string, not a number"),
		c("dose_given_unit", String), c("will_remainder_of_dose_be_given", String), c("product_amount_given", String),
		c("product_unit", String), c("product_code", String), c("product_description", String), c("product_description_other", String),
		c("prior_infusion_rate", String), c("infusion_rate", String), c("infusion_rate_adjustment", String),
		c("infusion_rate_adjustment_amount", String), c("infusion_rate_unit", String), c("route", String),
		c("infusion_complete", String), c("completion_interval", String), c("new_iv_bag_hung", String),
		c("continued_infusion_in_other_location", String), c("restart_interval", String), c("side", String), c("site", String),
		c("non_formulary_visual_verification", String)),
	hosp("hcpcsevents", "billed HCPCS (CPT) events per admission",
		c("subject_id", Int64, noteSubject), c("hadm_id", Int64), c("chartdate", Date), c("hcpcs_cd", String, "HCPCS code, a string (d_hcpcs.code)"),
		c("seq_num", Int64), c("short_description", String)),
	hosp("labevents", "laboratory measurements (blood, urine, ...), inside and outside admissions",
		c("labevent_id", Int64), c("subject_id", Int64, noteSubject), c("hadm_id", Int64, noteHadm), c("specimen_id", Int64),
		c("itemid", Int64, noteItemLab), c("order_provider_id", String, noteProvider), c("charttime", Datetime, noteChart),
		c("storetime", Datetime, noteStore), c("value", String, noteValue), c("valuenum", Float64, noteValuenum),
		c("valueuom", String, noteUOM), c("ref_range_lower", Float64), c("ref_range_upper", Float64),
		c("flag", String, "'abnormal' when outside the reference range, else NULL"), c("priority", String), c("comments", String)),
	hosp("microbiologyevents", "microbiology cultures, organisms and antibiotic sensitivities",
		c("microevent_id", Int64), c("subject_id", Int64, noteSubject), c("hadm_id", Int64, noteHadm), c("micro_specimen_id", Int64),
		c("order_provider_id", String, noteProvider), c("chartdate", Datetime, "date of the specimen (time part 00:00:00)"),
		c("charttime", Datetime, "time of the specimen, NULL when only the date is known"), c("spec_itemid", Int64),
		c("spec_type_desc", String), c("test_seq", Int64), c("storedate", Datetime), c("storetime", Datetime), c("test_itemid", Int64),
		c("test_name", String), c("org_itemid", Int64), c("org_name", String, "organism grown, NULL if none"), c("isolate_num", Int64),
		c("quantity", String), c("ab_itemid", Int64), c("ab_name", String), c("dilution_text", String), c("dilution_comparison", String),
		c("dilution_value", Float64), c("interpretation", String, "S, R, I or P"), c("comments", String)),
	hosp("omr", "online medical record: outpatient measurements such as weight, height, BMI, blood pressure",
		c("subject_id", Int64, noteSubject), c("chartdate", Date), c("seq_num", Int64),
		c("result_name", String, "e.g. 'Weight (Lbs)', 'BMI (kg/m2)', 'Blood Pressure'"), c("result_value", String, "a string ('120/80' for blood pressure)")),
	hosp("patients", "one row per patient: gender, anchor age and year, date of death",
		c("subject_id", Int64, "patient identifier (primary key)"), c("gender", String, "'F' or 'M'"),
		c("anchor_age", Int64, "age in anchor_year; age at an admission = anchor_age + (year of admittime - anchor_year)"),
		c("anchor_year", Int64, "shifted year in which the patient was anchor_age"), c("anchor_year_group", String, "real 3-year range of anchor_year"),
		c("dod", Date, "date of death (in or out of hospital), NULL if none recorded")),
	hosp("pharmacy", "pharmacy orders: dispensing details per prescription",
		c("subject_id", Int64, noteSubject), c("hadm_id", Int64), c("pharmacy_id", Int64), c("poe_id", String),
		c("starttime", Datetime), c("stoptime", Datetime), c("medication", String), c("proc_type", String), c("status", String),
		c("entertime", Datetime), c("verifiedtime", Datetime), c("route", String), c("frequency", String), c("disp_sched", String),
		c("infusion_type", String), c("sliding_scale", String), c("lockout_interval", String), c("basal_rate", Float64),
		c("one_hr_max", String), c("doses_per_24_hrs", Float64), c("duration", Float64), c("duration_interval", String),
		c("expiration_value", Int64), c("expiration_unit", String), c("expirationdate", Datetime), c("dispensation", String),
		c("fill_quantity", String)),
	hosp("poe", "provider order entry: every order made for a patient",
		c("poe_id", String, "string identifier '<subject_id>-<poe_seq>'"), c("poe_seq", Int64), c("subject_id", Int64, noteSubject), c("hadm_id", Int64),
		c("ordertime", Datetime), c("order_type", String), c("order_subtype", String), c("transaction_type", String),
		c("discontinue_of_poe_id", String), c("discontinued_by_poe_id", String), c("order_provider_id", String, noteProvider),
		c("order_status", String)),
	hosp("poe_detail", "name-value details of provider orders",
		c("poe_id", String), c("poe_seq", Int64), c("subject_id", Int64, noteSubject), c("field_name", String), c("field_value", String)),
	hosp("prescriptions", "medications prescribed during admissions",
		c("subject_id", Int64, noteSubject), c("hadm_id", Int64), c("pharmacy_id", Int64), c("poe_id", String), c("poe_seq", Int64),
		c("order_provider_id", String, noteProvider), c("starttime", Datetime), c("stoptime", Datetime),
		c("drug_type", String, "MAIN, BASE or ADDITIVE"), c("drug", String, "free-text drug name; match case-insensitively"),
		c("formulary_drug_cd", String), c("gsn", String, "Generic Sequence Number, a string"), c("ndc", String, "National Drug Code, an 11-digit string"),
		c("prod_strength", String), c("form_rx", String), c("dose_val_rx", String, "prescribed dose as a string (may be a range such as '1-2')"),
		c("dose_unit_rx", String), c("form_val_disp", String), c("form_unit_disp", String), c("doses_per_24_hrs", Float64), c("route", String)),
	hosp("procedures_icd", "billed ICD procedures per admission",
		c("subject_id", Int64, noteSubject), c("hadm_id", Int64), c("seq_num", Int64, noteSeq), c("chartdate", Date, "date of the procedure"),
		c("icd_code", String, noteICDCode), c("icd_version", Int64, noteICDVer)),
	hosp("provider", "one row per provider identifier",
		c("provider_id", String, noteProvider)),
	hosp("services", "hospital services (medical, surgical, ...) the patient was under",
		c("subject_id", Int64, noteSubject), c("hadm_id", Int64), c("transfertime", Datetime),
		c("prev_service", String), c("curr_service", String, "service code such as 'MED', 'CSURG', 'NSURG'")),
	hosp("transfers", "ward and unit transfers within the hospital",
		c("subject_id", Int64, noteSubject), c("hadm_id", Int64, noteHadm), c("transfer_id", Int64),
		c("eventtype", String, "'ED', 'admit', 'transfer', 'discharge'"), c("careunit", String),
		c("intime", Datetime), c("outtime", Datetime)),

	// icu module.
	icu("caregiver", "one row per ICU caregiver identifier",
		c("caregiver_id", Int64, noteCaregver)),
	// chartevents holds 433 million rows, about half of MIMIC-IV, and a
	// question reads a few of its thousands of items (heart rate, blood
	// pressure): stored by itemid, such a query reads those items' row
	// groups instead of the whole table.
	ordered("itemid", icu("chartevents", "charted ICU observations: vital signs, scores, settings (by far the largest table)",
		c("subject_id", Int64, noteSubject), c("hadm_id", Int64), c("stay_id", Int64, noteStay), c("caregiver_id", Int64, noteCaregver),
		c("charttime", Datetime, noteChart), c("storetime", Datetime, noteStore), c("itemid", Int64, noteItemICU),
		c("value", String, noteValue), c("valuenum", Float64, noteValuenum), c("valueuom", String, noteUOM),
		c("warning", Int64, "1 if the value raised a warning"))),
	icu("d_items", "dictionary of ICU items (chartevents, inputevents, outputevents, procedureevents, datetimeevents)",
		c("itemid", Int64, noteItemICU), c("label", String), c("abbreviation", String),
		c("linksto", String, "the table whose itemid this is, e.g. 'chartevents'"), c("category", String), c("unitname", String),
		c("param_type", String), c("lownormalvalue", Float64), c("highnormalvalue", Float64)),
	icu("datetimeevents", "ICU observations whose value is a date and time",
		c("subject_id", Int64, noteSubject), c("hadm_id", Int64), c("stay_id", Int64, noteStay), c("caregiver_id", Int64, noteCaregver),
		c("charttime", Datetime, noteChart), c("storetime", Datetime, noteStore), c("itemid", Int64, noteItemICU),
		c("value", Datetime, "the observed date and time"), c("valueuom", String), c("warning", Int64)),
	icu("icustays", "one row per ICU stay",
		c("subject_id", Int64, noteSubject), c("hadm_id", Int64), c("stay_id", Int64, "ICU stay identifier (primary key)"),
		c("first_careunit", String), c("last_careunit", String), c("intime", Datetime, "ICU admission time"),
		c("outtime", Datetime, "ICU discharge time"), c("los", Float64, "ICU length of stay in fractional days")),
	icu("ingredientevents", "ingredients (water, nutrition) of ICU inputs",
		c("subject_id", Int64, noteSubject), c("hadm_id", Int64), c("stay_id", Int64, noteStay), c("caregiver_id", Int64, noteCaregver),
		c("starttime", Datetime), c("endtime", Datetime), c("storetime", Datetime), c("itemid", Int64, noteItemICU),
		c("amount", Float64), c("amountuom", String), c("rate", Float64), c("rateuom", String), c("orderid", Int64),
		c("linkorderid", Int64), c("statusdescription", String), c("originalamount", Float64), c("originalrate", Float64)),
	icu("inputevents", "ICU inputs: infusions and boluses of drugs and fluids",
		c("subject_id", Int64, noteSubject), c("hadm_id", Int64), c("stay_id", Int64, noteStay), c("caregiver_id", Int64, noteCaregver),
		c("starttime", Datetime), c("endtime", Datetime), c("storetime", Datetime), c("itemid", Int64, noteItemICU),
		c("amount", Float64), c("amountuom", String), c("rate", Float64), c("rateuom", String), c("orderid", Int64),
		c("linkorderid", Int64), c("ordercategoryname", String), c("secondaryordercategoryname", String),
		c("ordercomponenttypedescription", String), c("ordercategorydescription", String), c("patientweight", Float64, "kg"),
		c("totalamount", Float64), c("totalamountuom", String), c("isopenbag", Int64), c("continueinnextdept", Int64),
		c("statusdescription", String), c("originalamount", Float64), c("originalrate", Float64)),
	icu("outputevents", "ICU outputs such as urine",
		c("subject_id", Int64, noteSubject), c("hadm_id", Int64), c("stay_id", Int64, noteStay), c("caregiver_id", Int64, noteCaregver),
		c("charttime", Datetime, noteChart), c("storetime", Datetime, noteStore), c("itemid", Int64, noteItemICU),
		c("value", Float64, "amount of output, a number"), c("valueuom", String, noteUOM)),
	icu("procedureevents", "ICU procedures such as ventilation, lines and dialysis",
		c("subject_id", Int64, noteSubject), c("hadm_id", Int64), c("stay_id", Int64, noteStay), c("caregiver_id", Int64, noteCaregver),
		c("starttime", Datetime), c("endtime", Datetime), c("storetime", Datetime), c("itemid", Int64, noteItemICU),
		c("value", Float64, "duration or amount, in valueuom"), c("valueuom", String), c("location", String), c("locationcategory", String),
		c("orderid", Int64), c("linkorderid", Int64), c("ordercategoryname", String), c("ordercategorydescription", String),
		c("patientweight", Float64, "kg"), c("isopenbag", Int64), c("continueinnextdept", Int64), c("statusdescription", String),
		c("ORIGINALAMOUNT", Float64, "upper case in the BigQuery schema"), c("ORIGINALRATE", Float64, "upper case in the BigQuery schema")),

	// derived.
	{Dataset: DatasetDerived, Name: "charlson",
		Description: "Charlson comorbidity index per admission from ICD-9/10 diagnoses (mimic-code concepts/comorbidity/charlson.sql); " +
			"each comorbidity column is 1 if any diagnosis of the admission matches, else 0",
		Columns: []Column{
			c("subject_id", Int64, noteSubject), c("hadm_id", Int64, "one row per admission"),
			c("age_score", Int64, "0 (age <= 50), 1 (<= 60), 2 (<= 70), 3 (<= 80), 4 (older); age as derived.age: anchor_age + year(admittime) - anchor_year"),
			c("myocardial_infarct", Int64), c("congestive_heart_failure", Int64), c("peripheral_vascular_disease", Int64),
			c("cerebrovascular_disease", Int64), c("dementia", Int64), c("chronic_pulmonary_disease", Int64),
			c("rheumatic_disease", Int64), c("peptic_ulcer_disease", Int64), c("mild_liver_disease", Int64),
			c("diabetes_without_cc", Int64), c("diabetes_with_cc", Int64), c("paraplegia", Int64), c("renal_disease", Int64),
			c("malignant_cancer", Int64), c("severe_liver_disease", Int64), c("metastatic_solid_tumor", Int64), c("aids", Int64),
			c("charlson_comorbidity_index", Int64, "weighted sum of age_score and the comorbidities (Charlson 1987 weights)"),
		}},
}}
