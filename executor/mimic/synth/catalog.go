package synth

// Catalogues of values the generator draws from. Item identifiers, labels
// and units are MIMIC-IV's public dictionaries (d_labitems, d_items); the
// value quantiles (p5, p50, p95), reference ranges and relative frequencies
// are parameters written here from the open MIMIC-IV demo's distributions
// and, for chartevents (absent from the demo), from MIMIC-IV's published
// documentation and clinical reference ranges. No demo row is copied.

type admissionType struct {
	name      string
	emergency bool
	weight    float64
}

var admissionTypes = []admissionType{
	{"EW EMER.", true, 0.33}, {"EU OBSERVATION", true, 0.18}, {"OBSERVATION ADMIT", false, 0.13},
	{"URGENT", false, 0.09}, {"SURGICAL SAME DAY ADMISSION", false, 0.07}, {"DIRECT EMER.", true, 0.04},
	{"DIRECT OBSERVATION", false, 0.04}, {"ELECTIVE", false, 0.02}, {"AMBULATORY OBSERVATION", false, 0.01},
}

var admissionTypeWeights = func() []float64 {
	w := make([]float64, len(admissionTypes))
	for i, a := range admissionTypes {
		w[i] = a.weight
	}
	return cumulative(w...)
}()

type choice struct {
	name   string
	weight float64
}

func weights(cs []choice) []float64 {
	w := make([]float64, len(cs))
	for i, c := range cs {
		w[i] = c.weight
	}
	return cumulative(w...)
}

var (
	insurances = []choice{{"Medicare", 0.42}, {"Private", 0.33}, {"Medicaid", 0.18}, {"Other", 0.06}, {"No charge", 0.01}}
	races      = []choice{{"WHITE", 0.62}, {"BLACK/AFRICAN AMERICAN", 0.15}, {"UNKNOWN", 0.05}, {"OTHER", 0.04},
		{"HISPANIC/LATINO - PUERTO RICAN", 0.02}, {"WHITE - OTHER EUROPEAN", 0.02}, {"ASIAN", 0.015}, {"ASIAN - CHINESE", 0.015},
		{"HISPANIC OR LATINO", 0.015}, {"UNABLE TO OBTAIN", 0.01}, {"PATIENT DECLINED TO ANSWER", 0.01}, {"WHITE - RUSSIAN", 0.01},
		{"BLACK/CAPE VERDEAN", 0.01}, {"HISPANIC/LATINO - DOMINICAN", 0.01}, {"PORTUGUESE", 0.005}}
	maritals  = []choice{{"MARRIED", 0.43}, {"SINGLE", 0.33}, {"WIDOWED", 0.12}, {"DIVORCED", 0.07}, {"", 0.05}}
	languages = []choice{{"English", 0.89}, {"Spanish", 0.04}, {"Chinese", 0.015}, {"Russian", 0.015}, {"Portuguese", 0.01},
		{"Other", 0.02}, {"Haitian", 0.01}}
	admitLocations = []choice{{"EMERGENCY ROOM", 0.45}, {"PHYSICIAN REFERRAL", 0.21}, {"TRANSFER FROM HOSPITAL", 0.09},
		{"WALK-IN/SELF REFERRAL", 0.07}, {"CLINIC REFERRAL", 0.05}, {"PROCEDURE SITE", 0.05}, {"PACU", 0.04},
		{"INTERNAL TRANSFER TO OR FROM PSYCH", 0.02}, {"TRANSFER FROM SKILLED NURSING FACILITY", 0.02}}
	dischargeLocations = []choice{{"HOME", 0.37}, {"HOME HEALTH CARE", 0.22}, {"SKILLED NURSING FACILITY", 0.11},
		{"", 0.17}, {"REHAB", 0.03}, {"CHRONIC/LONG TERM ACUTE CARE", 0.02}, {"HOSPICE", 0.01}, {"AGAINST ADVICE", 0.01},
		{"PSYCH FACILITY", 0.01}, {"ACUTE HOSPITAL", 0.01}, {"OTHER FACILITY", 0.01}}
	services = []choice{{"MED", 0.46}, {"CMED", 0.08}, {"SURG", 0.06}, {"ORTHO", 0.05}, {"OBS", 0.05}, {"NMED", 0.05},
		{"CSURG", 0.04}, {"NSURG", 0.04}, {"OMED", 0.04}, {"GU", 0.02}, {"VSURG", 0.02}, {"TRAUM", 0.02}, {"GYN", 0.02},
		{"PSYCH", 0.02}, {"ENT", 0.01}, {"TSURG", 0.01}, {"PSURG", 0.01}}
	careUnits = []choice{{"Medical Intensive Care Unit (MICU)", 0.22}, {"Cardiac Vascular Intensive Care Unit (CVICU)", 0.17},
		{"Medical/Surgical Intensive Care Unit (MICU/SICU)", 0.17}, {"Surgical Intensive Care Unit (SICU)", 0.15},
		{"Trauma SICU (TSICU)", 0.12}, {"Coronary Care Unit (CCU)", 0.11}, {"Neuro Intermediate", 0.03},
		{"Neuro Surgical Intensive Care Unit (Neuro SICU)", 0.02}, {"Neuro Stepdown", 0.01}}
	wardUnits = []string{"Medicine", "Med/Surg", "Emergency Department Observation", "Medicine/Cardiology",
		"Hematology/Oncology", "Surgery/Trauma", "Neurology", "Transplant", "Cardiac Surgery", "Labor & Delivery", "Psychiatry", "PACU"}
	anchorYearGroups = []string{"2008 - 2010", "2011 - 2013", "2014 - 2016", "2017 - 2019", "2020 - 2022"}

	insuranceWeights         = weights(insurances)
	raceWeights              = weights(races)
	maritalWeights           = weights(maritals)
	languageWeights          = weights(languages)
	admitLocationWeights     = weights(admitLocations)
	dischargeLocationWeights = weights(dischargeLocations)
	serviceWeights           = weights(services)
	careUnitWeights          = weights(careUnits)
)

// labItem is a laboratory test: hosp.d_labitems and hosp.labevents.
type labItem struct {
	itemid       int64
	label, fluid string
	category     string
	unit         string
	p5, p50, p95 float64
	refLo, refHi float64 // NaN-free: both zero means no reference range
	prec         int
	weight       float64 // relative frequency among lab rows
}

