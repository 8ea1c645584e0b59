package synth

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// Orders and medications: poe (provider orders), prescriptions, pharmacy,
// emar and emar_detail, linked as in MIMIC-IV: prescriptions and pharmacy
// rows name a poe order of the patient, emar rows a pharmacy row of the
// admission, emar_detail rows their emar row.

var orderTypes = []choice{{"Medications", 45}, {"Lab", 18}, {"General Care", 10}, {"Nutrition", 5}, {"ADT orders", 5},
	{"Radiology", 4}, {"IV therapy", 3}, {"Consults", 2}, {"Blood Bank", 2}, {"Respiratory", 2}, {"Cardiology", 1},
	{"Critical Care", 1}, {"Hemodialysis", 0.5}, {"TPN", 0.3}, {"OB", 0.2}}
var orderTypeWeights = weights(orderTypes)

var eventTexts = []choice{{"Administered", 80}, {"Not Given", 6}, {"Flushed", 4}, {"Delayed Administered", 3},
	{"Confirmed", 2}, {"Stopped", 2}, {"Applied", 1}, {"Started", 1}, {"Removed", 1}}
var eventTextWeights = weights(eventTexts)

var frequencies = []string{"Q8H", "DAILY", "BID", "Q6H", "ONCE", "Q4H:PRN", "TID", "Q12H", "QHS", "PRN"}

// orderFor places an order of the patient: in one of its admissions, or as
// an outpatient (no hadm_id).
func orderFor(r *rand.Rand, p *patient) (*admission, int64) {
	if len(p.adms) == 0 {
		return nil, outpatientTime(r, p)
	}
	a := &p.adms[r.IntN(len(p.adms))]
	return a, within(r, a.admit, a.disch)
}

func genPOE(r *rand.Rand, p *patient, w *row) {
	for seq := 1; seq <= p.nPoe; seq++ {
		a, t := orderFor(r, p)
		w.str(seqID(p.subject, seq))
		w.int(int64(seq))
		w.int(p.subject)
		hadmOrNull(w, a)
		w.time(t)
		w.str(orderTypes[pick(r, orderTypeWeights)].name)
		w.null()
		tx := r.Float64()
		switch {
		case tx < 0.8:
			w.str("New")
		case tx < 0.92:
			w.str("D/C")
		default:
			w.str("Change")
		}
		if tx >= 0.8 && tx < 0.92 && seq > 1 {
			w.str(seqID(p.subject, 1+r.IntN(seq-1)))
		} else {
			w.null()
		}
		w.null()
		w.str(randProvider(r))
		if r.Float64() < 0.95 {
			w.str("Inactive")
		} else {
			w.str("Active")
		}
		w.end()
	}
}

var poeFields = [][2]string{{"Admit to", "Medicine"}, {"Code status", "Full code"}, {"Code status", "DNR / DNI"},
	{"Discharge Planning", "Finalized"}, {"Level of Urgency", "Routine"}, {"Transfer to", "ICU"},
	{"Tubes & Drains type", "Foley"}, {"Consult Status", "Active"}, {"Admit category", "Admit to inpatient"}}

func genPOEDetail(r *rand.Rand, p *patient, w *row) {
	for seq := 1; seq <= p.nPoe; seq++ {
		if r.Float64() >= 0.163 {
			continue
		}
		f := poeFields[r.IntN(len(poeFields))]
		w.str(seqID(p.subject, seq))
		w.int(int64(seq))
		w.int(p.subject)
		w.str(f[0])
		w.str(f[1])
		w.end()
	}
}

func hadmOrNull(w *row, a *admission) {
	if a == nil {
		w.null()
		return
	}
	w.int(a.hadm)
}

// formularyCode is a short uppercase code for a drug, as formulary_drug_cd.
func formularyCode(d *drug) string {
	s := strings.ToUpper(strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return -1
	}, d.name))
	if len(s) > 6 {
		s = s[:6]
	}
	return s + d.doses[0]
}

func genPrescriptions(r *rand.Rand, p *patient, w *row) {
	for i := range p.adms {
		a := &p.adms[i]
		n := count(r, 37.2, 0.8, 5000)
		for range n {
			di := pick(r, drugWeights)
			d := &drugs[di]
			start := within(r, a.admit, a.disch)
			w.int(p.subject)
			w.int(a.hadm)
			if a.nPharmacy > 0 && r.Float64() < 0.9 {
				w.int(pharmacyID(a, r.IntN(a.nPharmacy)))
			} else {
				w.null()
			}
			if p.nPoe > 0 && r.Float64() < 0.95 {
				seq := 1 + r.IntN(p.nPoe)
				w.str(seqID(p.subject, seq))
				w.int(int64(seq))
			} else {
				w.null()
				w.null()
			}
			w.str(randProvider(r))
			w.time(start)
			w.time(start + int64(hourSec+r.IntN(5*daySec)))
			switch x := r.Float64(); {
			case x < 0.85:
				w.str("MAIN")
			case x < 0.97:
				w.str("BASE")
			default:
				w.str("ADDITIVE")
			}
			w.str(d.name)
			w.str(formularyCode(d))
			w.str(strconv.Itoa(1000 + di*4271%90000))
			w.str("00" + strconv.Itoa(100_000_000+di*7_654_321%899_999_999))
			w.str(d.doses[0] + d.unit + " " + d.form)
			w.null()
			dose := d.doses[r.IntN(len(d.doses))]
			w.str(dose)
			w.str(d.unit)
			w.str("1")
			w.str(d.form)
			if r.Float64() < 0.8 {
				w.float(float64(1+r.IntN(4)), 1)
			} else {
				w.null()
			}
			w.str(d.route)
			w.end()
		}
	}
}

