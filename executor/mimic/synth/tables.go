package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/clinsql/clinsql/executor/mimic"
)

// table generates one file: per patient (patient) or a fixed dictionary
// (dict). perPatient is the expected rows per patient at MIMIC-IV v3.1's
// shape (its row count over its 364,627 patients): used to size chunks and
// order the work, and checked against the output by the tests.
type table struct {
	module, name string
	columns      []string
	perPatient   float64
	fixed        int
	patient      func(r *rand.Rand, p *patient, w *row)
	dict         func(r *rand.Rand, w *row)
}

// Dictionary sizes of MIMIC-IV v3.1 (mimic-code's validate.sql): written at
// every scale, as the demo ships the full dictionaries.
const (
	nProviders      = 42_244
	nCaregivers     = 17_984
	nDItems         = 4_095
	nDLabitems      = 1_650
	nDICDDiagnoses  = 112_107
	nDICDProcedures = 86_423
	nDHCPCS         = 89_208
)

// tablesFor pairs every loaded table of the schema with its generator; a
// table without one is an error, so the generator covers the schema.
func tablesFor(s *mimic.Schema) ([]*table, error) {
	gens := map[string]table{
		"hosp/patients":           {perPatient: 1, patient: genPatients},
		"hosp/admissions":         {perPatient: 1.497, patient: genAdmissions},
		"hosp/transfers":          {perPatient: 6.62, patient: genTransfers},
		"hosp/services":           {perPatient: 1.626, patient: genServices},
		"hosp/diagnoses_icd":      {perPatient: 17.45, patient: genDiagnoses},
		"hosp/procedures_icd":     {perPatient: 2.36, patient: genProcedures},
		"hosp/drgcodes":           {perPatient: 2.09, patient: genDRG},
		"hosp/hcpcsevents":        {perPatient: 0.51, patient: genHCPCSEvents},
		"hosp/labevents":          {perPatient: 434.3, patient: genLabevents},
		"hosp/microbiologyevents": {perPatient: 10.94, patient: genMicro},
		"hosp/omr":                {perPatient: 21.26, patient: genOMR},
		"hosp/prescriptions":      {perPatient: 55.65, patient: genPrescriptions},
		"hosp/pharmacy":           {perPatient: 48.95, patient: genPharmacy},
		"hosp/emar":               {perPatient: 117.4, patient: genEMAR},
		"hosp/emar_detail":        {perPatient: 239.6, patient: genEMARDetail},
		"hosp/poe":                {perPatient: 143.2, patient: genPOE},
		"hosp/poe_detail":         {perPatient: 23.3, patient: genPOEDetail},
		"hosp/provider":           {fixed: nProviders, dict: genProvider},
		"hosp/d_hcpcs":            {fixed: nDHCPCS, dict: genDHCPCS},
		"hosp/d_icd_diagnoses":    {fixed: nDICDDiagnoses, dict: genDICDDiagnoses},
		"hosp/d_icd_procedures":   {fixed: nDICDProcedures, dict: genDICDProcedures},
		"hosp/d_labitems":         {fixed: nDLabitems, dict: genDLabitems},
		"icu/icustays":            {perPatient: 0.259, patient: genICUStays},
		"icu/chartevents":         {perPatient: 1187.5, patient: genChartevents},
		"icu/datetimeevents":      {perPatient: 27.4, patient: genDatetimeevents},
		"icu/inputevents":         {perPatient: 30.0, patient: genInputevents},
		"icu/ingredientevents":    {perPatient: 39.1, patient: genIngredientevents},
		"icu/outputevents":        {perPatient: 14.7, patient: genOutputevents},
		"icu/procedureevents":     {perPatient: 2.22, patient: genProcedureevents},
		"icu/caregiver":           {fixed: nCaregivers, dict: genCaregiver},
		"icu/d_items":             {fixed: nDItems, dict: genDItems},
	}
	var out []*table
	for _, st := range s.Tables {
		if st.Module == "" {
			continue
		}
		key := st.Module + "/" + st.Name
		t, ok := gens[key]
		if !ok {
			return nil, fmt.Errorf("synth: no generator for %s", key)
		}
		delete(gens, key)
		t.module, t.name = st.Module, st.Name
		for _, c := range st.Columns {
			t.columns = append(t.columns, c.Name)
		}
		out = append(out, &t)
	}
	for key := range gens {
		return nil, fmt.Errorf("synth: generator for %s, which the schema does not have", key)
	}
	return out, nil
}