var labItems = []labItem{
	{50971, "Potassium", "Blood", "Chemistry", "mEq/L", 3.3, 4.1, 5.3, 3.3, 5.1, 1, 30},
	{50983, "Sodium", "Blood", "Chemistry", "mEq/L", 128, 138, 146, 133, 145, 0, 30},
	{50912, "Creatinine", "Blood", "Chemistry", "mg/dL", 0.5, 1.0, 4.4, 0.5, 1.2, 1, 30},
	{50902, "Chloride", "Blood", "Chemistry", "mEq/L", 90, 101, 111, 96, 108, 0, 30},
	{51006, "Urea Nitrogen", "Blood", "Chemistry", "mg/dL", 6, 19, 78, 6, 20, 0, 30},
	{51221, "Hematocrit", "Blood", "Hematology", "%", 21.6, 29.9, 42.7, 36, 48, 1, 29},
	{50882, "Bicarbonate", "Blood", "Chemistry", "mEq/L", 17, 25, 32, 22, 32, 0, 29},
	{50868, "Anion Gap", "Blood", "Chemistry", "mEq/L", 9, 14, 23, 8, 20, 0, 29},
	{51265, "Platelet Count", "Blood", "Hematology", "K/uL", 23, 190, 473, 150, 400, 0, 28},
	{51222, "Hemoglobin", "Blood", "Hematology", "g/dL", 7.1, 9.8, 14.2, 12, 16, 1, 28},
	{51279, "Red Blood Cells", "Blood", "Hematology", "m/uL", 2.3, 3.3, 4.8, 4.2, 5.4, 2, 28},
	{51248, "MCH", "Blood", "Hematology", "pg", 25.4, 30.1, 34.2, 27, 32, 1, 28},
	{51250, "MCV", "Blood", "Hematology", "fL", 80, 91, 105, 82, 98, 0, 28},
	{51301, "White Blood Cells", "Blood", "Hematology", "K/uL", 2.5, 9.3, 44, 4, 10, 1, 28},
	{51277, "RDW", "Blood", "Hematology", "%", 12.7, 15.4, 20.9, 10.5, 15.5, 1, 28},
	{50931, "Glucose", "Blood", "Chemistry", "mg/dL", 78, 121, 285, 70, 100, 0, 27},
	{50960, "Magnesium", "Blood", "Chemistry", "mg/dL", 1.6, 2.0, 2.6, 1.6, 2.6, 1, 25},
	{50893, "Calcium, Total", "Blood", "Chemistry", "mg/dL", 7.4, 8.5, 9.8, 8.4, 10.3, 1, 24},
	{50970, "Phosphate", "Blood", "Chemistry", "mg/dL", 1.8, 3.5, 6.6, 2.7, 4.5, 1, 23},
	{51249, "MCHC", "Blood", "Hematology", "g/dL", 29.7, 32.3, 34.9, 31, 37, 1, 16},
	{51275, "PTT", "Blood", "Hematology", "sec", 24.9, 33.4, 87.3, 25, 36.5, 1, 15},
	{51274, "PT", "Blood", "Hematology", "sec", 10.8, 14, 29.7, 9.4, 12.5, 1, 15},
	{51237, "INR(PT)", "Blood", "Hematology", "", 1.0, 1.3, 2.7, 0.9, 1.1, 1, 15},
	{50878, "Asparate Aminotransferase (AST)", "Blood", "Chemistry", "IU/L", 13, 37, 226, 0, 40, 0, 12},
	{50885, "Bilirubin, Total", "Blood", "Chemistry", "mg/dL", 0.2, 0.5, 4.5, 0, 1.5, 1, 12},
	{50861, "Alanine Aminotransferase (ALT)", "Blood", "Chemistry", "IU/L", 7, 28, 223, 0, 40, 0, 12},
	{50863, "Alkaline Phosphatase", "Blood", "Chemistry", "IU/L", 48, 91, 285, 35, 130, 0, 11},
	{50820, "pH", "Blood", "Blood Gas", "units", 7.17, 7.38, 7.48, 7.35, 7.45, 2, 10},
	{51256, "Neutrophils", "Blood", "Hematology", "%", 9.9, 64, 88, 40, 70, 1, 9},
	{51244, "Lymphocytes", "Blood", "Hematology", "%", 3, 17.9, 69, 18, 48, 1, 9},
	{51254, "Monocytes", "Blood", "Hematology", "%", 0.8, 6.9, 21, 4, 12, 1, 9},
	{51200, "Eosinophils", "Blood", "Hematology", "%", 0, 1.2, 8, 0.6, 5.8, 1, 9},
	{51146, "Basophils", "Blood", "Hematology", "%", 0, 0.4, 4, 0, 1.4, 1, 9},
	{50821, "pO2", "Blood", "Blood Gas", "mm Hg", 36, 99, 357, 85, 105, 0, 9},
	{50818, "pCO2", "Blood", "Blood Gas", "mm Hg", 27, 40, 63, 35, 45, 0, 9},
	{50802, "Base Excess", "Blood", "Blood Gas", "mEq/L", -13, -1, 6, 0, 0, 0, 9},
	{50804, "Calculated Total CO2", "Blood", "Blood Gas", "mEq/L", 13, 25, 34, 21, 30, 0, 9},
	{50813, "Lactate", "Blood", "Blood Gas", "mmol/L", 0.9, 1.8, 6.1, 0.5, 2, 1, 7},
	{50954, "Lactate Dehydrogenase (LD)", "Blood", "Chemistry", "IU/L", 145, 281, 2237, 94, 250, 0, 6},
	{50862, "Albumin", "Blood", "Chemistry", "g/dL", 2.2, 3.6, 4.5, 3.5, 5.2, 1, 6},
	{50808, "Free Calcium", "Blood", "Blood Gas", "mmol/L", 0.96, 1.12, 1.27, 1.12, 1.32, 2, 5},
	{52075, "Absolute Neutrophil Count", "Blood", "Hematology", "K/uL", 0.15, 6.1, 50, 1.6, 6.1, 2, 5},
	{51133, "Absolute Lymphocyte Count", "Blood", "Hematology", "K/uL", 0.34, 1.8, 11.8, 1.2, 3.7, 2, 5},
	{51003, "Troponin T", "Blood", "Chemistry", "ng/mL", 0.01, 0.04, 1.9, 0, 0.01, 2, 4},
	{50911, "Creatine Kinase, MB Isoenzyme", "Blood", "Chemistry", "ng/mL", 1, 4, 40, 0, 10, 0, 3},
	{50910, "Creatine Kinase (CK)", "Blood", "Chemistry", "IU/L", 30, 150, 2500, 0, 200, 0, 3},
	{50963, "NTproBNP", "Blood", "Chemistry", "pg/mL", 80, 2000, 35000, 0, 353, 0, 2},
	{50852, "% Hemoglobin A1c", "Blood", "Chemistry", "%", 5.0, 6.0, 9.8, 4, 6, 1, 2},
	{50889, "C-Reactive Protein", "Blood", "Chemistry", "mg/L", 1, 40, 250, 0, 5, 1, 2},
	{51214, "Fibrinogen, Functional", "Blood", "Hematology", "mg/dL", 120, 330, 700, 200, 400, 0, 2},
	{50907, "Cholesterol, Total", "Blood", "Chemistry", "mg/dL", 100, 165, 260, 0, 199, 0, 1},
	{50904, "Cholesterol, HDL", "Blood", "Chemistry", "mg/dL", 25, 45, 85, 40, 0, 0, 1},
	{51000, "Triglycerides", "Blood", "Chemistry", "mg/dL", 50, 120, 400, 0, 150, 0, 1},
	{50956, "Lipase", "Blood", "Chemistry", "IU/L", 10, 30, 300, 0, 60, 0, 2},
	{50867, "Amylase", "Blood", "Chemistry", "IU/L", 20, 55, 300, 0, 100, 0, 1},
	{51491, "pH", "Urine", "Hematology", "units", 5, 6, 7.5, 5, 8, 1, 3},
	{51498, "Specific Gravity", "Urine", "Hematology", "", 1.005, 1.018, 1.035, 1.001, 1.035, 3, 3},
	{51516, "WBC", "Urine", "Hematology", "#/hpf", 0, 3, 100, 0, 5, 0, 3},
	{51493, "RBC", "Urine", "Hematology", "#/hpf", 0, 2, 100, 0, 2, 0, 3},
	{51082, "Creatinine, Urine", "Urine", "Chemistry", "mg/dL", 20, 80, 250, 0, 0, 0, 1},
}