func genPharmacy(r *rand.Rand, p *patient, w *row) {
	for i := range p.adms {
		a := &p.adms[i]
		for k := range a.nPharmacy {
			d := &drugs[pick(r, drugWeights)]
			start := within(r, a.admit, a.disch)
			stop := start + int64(hourSec+r.IntN(5*daySec))
			w.int(p.subject)
			w.int(a.hadm)
			w.int(pharmacyID(a, k))
			if p.nPoe > 0 {
				w.str(seqID(p.subject, 1+r.IntN(p.nPoe)))
			} else {
				w.null()
			}
			w.time(start)
			w.time(stop)
			w.str(d.name)
			switch x := r.Float64(); {
			case x < 0.7:
				w.str("Unit Dose")
			case x < 0.85:
				w.str("IV Piggyback")
			default:
				w.str("IV Large Volume")
			}
			switch x := r.Float64(); {
			case x < 0.6:
				w.str("Discontinued")
			case x < 0.85:
				w.str("Inactive (Due to a change order)")
			default:
				w.str("Discontinued via patient discharge")
			}
			w.time(start - int64(r.IntN(hourSec)))
			w.time(start - int64(r.IntN(hourSec/2)))
			w.str(d.route)
			w.str(frequencies[r.IntN(len(frequencies))])
			w.optStr("08, 20", r.Float64() < 0.3)
			w.null()
			w.optStr("N", r.Float64() < 0.2)
			w.null()
			w.null()
			w.null()
			w.float(float64(1+r.IntN(4)), 1)
			w.null()
			w.str("Ongoing")
			w.int(36)
			w.str("Hours")
			w.null()
			if r.Float64() < 0.7 {
				w.str("Omnicell")
			} else {
				w.str("Floor Stock Item")
			}
			w.null()
			w.end()
		}
	}
}

func genEMAR(r *rand.Rand, p *patient, w *row) {
	for i := range p.adms {
		a := &p.adms[i]
		for k := range a.nEmar {
			seq := a.emarStart + k
			t := within(r, a.admit, a.disch)
			d := &drugs[pick(r, drugWeights)]
			w.int(p.subject)
			w.int(a.hadm)
			w.str(seqID(p.subject, seq))
			w.int(int64(seq))
			if p.nPoe > 0 {
				w.str(seqID(p.subject, 1+r.IntN(p.nPoe)))
			} else {
				w.null()
			}
			if a.nPharmacy > 0 {
				w.int(pharmacyID(a, r.IntN(a.nPharmacy)))
			} else {
				w.null()
			}
			w.optStr(randProvider(r), r.Float64() < 0.8)
			w.time(t)
			w.str(d.name)
			w.str(eventTexts[pick(r, eventTextWeights)].name)
			w.time(t - t%hourSec)
			w.time(t + int64(r.IntN(900)))
			w.end()
		}
	}
}

var administrationTypes = []string{"Standard Dose", "IV Bolus", "IV Infusion", "Transdermal Patch", "Inhaled"}

// genEMARDetail writes, per eMAR event, the parent row (what was due) and
// one child row (what was given), sometimes two: 2.04 rows per event.
func genEMARDetail(r *rand.Rand, p *patient, w *row) {
	for i := range p.adms {
		a := &p.adms[i]
		for k := range a.nEmar {
			seq := a.emarStart + k
			id := seqID(p.subject, seq)
			d := &drugs[pick(r, drugWeights)]
			var pharm int64
			if a.nPharmacy > 0 {
				pharm = pharmacyID(a, r.IntN(a.nPharmacy))
			}
			dose := d.doses[r.IntN(len(d.doses))]
			children := 1
			if r.Float64() < 0.04 {
				children = 2
			}
			for c := 0; c <= children; c++ {
				w.int(p.subject)
				w.str(id)
				w.int(int64(seq))
				if c == 0 {
					w.null()
				} else {
					w.str("1." + strconv.Itoa(c))
				}
				w.str(administrationTypes[r.IntN(len(administrationTypes))])
				if pharm != 0 {
					w.int(pharm)
				} else {
					w.null()
				}
				w.optStr("Patient Barcode", c == 0)
				w.null()
				w.null()
				if c == 0 {
					w.str(dose)
					w.str(d.unit)
					w.null()
					w.null()
				} else {
					w.null()
					w.null()
					w.str(dose)
					w.str(d.unit)
				}
				w.null()
				if c == 0 {
					for range 4 {
						w.null()
					}
				} else {
					w.str(dose)
					w.str(d.unit)
					w.str(formularyCode(d))
					w.str(d.name)
				}
				// product_description_other .. infusion_rate_unit (6 columns)
				for range 6 {
					w.null()
				}
				w.optStr(d.route, c > 0)
				// infusion_complete .. non_formulary_visual_verification (8 columns)
				for range 8 {
					w.null()
				}
				w.end()
			}
		}
	}
}