// Identifiers shared between tables.

func providerID(k int) string {
	// A bijection of [0, 36^5): 7919 is prime, coprime with 36^5.
	v := (uint64(k)*7919 + 12345) % 60_466_176
	b := []byte("P00000")
	for i := 5; i >= 1; i-- {
		b[i] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[v%36]
		v /= 36
	}
	return string(b)
}

func caregiverID(k int) int64 { return 1000 + int64(k)*5 }

func randProvider(r *rand.Rand) string { return providerID(r.IntN(nProviders)) }
func randCaregiver(r *rand.Rand) int64 { return caregiverID(r.IntN(nCaregivers)) }

func pharmacyID(a *admission, k int) int64 { return a.hadm*1000 + int64(k) }

func seqID(subject int64, seq int) string {
	b := strconv.AppendInt(nil, subject, 10)
	b = append(b, '-')
	return string(strconv.AppendInt(b, int64(seq), 10))
}

// within draws a time in [from, to).
func within(r *rand.Rand, from, to int64) int64 {
	if to <= from {
		return from
	}
	return from + r.Int64N(to-from)
}

// outpatientTime draws a time around the patient's anchor years.
func outpatientTime(r *rand.Rand, p *patient) int64 {
	return yearStart(p.anchorYear) + r.Int64N(3*365*daySec)
}

func patientWeight(p *patient) float64 { return 50 + float64(p.subject*7919%700)/10 }

func round(v float64, prec int) float64 {
	m := math.Pow10(prec)
	return math.Round(v*m) / m
}

// quantileValue draws from a skewed law with the given 5th, 50th and 95th
// percentiles (two half-normals joined at the median).
func quantileValue(r *rand.Rand, p5, p50, p95 float64) float64 {
	z := r.NormFloat64()
	if z < 0 {
		v := p50 + z*(p50-p5)/1.645
		if p5 >= 0 && v < p5/3 {
			v = p5 / 3
		}
		return v
	}
	return p50 + z*(p95-p50)/1.645
}

func weightsOf[T any](items []T, w func(T) float64) []float64 {
	ws := make([]float64, len(items))
	for i, it := range items {
		ws[i] = w(it)
	}
	return cumulative(ws...)
}

var (
	labWeights        = weightsOf(labItems, func(l labItem) float64 { return l.weight })
	chartWeights      = weightsOf(chartItems, func(c chartItem) float64 { return c.weight })
	inputWeights      = weightsOf(inputItems, func(e eventItem) float64 { return e.weight })
	ingredientWeights = weightsOf(ingredientItems, func(e eventItem) float64 { return e.weight })
	outputWeights     = weightsOf(outputItems, func(e eventItem) float64 { return e.weight })
	procedureWeights  = weightsOf(procedureItems, func(e eventItem) float64 { return e.weight })
	datetimeWeights   = weightsOf(datetimeItems, func(e eventItem) float64 { return e.weight })
	drugWeights       = weightsOf(drugs, func(d drug) float64 { return d.weight })
	diag9, diag10     = splitVersion(diagnoses)
	proc9, proc10     = splitVersion(procedureCodes)
)

type versioned struct {
	codes   []diagnosis
	weights []float64
}

func splitVersion(ds []diagnosis) (v9, v10 versioned) {
	for _, d := range ds {
		if d.version == 9 {
			v9.codes = append(v9.codes, d)
		} else {
			v10.codes = append(v10.codes, d)
		}
	}
	v9.weights = weightsOf(v9.codes, func(d diagnosis) float64 { return d.weight })
	v10.weights = weightsOf(v10.codes, func(d diagnosis) float64 { return d.weight })
	return v9, v10
}

// icdVersion is the ICD version an admission is coded in: MIMIC-IV v3.1
// bills about 55% of its diagnoses in ICD-9 (admissions before the 2015
// switch, whose real years the shifted dates hide), the rest in ICD-10.
func icdVersion(a *admission) int {
	if uint64(a.hadm)*0x9E3779B97F4A7C15>>40%100 < 55 {
		return 9
	}
	return 10
}