// chartItem is an ICU charted item: icu.d_items (linksto chartevents) and
// icu.chartevents. Numeric items draw valuenum from a normal law clipped to
// [lo, hi]; text items draw their value from texts.
type chartItem struct {
	itemid         int64
	label, abbrev  string
	category, unit string
	mean, sd       float64
	lo, hi         float64
	prec           int
	texts          []string // text item when set
	weight         float64  // relative frequency among chartevents rows
}

var chartItems = []chartItem{
	{220045, "Heart Rate", "HR", "Routine Vital Signs", "bpm", 86, 17, 20, 220, 0, nil, 90},
	{220210, "Respiratory Rate", "RR", "Respiratory", "insp/min", 19.5, 5.5, 3, 60, 0, nil, 88},
	{220277, "O2 saturation pulseoxymetry", "SpO2", "Respiratory", "%", 96.5, 3, 50, 100, 0, nil, 86},
	{220179, "Non Invasive Blood Pressure systolic", "NBPs", "Routine Vital Signs", "mmHg", 121, 22, 40, 250, 0, nil, 50},
	{220180, "Non Invasive Blood Pressure diastolic", "NBPd", "Routine Vital Signs", "mmHg", 64, 14, 15, 150, 0, nil, 50},
	{220181, "Non Invasive Blood Pressure mean", "NBPm", "Routine Vital Signs", "mmHg", 79, 15, 20, 180, 0, nil, 50},
	{220050, "Arterial Blood Pressure systolic", "ABPs", "Routine Vital Signs", "mmHg", 120, 22, 40, 250, 0, nil, 30},
	{220051, "Arterial Blood Pressure diastolic", "ABPd", "Routine Vital Signs", "mmHg", 59, 12, 15, 150, 0, nil, 30},
	{220052, "Arterial Blood Pressure mean", "ABPm", "Routine Vital Signs", "mmHg", 79, 14, 20, 180, 0, nil, 30},
	{223761, "Temperature Fahrenheit", "Temperature F", "Routine Vital Signs", "°F", 98.6, 1.1, 91, 107, 1, nil, 20},
	{223762, "Temperature Celsius", "Temperature C", "Routine Vital Signs", "°C", 37.0, 0.6, 33, 42, 1, nil, 3},
	{220739, "GCS - Eye Opening", "GCS - Eye Opening", "Neurological", "", 0, 0, 0, 0, 0,
		[]string{"Spontaneously", "To Speech", "To Pain", "No Response"}, 17},
	{223900, "GCS - Verbal Response", "GCS - Verbal Response", "Neurological", "", 0, 0, 0, 0, 0,
		[]string{"Oriented", "Confused", "Inappropriate Words", "Incomprehensible sounds", "No Response-ETT", "No Response"}, 17},
	{223901, "GCS - Motor Response", "GCS - Motor Response", "Neurological", "", 0, 0, 0, 0, 0,
		[]string{"Obeys Commands", "Localizes Pain", "Flex-withdraws", "Abnormal Flexion", "Abnormal extension", "No response"}, 17},
	{220048, "Heart Rhythm", "Heart Rhythm", "Routine Vital Signs", "", 0, 0, 0, 0, 0,
		[]string{"SR (Sinus Rhythm)", "ST (Sinus Tachycardia)", "AF (Atrial Fibrillation)", "SB (Sinus Bradycardia)", "1st AV (First degree AV Block)", "Paced"}, 45},
	{224642, "Temperature Site", "Temp Site", "Routine Vital Signs", "", 0, 0, 0, 0, 0, []string{"Oral", "Axillary", "Blood", "Rectal", "Temporal"}, 15},
	{226512, "Admission Weight (Kg)", "Admission Weight (Kg)", "General", "kg", 81, 23, 30, 250, 1, nil, 0.3},
	{224639, "Daily Weight", "Daily Weight", "General", "kg", 82, 24, 30, 250, 1, nil, 2},
	{226730, "Height (cm)", "Height (cm)", "General", "cm", 170, 10, 130, 210, 0, nil, 0.2},
	{225664, "Glucose finger stick (range 70-100)", "Glucose FS (range 70 -100)", "Routine Vital Signs", "mg/dL", 145, 50, 20, 600, 0, nil, 12},
	{220621, "Glucose (serum)", "Glucose (serum)", "Labs", "mg/dL", 135, 50, 20, 800, 0, nil, 8},
	{220615, "Creatinine (serum)", "Creatinine (serum)", "Labs", "mg/dL", 1.4, 1.1, 0.2, 15, 1, nil, 6},
	{220645, "Sodium (serum)", "Sodium (serum)", "Labs", "mEq/L", 138, 5, 110, 170, 0, nil, 6},
	{227442, "Potassium (serum)", "Potassium (serum)", "Labs", "mEq/L", 4.1, 0.55, 2, 8, 1, nil, 6},
	{220602, "Chloride (serum)", "Chloride (serum)", "Labs", "mEq/L", 103, 6, 70, 140, 0, nil, 6},
	{225624, "BUN", "BUN", "Labs", "mg/dL", 25, 18, 2, 200, 0, nil, 6},
	{227443, "HCO3 (serum)", "HCO3 (serum)", "Labs", "mEq/L", 24, 4.5, 5, 50, 0, nil, 6},
	{220228, "Hemoglobin", "Hemoglobin", "Labs", "g/dl", 9.6, 2, 3, 20, 1, nil, 6},
	{220546, "WBC", "WBC", "Labs", "K/uL", 11, 6, 0.1, 100, 1, nil, 6},
	{227457, "Platelet Count", "Platelet Count", "Labs", "K/uL", 200, 100, 5, 1000, 0, nil, 6},
	{225668, "Lactic Acid", "Lactic Acid", "Labs", "mmol/L", 2.1, 1.5, 0.3, 20, 1, nil, 3},
	{223830, "PH (Arterial)", "PH (Arterial)", "Labs", "units", 7.38, 0.07, 6.8, 7.7, 2, nil, 5},
	{220224, "Arterial O2 pressure", "PO2 (Arterial)", "Labs", "mmHg", 110, 50, 30, 600, 0, nil, 5},
	{220235, "Arterial CO2 Pressure", "PCO2 (Arterial)", "Labs", "mmHg", 41, 8, 15, 120, 0, nil, 5},
	{223835, "Inspired O2 Fraction", "FiO2", "Respiratory", "%", 50, 18, 21, 100, 0, nil, 12},
	{220339, "PEEP set", "PEEP set", "Respiratory", "cmH2O", 7, 3, 0, 24, 0, nil, 10},
	{224685, "Tidal Volume (observed)", "Vt (observed)", "Respiratory", "mL", 450, 90, 100, 1200, 0, nil, 10},
	{224690, "Respiratory Rate (Total)", "RR (Total)", "Respiratory", "insp/min", 20, 5, 4, 50, 0, nil, 10},
	{220074, "Central Venous Pressure", "CVP", "Routine Vital Signs", "mmHg", 10, 5, 0, 35, 0, nil, 10},
	{223834, "O2 Flow", "O2 Flow", "Respiratory", "L/min", 3, 2, 0.5, 15, 1, nil, 12},
	{223848, "Ventilator Type", "Ventilator Type", "Respiratory", "", 0, 0, 0, 0, 0, []string{"Drager", "Hamilton", "Servo-i"}, 4},
	{223849, "Ventilator Mode", "Ventilator Mode", "Respiratory", "", 0, 0, 0, 0, 0,
		[]string{"CMV/ASSIST/AutoFlow", "CPAP/PSV", "PCV+/PSV", "SIMV/PSV", "Standby"}, 8},
	{226253, "SpO2 Desat Limit", "SpO2 Desat Limit", "Alarms", "%", 88, 2, 80, 92, 0, nil, 14},
	{220046, "Heart rate Alarm - High", "HR Alarm - High", "Alarms", "bpm", 120, 8, 90, 160, 0, nil, 14},
	{220047, "Heart Rate Alarm - Low", "HR Alarm - Low", "Alarms", "bpm", 50, 5, 30, 70, 0, nil, 14},
	{223791, "Pain Level", "Pain Level", "Pain/Sedation", "", 0, 0, 0, 0, 0,
		[]string{"None", "Mild", "Mild to Moderate", "Moderate", "Moderate to Severe", "Severe", "Unable to Score"}, 12},
	{228096, "Richmond-RAS Scale", "Richmond-RAS Scale", "Pain/Sedation", "", 0, 0, 0, 0, 0,
		[]string{" 0  Alert and calm", "-1 Awakens to voice (eye opening/contact) > 10 sec", "-2 Light sedation, briefly awakens to voice (eye opening/contact) < 10 sec",
			"-3 Moderate sedation, moves or opens eyes to voice (no eye contact)", "-4 Deep sedation, no response to voice, but movement or eye opening to physical stimulation",
			"+1 Anxious, apprehensive, but not aggressive"}, 9},
	{224641, "Alarms On", "Alarms On", "Alarms", "", 0, 0, 0, 0, 0, []string{"Yes"}, 30},
	{224168, "Parameters Checked", "Parameters Checked", "Alarms", "", 0, 0, 0, 0, 0, []string{"Yes"}, 25},
	{227969, "Safety Measures", "Safety Measures", "Safety", "", 0, 0, 0, 0, 0,
		[]string{"Bed locked in low position", "Side rails up x 2", "Call light within reach", "Family at bedside"}, 22},
	{224650, "Ectopy Type 1", "Ectopy Type 1", "Routine Vital Signs", "", 0, 0, 0, 0, 0, []string{"None", "PVC's", "PAC's"}, 25},
	{223999, "Assistance Device", "Assistance Device", "Treatments", "", 0, 0, 0, 0, 0, []string{"None", "Cane", "Walker", "Wheelchair"}, 8},
	{224015, "Skin Integrity", "Skin Integrity", "Skin - Assessment", "", 0, 0, 0, 0, 0, []string{"Intact", "Impaired"}, 14},
	{224093, "Position", "Position", "Treatments", "", 0, 0, 0, 0, 0, []string{"Left Side", "Right Side", "Supine", "HOB 30 degrees", "Chair"}, 20},
	{224054, "Braden Sensory Perception", "Braden SensPercep", "Skin - Assessment", "", 0, 0, 0, 0, 0,
		[]string{"No Impairment", "Slight Impairment", "Very Limited", "Completely Limited"}, 8},
	{224055, "Braden Moisture", "Braden Moisture", "Skin - Assessment", "", 0, 0, 0, 0, 0,
		[]string{"Rarely Moist", "Occasionally Moist", "Moist", "Consistently Moist"}, 8},
	{223934, "Pupil Size Right", "Pupil Size R", "Neurological", "", 0, 0, 0, 0, 0, []string{"2 mm", "3 mm", "4 mm", "5 mm"}, 10},
	{223935, "Pupil Size Left", "Pupil Size L", "Neurological", "", 0, 0, 0, 0, 0, []string{"2 mm", "3 mm", "4 mm", "5 mm"}, 10},
	{223986, "Lung Sounds RUL", "LS RUL", "Respiratory", "", 0, 0, 0, 0, 0, []string{"Clear", "Diminished", "Crackles", "Rhonchi", "Coarse"}, 15},
	{223987, "Lung Sounds LUL", "LS LUL", "Respiratory", "", 0, 0, 0, 0, 0, []string{"Clear", "Diminished", "Crackles", "Rhonchi", "Coarse"}, 15},
	{223988, "Lung Sounds RLL", "LS RLL", "Respiratory", "", 0, 0, 0, 0, 0, []string{"Clear", "Diminished", "Crackles", "Rhonchi", "Coarse"}, 15},
	{223989, "Lung Sounds LLL", "LS LLL", "Respiratory", "", 0, 0, 0, 0, 0, []string{"Clear", "Diminished", "Crackles", "Rhonchi", "Coarse"}, 15},
	{224080, "Head of Bed", "HOB", "Treatments", "", 0, 0, 0, 0, 0, []string{"30 Degrees", "45 Degrees", "Flat", "Reverse T"}, 12},
	{224082, "Turn", "Turn", "Treatments", "", 0, 0, 0, 0, 0, []string{"Side to Side", "Self", "Refused"}, 12},
	{224086, "Activity / Mobility (JH-HLM)", "Activity", "Treatments", "", 0, 0, 0, 0, 0, []string{"Bed", "Sit at edge of bed", "Stand", "Walk"}, 10},
	{226104, "Level of Consciousness", "LOC", "Neurological", "", 0, 0, 0, 0, 0, []string{"Alert", "Lethargic", "Arouse to Voice", "Unresponsive"}, 12},
	{224756, "Bowel Sounds", "Bowel Sounds", "GI/GU", "", 0, 0, 0, 0, 0, []string{"Present", "Hypoactive", "Absent", "Hyperactive"}, 10},
	{224828, "Urine Appearance", "Urine Appearance", "GI/GU", "", 0, 0, 0, 0, 0, []string{"Clear", "Cloudy", "Sediment"}, 8},
	{224409, "Abdominal Assessment", "Abd Assessment", "GI/GU", "", 0, 0, 0, 0, 0, []string{"Soft", "Distended", "Firm", "Tender"}, 10},
	{223792, "Pain Management", "Pain Management", "Pain/Sedation", "", 0, 0, 0, 0, 0, []string{"IV medication", "Oral medication", "Repositioning", "None"}, 8},
	{223795, "Pain Location", "Pain Location", "Pain/Sedation", "", 0, 0, 0, 0, 0, []string{"Abdomen", "Chest", "Back", "Generalized", "Incision"}, 6},
}

