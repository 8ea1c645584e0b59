package synth

import (
	"math/rand/v2"
	"strconv"
)

func genPatients(r *rand.Rand, p *patient, w *row) {
	w.int(p.subject)
	if p.female {
		w.str("F")
	} else {
		w.str("M")
	}
	w.int(int64(p.anchorAge))
	w.int(int64(p.anchorYear))
	w.str(anchorYearGroups[uint64(p.subject)*0x9E3779B97F4A7C15>>40%uint64(len(anchorYearGroups))])
	w.date(p.dod)
	w.end()
}

func genAdmissions(r *rand.Rand, p *patient, w *row) {
	for i := range p.adms {
		a := &p.adms[i]
		w.int(p.subject)
		w.int(a.hadm)
		w.time(a.admit)
		w.time(a.disch)
		if a.died {
			w.time(a.disch)
		} else {
			w.null()
		}
		w.str(admissionTypes[a.typ].name)
		w.optStr(randProvider(r), r.Float64() < 0.97)
		w.str(admitLocations[a.location].name)
		if a.died {
			w.str("DIED")
		} else {
			w.str(dischargeLocations[a.discharge].name)
		}
		w.str(insurances[a.insurance].name)
		w.str(languages[a.language].name)
		w.str(maritals[a.marital].name)
		w.str(races[a.race].name)
		if a.emergency {
			w.time(a.admit - int64(2*hourSec+r.IntN(6*hourSec)))
			w.time(a.admit + int64(r.IntN(hourSec)))
		} else {
			w.null()
			w.null()
		}
		if a.died {
			w.int(1)
		} else {
			w.int(0)
		}
		w.end()
	}
}

func genTransfers(r *rand.Rand, p *patient, w *row) {
	emit := func(a *admission, j int, event, unit string, in, out int64) {
		w.int(p.subject)
		w.int(a.hadm)
		w.int(30_000_000 + int64(p.idx)*400 + int64(a.k)*20 + int64(j))
		w.str(event)
		w.optStr(unit, unit != "")
		w.time(in)
		w.time(out)
		w.end()
	}
	for i := range p.adms {
		a := &p.adms[i]
		j := 0
		if a.emergency {
			emit(a, j, "ED", "Emergency Department", a.admit-int64(4*hourSec), a.admit)
			j++
		}
		// The ward course: admit, ICU stays between ward moves, extra moves.
		t := a.admit
		ward := wardUnits[r.IntN(len(wardUnits))]
		event := "admit"
		for _, s := range a.stays {
			if s.in > t {
				emit(a, j, event, ward, t, s.in)
				j++
				event = "transfer"
			}
			emit(a, j, event, careUnits[s.unit].name, s.in, s.out)
			j++
			event = "transfer"
			t = s.out
		}
		for extra := count(r, 1.6, 0.8, 10); extra > 0 && j < 18; extra-- {
			next := within(r, t, a.disch)
			emit(a, j, event, ward, t, next)
			j++
			event = "transfer"
			t = next
			ward = wardUnits[r.IntN(len(wardUnits))]
		}
		emit(a, j, event, ward, t, a.disch)
		j++
		emit(a, j, "discharge", "", a.disch, 0)
	}
}

func genServices(r *rand.Rand, p *patient, w *row) {
	for i := range p.adms {
		a := &p.adms[i]
		w.int(p.subject)
		w.int(a.hadm)
		w.time(a.admit + int64(r.IntN(hourSec)))
		w.null()
		w.str(services[a.service].name)
		w.end()
		if r.Float64() < 0.086 {
			w.int(p.subject)
			w.int(a.hadm)
			w.time(within(r, a.admit, a.disch))
			w.str(services[a.service].name)
			w.str(services[pick(r, serviceWeights)].name)
			w.end()
		}
	}
}

// fillerShare is the share of billed codes drawn from the dictionary's long
// tail rather than the catalogue of common codes.
const fillerShare = 0.3

func genDiagnoses(r *rand.Rand, p *patient, w *row) {
	for i := range p.adms {
		a := &p.adms[i]
		v := icdVersion(a)
		n := max(1, count(r, 11.66, 0.55, 39))
		for seq := 1; seq <= n; seq++ {
			w.int(p.subject)
			w.int(a.hadm)
			w.int(int64(seq))
			w.str(billedCode(r, v, diag9, diag10, fillerDiag9, fillerDiag10, fillerDiagnosis))
			w.int(int64(v))
			w.end()
		}
	}
}

func billedCode(r *rand.Rand, v int, c9, c10 versioned, n9, n10 int, filler func(v, k int) string) string {
	if r.Float64() < fillerShare {
		if v == 9 {
			return filler(v, r.IntN(n9))
		}
		return filler(v, r.IntN(n10))
	}
	c := c9
	if v == 10 {
		c = c10
	}
	return c.codes[pick(r, c.weights)].code
}

func genProcedures(r *rand.Rand, p *patient, w *row) {
	for i := range p.adms {
		a := &p.adms[i]
		v := icdVersion(a)
		n := count(r, 1.57, 1.0, 40)
		for seq := 1; seq <= n; seq++ {
			w.int(p.subject)
			w.int(a.hadm)
			w.int(int64(seq))
			w.date(within(r, a.admit, a.disch))
			w.str(billedCode(r, v, proc9, proc10, fillerProc9, fillerProc10, fillerProcedure))
			w.int(int64(v))
			w.end()
		}
	}
}