// Events other than chartevents: item, unit and value laws per ICU table.
type eventItem struct {
	itemid          int64
	label, category string
	unit, rateUnit  string
	orderCategory   string
	median, lo, hi  float64 // amount or value
	rateMedian      float64 // 0: no rate
	weight          float64
	linksto         string
}

var inputItems = []eventItem{
	{225158, "NaCl 0.9%", "Fluids/Intake", "ml", "mL/hour", "01-Drips", 15, 1, 1000, 12, 24, "inputevents"},
	{220949, "Dextrose 5%", "Fluids/Intake", "ml", "mL/hour", "01-Drips", 22, 1, 500, 15, 20, "inputevents"},
	{225943, "Solution", "Fluids/Intake", "ml", "mL/hour", "01-Drips", 15, 1, 500, 8, 12, "inputevents"},
	{221906, "Norepinephrine", "Medications", "mg", "mcg/kg/min", "01-Drips", 0.6, 0.01, 10, 0.14, 10, "inputevents"},
	{226452, "PO Intake", "Fluids/Intake", "ml", "", "14-Oral/Gastric Intake", 150, 10, 1000, 0, 8, "inputevents"},
	{225799, "Gastric Meds", "Fluids/Intake", "ml", "", "14-Oral/Gastric Intake", 40, 5, 300, 0, 7, "inputevents"},
	{221749, "Phenylephrine", "Medications", "mg", "mcg/kg/min", "01-Drips", 4.2, 0.1, 50, 1, 6, "inputevents"},
	{222168, "Propofol", "Medications", "mg", "mcg/kg/min", "01-Drips", 260, 5, 3000, 30, 6, "inputevents"},
	{221744, "Fentanyl", "Medications", "mcg", "", "05-Med Bolus", 50, 12.5, 200, 0, 6, "inputevents"},
	{225975, "Heparin Sodium (Prophylaxis)", "Medications", "dose", "", "11-Prophylaxis (Non IV)", 1, 1, 1, 0, 4, "inputevents"},
	{225942, "Fentanyl (Concentrate)", "Medications", "mg", "mcg/hour", "01-Drips", 0.3, 0.01, 5, 100, 4, "inputevents"},
	{225166, "Potassium Chloride", "Medications", "mEq", "", "02-Fluids (Crystalloids)", 20, 10, 60, 0, 4, "inputevents"},
	{223258, "Insulin - Regular", "Medications", "units", "units/hour", "01-Drips", 5, 0.5, 50, 3.3, 5, "inputevents"},
	{223262, "Insulin - Humalog", "Medications", "units", "", "06-Insulin (Non IV)", 4, 1, 20, 0, 3, "inputevents"},
	{225798, "Vancomycin", "Antibiotics", "dose", "", "08-Antibiotics (IV)", 1, 1, 1, 0, 3, "inputevents"},
	{225150, "Dexmedetomidine (Precedex)", "Medications", "mcg", "mcg/kg/hour", "01-Drips", 100, 5, 1000, 0.8, 2, "inputevents"},
	{221833, "Hydromorphone (Dilaudid)", "Medications", "mg", "", "05-Med Bolus", 0.5, 0.2, 4, 0, 2, "inputevents"},
	{225828, "LR", "Fluids/Intake", "ml", "mL/hour", "02-Fluids (Crystalloids)", 500, 50, 2000, 100, 3, "inputevents"},
	{220862, "Albumin 25%", "Blood Products/Colloids", "ml", "", "04-Fluids (Colloids)", 100, 50, 200, 0, 1, "inputevents"},
	{225168, "Packed Red Blood Cells", "Blood Products/Colloids", "ml", "", "07-Blood Products", 350, 200, 700, 0, 1, "inputevents"},
	{222315, "Vasopressin", "Medications", "units", "units/min", "01-Drips", 2, 0.1, 20, 0.04, 1, "inputevents"},
	{221662, "Dopamine", "Medications", "mg", "mcg/kg/min", "01-Drips", 20, 1, 200, 5, 0.5, "inputevents"},
	{221289, "Epinephrine", "Medications", "mg", "mcg/kg/min", "01-Drips", 0.5, 0.01, 10, 0.05, 0.5, "inputevents"},
	{221794, "Furosemide (Lasix)", "Medications", "mg", "", "05-Med Bolus", 40, 10, 200, 0, 2, "inputevents"},
	{225152, "Heparin Sodium", "Medications", "units", "units/hour", "01-Drips", 1000, 100, 10000, 900, 2, "inputevents"},
}

var ingredientItems = []eventItem{
	{220490, "Water", "Ingredients", "ml", "mL/hour", "", 50, 1, 2000, 10, 50, "ingredientevents"},
	{227074, "IVF ingredient", "Ingredients", "ml", "mL/hour", "", 40, 1, 1000, 10, 35, "ingredientevents"},
	{226060, "Calories", "Ingredients", "Kcal", "Kcal/hour", "", 80, 1, 2500, 20, 17, "ingredientevents"},
	{227075, "Oral/Gastric Ingredient", "Ingredients", "ml", "", "", 100, 5, 1000, 0, 10, "ingredientevents"},
	{220454, "Protein", "Ingredients", "grams", "grams/hour", "", 5, 0.1, 150, 1, 2, "ingredientevents"},
	{226221, "Enteral Nutrition Ingredient", "Ingredients", "ml", "mL/hour", "", 60, 1, 1500, 30, 2, "ingredientevents"},
}

var outputItems = []eventItem{
	{226559, "Foley", "Output", "ml", "", "", 75, 0, 1500, 0, 70, "outputevents"},
	{226588, "Chest Tube #1", "Output", "ml", "", "", 30, 0, 800, 0, 7, "outputevents"},
	{226560, "Void", "Output", "ml", "", "", 225, 10, 1500, 0, 5, "outputevents"},
	{227510, "TF Residual", "Output", "ml", "", "", 25, 0, 500, 0, 3, "outputevents"},
	{226606, "Cerebral Ventricular #1", "Output", "ml", "", "", 4, 0, 50, 0, 2, "outputevents"},
	{226599, "Jackson Pratt #1", "Output", "ml", "", "", 70, 0, 600, 0, 1.5, "outputevents"},
	{226582, "Ostomy (output)", "Output", "ml", "", "", 210, 0, 1500, 0, 1, "outputevents"},
	{226561, "Condom Cath", "Output", "ml", "", "", 175, 0, 1200, 0, 1, "outputevents"},
	{226576, "Oral Gastric", "Output", "ml", "", "", 100, 0, 1000, 0, 0.7, "outputevents"},
	{227488, "GU Irrigant Volume In", "Output", "ml", "", "", 500, 0, 5000, 0, 0.5, "outputevents"},
}