var drgDescriptions = []string{"HEART FAILURE & SHOCK", "SEPTICEMIA OR SEVERE SEPSIS W/O MV >96 HOURS W MCC",
	"CHEST PAIN", "PSYCHOSES", "SIMPLE PNEUMONIA & PLEURISY W CC", "RENAL FAILURE W CC", "CARDIAC ARRHYTHMIA & CONDUCTION DISORDERS W CC",
	"MAJOR JOINT REPLACEMENT OR REATTACHMENT OF LOWER EXTREMITY W/O MCC", "ALCOHOL/DRUG ABUSE OR DEPENDENCE W/O REHABILITATION THERAPY W/O MCC",
	"VAGINAL DELIVERY", "CESAREAN SECTION W/O STERILIZATION W/O CC/MCC", "G.I. HEMORRHAGE W CC", "INTRACRANIAL HEMORRHAGE OR CEREBRAL INFARCTION W CC"}

func genDRG(r *rand.Rand, p *patient, w *row) {
	for i := range p.adms {
		a := &p.adms[i]
		k := r.IntN(len(drgDescriptions))
		if r.Float64() < 0.78 {
			w.int(p.subject)
			w.int(a.hadm)
			w.str("HCFA")
			w.str(strconv.Itoa(100 + k*37%800))
			w.str(drgDescriptions[k])
			w.null()
			w.null()
			w.end()
		}
		if r.Float64() < 0.615 {
			w.int(p.subject)
			w.int(a.hadm)
			w.str("APR")
			w.str(strconv.Itoa(100 + k*53%800))
			w.str(drgDescriptions[k])
			w.int(int64(1 + r.IntN(4)))
			w.int(int64(1 + r.IntN(4)))
			w.end()
		}
	}
}

var hcpcsCatalogue = [][2]string{{"99223", "Hospital inpatient care typically 70 minutes per day"},
	{"99232", "Subsequent hospital inpatient care, typically 25 minutes per day"}, {"G0378", "Hospital observation per hr"},
	{"93010", "Electrocardiogram report"}, {"99291", "Critical care, first hour"}, {"36556", "Insert non-tunnel cv cath"},
	{"31500", "Insert emergency airway"}, {"94002", "Vent mgmt inpat init day"}}

func genHCPCSEvents(r *rand.Rand, p *patient, w *row) {
	for i := range p.adms {
		a := &p.adms[i]
		n := count(r, 0.34, 1.2, 30)
		for seq := 1; seq <= n; seq++ {
			c := hcpcsCatalogue[r.IntN(len(hcpcsCatalogue))]
			w.int(p.subject)
			w.int(a.hadm)
			w.date(within(r, a.admit, a.disch))
			w.str(c[0])
			w.int(int64(seq))
			w.str(c[1])
			w.end()
		}
	}
}

// Lab tests: about 434 per patient, heavy-tailed (demo: log-spread 1.1),
// two thirds of them during admissions for admitted patients, drawn in
// specimens of a few tests each.
func genLabevents(r *rand.Rand, p *patient, w *row) {
	mean := 100.0
	if len(p.adms) > 0 {
		mean = 645
	}
	n := count(r, mean, 1.1, 1<<20-1)
	j := 0
	specimen := 0
	for j < n {
		specimen++
		var hadm int64
		var t int64
		if len(p.adms) > 0 && r.Float64() < 0.67 {
			a := &p.adms[r.IntN(len(p.adms))]
			hadm = a.hadm
			t = within(r, a.admit, a.disch)
		} else {
			t = outpatientTime(r, p)
		}
		store := t + int64(1800+r.IntN(4*hourSec))
		priority := "ROUTINE"
		if x := r.Float64(); x < 0.3 {
			priority = "STAT"
		} else if x < 0.4 {
			priority = ""
		}
		provider := ""
		if r.Float64() < 0.4 {
			provider = randProvider(r)
		}
		for k := min(n-j, 1+r.IntN(10)); k > 0; k-- {
			it := &labItems[pick(r, labWeights)]
			w.int(int64(p.idx)<<20 | int64(j))
			w.int(p.subject)
			if hadm != 0 {
				w.int(hadm)
			} else {
				w.null()
			}
			w.int(int64(p.idx)<<20 | int64(specimen))
			w.int(it.itemid)
			w.optStr(provider, provider != "")
			w.time(t)
			w.time(store)
			v, text := 0.0, r.Float64() < 0.01
			if text {
				// De-identified free text: value '___', no number.
				w.str("___")
				w.null()
			} else {
				v = round(quantileValue(r, it.p5, it.p50, it.p95), it.prec)
				w.float(v, it.prec)
				w.float(v, it.prec)
			}
			w.optStr(it.unit, it.unit != "")
			if it.refHi > it.refLo {
				w.float(it.refLo, it.prec)
				w.float(it.refHi, it.prec)
				w.optStr("abnormal", !text && (v < it.refLo || v > it.refHi))
			} else {
				w.null()
				w.null()
				w.null()
			}
			w.optStr(priority, priority != "")
			w.optStr("___", text)
			w.end()
			j++
		}
	}
}