var procedureItems = []eventItem{
	{225459, "Chest X-Ray", "Imaging", "None", "", "Imaging", 1, 1, 1, 0, 17, "procedureevents"},
	{224275, "20 Gauge", "Access Lines - Peripheral", "min", "", "Peripheral Lines", 1600, 30, 10000, 0, 16, "procedureevents"},
	{224277, "18 Gauge", "Access Lines - Peripheral", "min", "", "Peripheral Lines", 2000, 30, 10000, 0, 11, "procedureevents"},
	{225752, "Arterial Line", "Access Lines - Invasive", "min", "", "Invasive Lines", 1940, 30, 15000, 0, 8, "procedureevents"},
	{225402, "EKG", "Procedures", "None", "", "Procedures", 1, 1, 1, 0, 7, "procedureevents"},
	{225792, "Invasive Ventilation", "Ventilation", "min", "", "Ventilation", 2400, 30, 30000, 0, 6.5, "procedureevents"},
	{221214, "CT scan", "Imaging", "None", "", "Imaging", 1, 1, 1, 0, 6, "procedureevents"},
	{227194, "Extubation", "Intubation/Extubation", "None", "", "Intubation/Extubation", 1, 1, 1, 0, 5, "procedureevents"},
	{224263, "Multi Lumen", "Access Lines - Invasive", "min", "", "Invasive Lines", 4200, 60, 30000, 0, 4, "procedureevents"},
	{225401, "Blood Cultured", "Procedures", "None", "", "Procedures", 1, 1, 1, 0, 4, "procedureevents"},
	{224264, "PICC Line", "Access Lines - Invasive", "min", "", "Invasive Lines", 4500, 60, 40000, 0, 3.5, "procedureevents"},
	{225794, "Non-invasive Ventilation", "Ventilation", "min", "", "Ventilation", 600, 30, 5000, 0, 2, "procedureevents"},
	{225802, "Dialysis - CRRT", "Dialysis", "min", "", "Dialysis", 3000, 60, 20000, 0, 1, "procedureevents"},
	{224385, "Intubation", "Intubation/Extubation", "None", "", "Intubation/Extubation", 1, 1, 1, 0, 3, "procedureevents"},
	{229351, "Foley Catheter", "Tubes", "min", "", "Tubes", 3960, 60, 30000, 0, 3, "procedureevents"},
}

var datetimeItems = []eventItem{
	{225754, "20 Gauge Insertion Date", "Access Lines - Peripheral", "Date and Time", "", "", 0, 0, 0, 0, 10, "datetimeevents"},
	{224288, "Arterial line Insertion Date", "Access Lines - Invasive", "Date and Time", "", "", 0, 0, 0, 0, 10, "datetimeevents"},
	{224290, "Arterial line Tubing Change", "Access Lines - Invasive", "Date", "", "", 0, 0, 0, 0, 9.6, "datetimeevents"},
	{224287, "Arterial Line Dressing Change", "Access Lines - Invasive", "Date", "", "", 0, 0, 0, 0, 9.4, "datetimeevents"},
	{224280, "Multi Lumen Insertion Date", "Access Lines - Invasive", "Date and Time", "", "", 0, 0, 0, 0, 7.5, "datetimeevents"},
	{224282, "Multi Lumen Tubing Change", "Access Lines - Invasive", "Date", "", "", 0, 0, 0, 0, 7.4, "datetimeevents"},
	{224279, "Multi Lumen Dressing Change", "Access Lines - Invasive", "Date", "", "", 0, 0, 0, 0, 7.3, "datetimeevents"},
	{224186, "PICC Line Dressing Change", "Access Lines - Invasive", "Date", "", "", 0, 0, 0, 0, 7.3, "datetimeevents"},
	{225755, "18 Gauge Insertion Date", "Access Lines - Peripheral", "Date and Time", "", "", 0, 0, 0, 0, 7, "datetimeevents"},
	{225593, "Last dose of Antibiotics", "Medications", "Date", "", "", 0, 0, 0, 0, 4, "datetimeevents"},
}

// drug is one prescribed medication: hosp.prescriptions, pharmacy, emar.
type drug struct {
	name, route, unit string
	doses             []string
	form              string
	weight            float64
}

var drugs = []drug{
	{"Insulin", "SC", "UNIT", []string{"0", "2", "4", "6", "8", "10"}, "VIAL", 9},
	{"Sodium Chloride 0.9%  Flush", "IV", "mL", []string{"3", "10"}, "SYR", 6},
	{"0.9% Sodium Chloride", "IV", "mL", []string{"100", "250", "500", "1000"}, "BAG", 5},
	{"Magnesium Sulfate", "IV", "gm", []string{"1", "2", "4"}, "BAG", 4},
	{"Furosemide", "IV", "mg", []string{"10", "20", "40", "80"}, "VIAL", 4},
	{"5% Dextrose", "IV", "mL", []string{"50", "100", "250"}, "BAG", 3.5},
	{"Potassium Chloride", "PO", "mEq", []string{"10", "20", "40"}, "TAB", 3},
	{"Potassium Chloride", "IV", "mEq", []string{"10", "20", "40"}, "BAG", 3},
	{"Calcium Gluconate", "IV", "g", []string{"1", "2"}, "BAG", 2.7},
	{"Vancomycin", "IV", "mg", []string{"750", "1000", "1250", "1500"}, "BAG", 2.7},
	{"Acetaminophen", "PO/NG", "mg", []string{"325", "500", "650", "1000"}, "TAB", 2.6},
	{"Heparin", "SC", "UNIT", []string{"5000", "7500"}, "VIAL", 2.1},
	{"Metoprolol Tartrate", "PO/NG", "mg", []string{"12.5", "25", "50", "100"}, "TAB", 2.1},
	{"Lactated Ringers", "IV", "mL", []string{"500", "1000"}, "BAG", 2.1},
	{"HYDROmorphone (Dilaudid)", "IV", "mg", []string{"0.25", "0.5", "1", "2"}, "SYR", 2},
	{"Docusate Sodium", "PO/NG", "mg", []string{"100"}, "CAP", 1.9},
	{"Ondansetron", "IV", "mg", []string{"4", "8"}, "VIAL", 1.6},
	{"Senna", "PO/NG", "mg", []string{"8.6", "17.2"}, "TAB", 1.5},
	{"Glucagon", "IM", "mg", []string{"1"}, "VIAL", 1.4},
	{"Piperacillin-Tazobactam", "IV", "g", []string{"2.25", "3.375", "4.5"}, "VIAL", 1.3},
	{"Cefepime", "IV", "g", []string{"1", "2"}, "VIAL", 1},
	{"Ceftriaxone", "IV", "gm", []string{"1", "2"}, "VIAL", 1},
	{"Aspirin", "PO/NG", "mg", []string{"81", "325"}, "TAB", 1.5},
	{"Atorvastatin", "PO/NG", "mg", []string{"10", "20", "40", "80"}, "TAB", 1.2},
	{"Pantoprazole", "PO", "mg", []string{"40"}, "TAB", 1.2},
	{"Lisinopril", "PO", "mg", []string{"5", "10", "20", "40"}, "TAB", 0.8},
	{"Amlodipine", "PO", "mg", []string{"2.5", "5", "10"}, "TAB", 0.7},
	{"Metformin (Glucophage)", "PO", "mg", []string{"500", "850", "1000"}, "TAB", 0.6},
	{"Warfarin", "PO", "mg", []string{"1", "2", "5"}, "TAB", 0.6},
	{"Enoxaparin Sodium", "SC", "mg", []string{"30", "40", "80"}, "SYR", 0.8},
	{"Morphine Sulfate", "IV", "mg", []string{"2", "4"}, "SYR", 0.8},
	{"OxyCODONE (Immediate Release)", "PO", "mg", []string{"5", "10"}, "TAB", 1},
	{"Lorazepam", "IV", "mg", []string{"0.5", "1", "2"}, "VIAL", 0.7},
	{"Norepinephrine", "IV DRIP", "mg", []string{"4", "8"}, "BAG", 0.5},
	{"Propofol", "IV DRIP", "mg", []string{"1000"}, "VIAL", 0.4},
	{"Prednisone", "PO", "mg", []string{"5", "10", "20", "40"}, "TAB", 0.5},
	{"Levothyroxine Sodium", "PO", "mcg", []string{"25", "50", "75", "100"}, "TAB", 0.6},
	{"Albuterol 0.083% Neb Soln", "IH", "mg", []string{"2.5"}, "NEB", 0.8},
	{"Gabapentin", "PO", "mg", []string{"100", "300", "600"}, "CAP", 0.6},
	{"Tamsulosin", "PO", "mg", []string{"0.4"}, "CAP", 0.3},
}

// diagnosis is an ICD code the generator bills, with its share of billed
// diagnoses; the dictionary holds these and synthetic codes filling it to
// MIMIC-IV's size.
type diagnosis struct {
	code    string
	version int
	title   string
	weight  float64
}

var diagnoses = []diagnosis{
	{"4019", 9, "Unspecified essential hypertension", 10},
	{"I10", 10, "Essential (primary) hypertension", 8},
	{"2724", 9, "Other and unspecified hyperlipidemia", 6},
	{"E785", 10, "Hyperlipidemia, unspecified", 6},
	{"Z87891", 10, "Personal history of nicotine dependence", 4},
	{"53081", 9, "Esophageal reflux", 4},
	{"K219", 10, "Gastro-esophageal reflux disease without esophagitis", 4},
	{"25000", 9, "Diabetes mellitus without mention of complication, type II or unspecified type, not stated as uncontrolled", 4},
	{"E119", 10, "Type 2 diabetes mellitus without complications", 3},
	{"E1122", 10, "Type 2 diabetes mellitus with diabetic chronic kidney disease", 1.5},
	{"41401", 9, "Coronary atherosclerosis of native coronary artery", 4},
	{"I2510", 10, "Atherosclerotic heart disease of native coronary artery without angina pectoris", 4},
	{"4280", 9, "Congestive heart failure, unspecified", 3},
	{"I5023", 10, "Acute on chronic systolic (congestive) heart failure", 1},
	{"I509", 10, "Heart failure, unspecified", 1},
	{"42731", 9, "Atrial fibrillation", 3.5},
	{"I4891", 10, "Unspecified atrial fibrillation", 3},
	{"5849", 9, "Acute kidney failure, unspecified", 2.5},
	{"N179", 10, "Acute kidney failure, unspecified", 2.5},
	{"5859", 9, "Chronic kidney disease, unspecified", 1.5},
	{"N189", 10, "Chronic kidney disease, unspecified", 1.5},
	{"N183", 10, "Chronic kidney disease, stage 3 (moderate)", 1},
	{"40390", 9, "Hypertensive chronic kidney disease, unspecified, with chronic kidney disease stage I through stage IV, or unspecified", 1.5},
	{"I129", 10, "Hypertensive chronic kidney disease with stage 1 through stage 4 chronic kidney disease, or unspecified chronic kidney disease", 1.5},
	{"41071", 9, "Subendocardial infarction, initial episode of care", 0.8},
	{"I214", 10, "Non-ST elevation (NSTEMI) myocardial infarction", 0.8},
	{"I213", 10, "ST elevation (STEMI) myocardial infarction of unspecified site", 0.2},
	{"0389", 9, "Unspecified septicemia", 1},
	{"A419", 10, "Sepsis, unspecified organism", 1.2},
	{"99592", 9, "Severe sepsis", 0.5},
	{"R6520", 10, "Severe sepsis without septic shock", 0.4},
	{"R6521", 10, "Severe sepsis with septic shock", 0.4},
	{"78552", 9, "Septic shock", 0.3},
	{"486", 9, "Pneumonia, organism unspecified", 1.2},
	{"J189", 10, "Pneumonia, unspecified organism", 1.2},
	{"49121", 9, "Obstructive chronic bronchitis with (acute) exacerbation", 0.5},
	{"J441", 10, "Chronic obstructive pulmonary disease with (acute) exacerbation", 0.6},
	{"J449", 10, "Chronic obstructive pulmonary disease, unspecified", 1},
	{"4439", 9, "Peripheral vascular disease, unspecified", 0.5},
	{"I739", 10, "Peripheral vascular disease, unspecified", 0.5},
	{"43491", 9, "Cerebral artery occlusion, unspecified with cerebral infarction", 0.4},
	{"I639", 10, "Cerebral infarction, unspecified", 0.5},
	{"2720", 9, "Pure hypercholesterolemia", 1},
	{"3051", 9, "Tobacco use disorder", 1.5},
	{"F17210", 10, "Nicotine dependence, cigarettes, uncomplicated", 1.2},
	{"311", 9, "Depressive disorder, not elsewhere classified", 1.5},
	{"F329", 10, "Major depressive disorder, single episode, unspecified", 1.5},
	{"2449", 9, "Unspecified acquired hypothyroidism", 1.5},
	{"E039", 10, "Hypothyroidism, unspecified", 1.5},
	{"2859", 9, "Anemia, unspecified", 1.5},
	{"D649", 10, "Anemia, unspecified", 1.5},
	{"2762", 9, "Acidosis", 0.8},
	{"E872", 10, "Acidosis", 0.8},
	{"2761", 9, "Hyposmolality and/or hyponatremia", 0.8},
	{"E871", 10, "Hypo-osmolality and hyponatremia", 0.8},
	{"5990", 9, "Urinary tract infection, site not specified", 1},
	{"N390", 10, "Urinary tract infection, site not specified", 1},
	{"5715", 9, "Cirrhosis of liver without mention of alcohol", 0.3},
	{"K7469", 10, "Other cirrhosis of liver", 0.3},
	{"5722", 9, "Hepatic encephalopathy", 0.1},
	{"K7290", 10, "Hepatic failure, unspecified without coma", 0.1},
	{"1970", 9, "Secondary malignant neoplasm of lung", 0.2},
	{"C7800", 10, "Secondary malignant neoplasm of unspecified lung", 0.2},
	{"1629", 9, "Malignant neoplasm of bronchus and lung, unspecified", 0.3},
	{"C3490", 10, "Malignant neoplasm of unspecified part of unspecified bronchus or lung", 0.3},
	{"042", 9, "Human immunodeficiency virus [HIV] disease", 0.1},
	{"B20", 10, "Human immunodeficiency virus [HIV] disease", 0.1},
	{"2900", 9, "Senile dementia, uncomplicated", 0.2},
	{"F0390", 10, "Unspecified dementia without behavioral disturbance", 0.4},
	{"7140", 9, "Rheumatoid arthritis", 0.2},
	{"M069", 10, "Rheumatoid arthritis, unspecified", 0.2},
	{"5320", 9, "Acute duodenal ulcer with hemorrhage, without mention of obstruction", 0.05},
	{"K259", 10, "Gastric ulcer, unspecified as acute or chronic, without hemorrhage or perforation", 0.05},
	{"3441", 9, "Paraplegia", 0.05},
	{"G8220", 10, "Paraplegia, unspecified", 0.05},
	{"V5861", 9, "Long-term (current) use of anticoagulants", 1.5},
	{"Z7901", 10, "Long term (current) use of anticoagulants", 1.5},
	{"Z794", 10, "Long term (current) use of insulin", 1.5},
	{"V4581", 9, "Aortocoronary bypass status", 0.7},
	{"Z951", 10, "Presence of aortocoronary bypass graft", 0.7},
	{"32723", 9, "Obstructive sleep apnea (adult)(pediatric)", 0.8},
	{"G4733", 10, "Obstructive sleep apnea (adult) (pediatric)", 0.8},
	{"E6601", 10, "Morbid (severe) obesity due to excess calories", 0.5},
	{"27800", 9, "Obesity, unspecified", 0.5},
	{"R079", 10, "Chest pain, unspecified", 0.6},
	{"78650", 9, "Chest pain, unspecified", 0.6},
	{"Z66", 10, "Do not resuscitate", 0.7},
	{"V4986", 9, "Do not resuscitate status", 0.7},
}

// procedureCodes are ICD procedure codes the generator bills.
var procedureCodes = []diagnosis{
	{"3893", 9, "Venous catheterization, not elsewhere classified", 5},
	{"9604", 9, "Insertion of endotracheal tube", 2},
	{"9671", 9, "Continuous invasive mechanical ventilation for less than 96 consecutive hours", 2},
	{"9672", 9, "Continuous invasive mechanical ventilation for 96 consecutive hours or more", 1},
	{"3995", 9, "Hemodialysis", 1.5},
	{"8856", 9, "Coronary arteriography using two catheters", 1.5},
	{"3722", 9, "Left heart cardiac catheterization", 1.2},
	{"3615", 9, "Single internal mammary-coronary artery bypass", 0.8},
	{"0040", 9, "Procedure on single vessel", 0.8},
	{"02HV33Z", 10, "Insertion of Infusion Device into Superior Vena Cava, Percutaneous Approach", 4},
	{"5A1955Z", 10, "Respiratory Ventilation, Greater than 96 Consecutive Hours", 1},
	{"5A1945Z", 10, "Respiratory Ventilation, 24-96 Consecutive Hours", 1.5},
	{"5A1935Z", 10, "Respiratory Ventilation, Less than 24 Consecutive Hours", 1.5},
	{"0BH17EZ", 10, "Insertion of Endotracheal Airway into Trachea, Via Natural or Artificial Opening", 2},
	{"5A1D70Z", 10, "Performance of Urinary Filtration, Intermittent, Less than 6 Hours Per Day", 1.5},
	{"4A023N7", 10, "Measurement of Cardiac Sampling and Pressure, Left Heart, Percutaneous Approach", 1.2},
	{"B2111ZZ", 10, "Fluoroscopy of Multiple Coronary Arteries using Low Osmolar Contrast", 1.2},
	{"0DJ08ZZ", 10, "Inspection of Upper Intestinal Tract, Via Natural or Artificial Opening Endoscopic", 1},
	{"3E0G76Z", 10, "Introduction of Nutritional Substance into Upper GI, Via Natural or Artificial Opening", 0.8},
	{"30233N1", 10, "Transfusion of Nonautologous Red Blood Cells into Peripheral Vein, Percutaneous Approach", 1.5},
}
