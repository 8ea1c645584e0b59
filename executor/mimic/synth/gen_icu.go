package synth

import (
	"math"
	"math/rand/v2"
	"strconv"
)

// ICU tables: one set of rows per ICU stay, their number proportional to
// the stay's length (MIMIC-IV v3.1: 433 million chartevents rows over 94,458
// stays, about 4,600 a stay or 1,270 a day).

// meanStayDays is the mean ICU length of stay the skeleton draws.
const meanStayDays = 3.6

func stayDays(s *icuStay) float64 { return float64(s.out-s.in) / daySec }

// perStay draws the number of rows of a stay for a table with mean rows per
// stay of average length.
func perStay(r *rand.Rand, s *icuStay, mean float64, limit int) int {
	return count(r, mean*stayDays(s)/meanStayDays, 0.35, limit)
}

func eachStay(p *patient, f func(a *admission, s *icuStay)) {
	for i := range p.adms {
		a := &p.adms[i]
		for j := range a.stays {
			f(a, &a.stays[j])
		}
	}
}

func genICUStays(r *rand.Rand, p *patient, w *row) {
	eachStay(p, func(a *admission, s *icuStay) {
		w.int(p.subject)
		w.int(a.hadm)
		w.int(s.id)
		w.str(careUnits[s.unit].name)
		w.str(careUnits[s.last].name)
		w.time(s.in)
		w.time(s.out)
		w.float(round(stayDays(s), 6), 6)
		w.end()
	})
}

func stayPrefix(w *row, p *patient, a *admission, s *icuStay, r *rand.Rand) {
	w.int(p.subject)
	w.int(a.hadm)
	w.int(s.id)
	w.int(randCaregiver(r))
}

// gcsScore is the GCS component score of a text answer listed best first.
func gcsScore(itemid int64, k, n int) float64 {
	switch itemid {
	case 220739, 223900, 223901:
		return float64(n - k)
	}
	return math.NaN()
}

func genChartevents(r *rand.Rand, p *patient, w *row) {
	eachStay(p, func(a *admission, s *icuStay) {
		n := perStay(r, s, 4584, 2_000_000)
		if n == 0 {
			return
		}
		step := float64(s.out-s.in) / float64(n)
		t := float64(s.in)
		for range n {
			t += step * r.ExpFloat64()
			ct := min(int64(t), s.out)
			it := &chartItems[pick(r, chartWeights)]
			stayPrefix(w, p, a, s, r)
			w.time(ct)
			w.time(ct + int64(r.IntN(1200)))
			w.int(it.itemid)
			if it.texts != nil {
				k := r.IntN(len(it.texts))
				w.str(it.texts[k])
				if v := gcsScore(it.itemid, k, len(it.texts)); !math.IsNaN(v) {
					w.float(v, 0)
				} else {
					w.null()
				}
				w.null()
			} else {
				v := round(math.Min(it.hi, math.Max(it.lo, it.mean+it.sd*r.NormFloat64())), it.prec)
				w.float(v, it.prec)
				w.float(v, it.prec)
				w.optStr(it.unit, it.unit != "")
			}
			if r.Float64() < 0.002 {
				w.int(1)
			} else {
				w.int(0)
			}
			w.end()
		}
	})
}

func genDatetimeevents(r *rand.Rand, p *patient, w *row) {
	eachStay(p, func(a *admission, s *icuStay) {
		for range perStay(r, s, 105.7, 100_000) {
			it := &datetimeItems[pick(r, datetimeWeights)]
			t := within(r, s.in, s.out)
			stayPrefix(w, p, a, s, r)
			w.time(t)
			w.time(t + int64(r.IntN(1800)))
			w.int(it.itemid)
			v := t - int64(r.IntN(3*daySec))
			if it.unit == "Date" {
				v -= v % daySec
			}
			w.time(v)
			w.str(it.unit)
			w.int(0)
			w.end()
		}
	})
}

// amount draws an event's amount around its median within [lo, hi].
func amount(r *rand.Rand, it *eventItem) float64 {
	v := it.median * math.Exp(0.8*r.NormFloat64())
	return math.Min(it.hi, math.Max(it.lo, v))
}

// infusion writes the columns inputevents and ingredientevents share, from
// subject_id to linkorderid, and returns the amount and rate written.
func infusion(r *rand.Rand, w *row, p *patient, a *admission, s *icuStay, it *eventItem, order int64) (amt, rate float64) {
	start := within(r, s.in, s.out)
	end := start + int64(60+r.IntN(8*hourSec))
	amt = round(amount(r, it), 4)
	stayPrefix(w, p, a, s, r)
	w.time(start)
	w.time(end)
	w.time(end + int64(r.IntN(hourSec)))
	w.int(it.itemid)
	w.float(amt, 4)
	w.str(it.unit)
	if it.rateMedian > 0 {
		rate = round(it.rateMedian*math.Exp(0.6*r.NormFloat64()), 4)
		w.float(rate, 4)
		w.str(it.rateUnit)
	} else {
		w.null()
		w.null()
	}
	w.int(order)
	w.int(order)
	return amt, rate
}

var statuses = []string{"FinishedRunning", "FinishedRunning", "FinishedRunning", "Stopped", "ChangeDose/Rate", "Paused"}

func genInputevents(r *rand.Rand, p *patient, w *row) {
	weight := patientWeight(p)
	eachStay(p, func(a *admission, s *icuStay) {
		n := perStay(r, s, 116, 200_000)
		for j := range n {
			it := &inputItems[pick(r, inputWeights)]
			amt, rate := infusion(r, w, p, a, s, it, s.id*100_000+int64(j))
			w.str(it.orderCategory)
			w.optStr("Additive", r.Float64() < 0.1)
			w.str("Main order parameter")
			if it.rateMedian > 0 {
				w.str("Continuous Med")
			} else {
				w.str("Bolus")
			}
			w.float(weight, 1)
			w.float(round(amt*1.2, 2), 2)
			w.str("ml")
			w.int(int64(r.IntN(2)))
			w.int(0)
			w.str(statuses[r.IntN(len(statuses))])
			w.float(amt, 4)
			w.float(rate, 4)
			w.end()
		}
	})
}

func genIngredientevents(r *rand.Rand, p *patient, w *row) {
	eachStay(p, func(a *admission, s *icuStay) {
		n := perStay(r, s, 151, 300_000)
		for j := range n {
			it := &ingredientItems[pick(r, ingredientWeights)]
			_, rate := infusion(r, w, p, a, s, it, s.id*100_000+int64(j))
			w.str(statuses[r.IntN(len(statuses))])
			w.float(0, 0)
			w.float(rate, 4)
			w.end()
		}
	})
}

func genOutputevents(r *rand.Rand, p *patient, w *row) {
	eachStay(p, func(a *admission, s *icuStay) {
		for range perStay(r, s, 56.7, 100_000) {
			it := &outputItems[pick(r, outputWeights)]
			t := within(r, s.in, s.out)
			stayPrefix(w, p, a, s, r)
			w.time(t)
			w.time(t + int64(r.IntN(1800)))
			w.int(it.itemid)
			w.float(math.Round(amount(r, it)), 0)
			w.str(it.unit)
			w.end()
		}
	})
}

var locations = []string{"Left Arm", "Right Arm", "Left Hand", "Right Hand", "Left Radial", "Right Radial", "Left IJ", "Right IJ"}

func genProcedureevents(r *rand.Rand, p *patient, w *row) {
	weight := patientWeight(p)
	eachStay(p, func(a *admission, s *icuStay) {
		n := perStay(r, s, 8.6, 10_000)
		for j := range n {
			it := &procedureItems[pick(r, procedureWeights)]
			start := within(r, s.in, s.out)
			v := 1.0
			end := start + 60
			if it.unit == "min" {
				v = math.Round(amount(r, it))
				end = start + int64(v)*60
			}
			order := s.id*100_000 + 50_000 + int64(j)
			stayPrefix(w, p, a, s, r)
			w.time(start)
			w.time(end)
			w.time(end + int64(r.IntN(hourSec)))
			w.int(it.itemid)
			w.float(v, 0)
			w.str(it.unit)
			if it.category == "Access Lines - Peripheral" || it.category == "Access Lines - Invasive" {
				w.str(locations[r.IntN(len(locations))])
				w.str("Invasive Venous")
			} else {
				w.null()
				w.null()
			}
			w.int(order)
			w.int(order)
			w.str(it.orderCategory)
			w.str("Task")
			w.float(weight, 1)
			w.int(0)
			w.int(0)
			w.str(statuses[r.IntN(3)])
			w.float(v, 0)
			w.float(1, 0)
			w.end()
		}
	})
}

// Dictionaries.

func genProvider(r *rand.Rand, w *row) {
	for k := range nProviders {
		w.str(providerID(k))
		w.end()
	}
}

func genCaregiver(r *rand.Rand, w *row) {
	for k := range nCaregivers {
		w.int(caregiverID(k))
		w.end()
	}
}

func genDItems(r *rand.Rand, w *row) {
	used := map[int64]bool{}
	n := 0
	for _, it := range chartItems {
		used[it.itemid] = true
		w.int(it.itemid)
		w.str(it.label)
		w.str(it.abbrev)
		w.str("chartevents")
		w.str(it.category)
		w.optStr(it.unit, it.unit != "")
		if it.texts != nil {
			w.str("Text")
			w.null()
			w.null()
		} else {
			w.str("Numeric")
			w.float(round(it.mean-it.sd, it.prec), it.prec)
			w.float(round(it.mean+it.sd, it.prec), it.prec)
		}
		w.end()
		n++
	}
	for _, group := range [][]eventItem{inputItems, ingredientItems, outputItems, procedureItems, datetimeItems} {
		for _, it := range group {
			if used[it.itemid] {
				continue
			}
			used[it.itemid] = true
			w.int(it.itemid)
			w.str(it.label)
			w.str(it.label)
			w.str(it.linksto)
			w.str(it.category)
			w.optStr(it.unit, it.unit != "" && it.unit != "None")
			switch it.linksto {
			case "datetimeevents":
				w.str("Date time")
			case "procedureevents":
				w.str("Process")
			case "outputevents":
				w.str("Numeric")
			default:
				w.str("Solution")
			}
			w.null()
			w.null()
			w.end()
			n++
		}
	}
	// The rest of the dictionary: charted items no generated row uses.
	for id := int64(224000); n < nDItems; id++ {
		if used[id] {
			continue
		}
		w.int(id)
		label := "Charted item " + strconv.FormatInt(id, 10)
		w.str(label)
		w.str(label)
		w.str("chartevents")
		w.str("General")
		w.null()
		w.str("Text")
		w.null()
		w.null()
		w.end()
		n++
	}
}

func genDLabitems(r *rand.Rand, w *row) {
	used := map[int64]bool{}
	for _, it := range labItems {
		used[it.itemid] = true
		w.int(it.itemid)
		w.str(it.label)
		w.str(it.fluid)
		w.str(it.category)
		w.end()
	}
	n := len(labItems)
	fluids := []string{"Blood", "Urine", "Other Body Fluid", "Ascites", "Pleural", "Cerebrospinal Fluid"}
	for id := int64(50800); n < nDLabitems; id++ {
		if used[id] {
			continue
		}
		w.int(id)
		w.str("Lab test " + strconv.FormatInt(id, 10))
		w.str(fluids[id%int64(len(fluids))])
		w.str([]string{"Chemistry", "Hematology", "Blood Gas"}[id%3])
		w.end()
		n++
	}
}

// Dictionary tails: synthetic codes that cannot collide with a real one's
// format (ICD-9 diagnoses "E" + 5 digits, ICD-10 "Y" + 6; procedures "P"/"Q"),
// so the catalogue's codes are the only ones the Charlson rules can match.

// Filler codes per version: the generator bills from [0, n) and the
// dictionary holds the ICD-9 ones and at least as many ICD-10 ones.
const (
	fillerDiag9, fillerDiag10 = 14_000, 90_000
	fillerProc9, fillerProc10 = 12_000, 70_000
)

func fillerDiagnosis(v, k int) string {
	if v == 9 {
		return "E" + pad(k, 5)
	}
	return "Y" + pad(k, 6)
}

func fillerProcedure(v, k int) string {
	if v == 9 {
		return "P" + pad(k, 5)
	}
	return "Q" + pad(k, 6)
}

func pad(k, n int) string {
	s := strconv.Itoa(k)
	for len(s) < n {
		s = "0" + s
	}
	return s
}

func genICDDictionary(w *row, cat []diagnosis, total, n9 int, filler func(v, k int) string, noun string) {
	for _, d := range cat {
		w.str(d.code)
		w.int(int64(d.version))
		w.str(d.title)
		w.end()
	}
	rest := total - len(cat)
	for k := range rest {
		v, i := 9, k
		if k >= n9 {
			v, i = 10, k-n9
		}
		code := filler(v, i)
		w.str(code)
		w.int(int64(v))
		w.str("Synthetic " + noun + " " + code)
		w.end()
	}
}

func genDICDDiagnoses(r *rand.Rand, w *row) {
	genICDDictionary(w, diagnoses, nDICDDiagnoses, fillerDiag9, fillerDiagnosis, "diagnosis")
}

func genDICDProcedures(r *rand.Rand, w *row) {
	genICDDictionary(w, procedureCodes, nDICDProcedures, fillerProc9, fillerProcedure, "procedure")
}

func genDHCPCS(r *rand.Rand, w *row) {
	for _, c := range hcpcsCatalogue {
		w.str(c[0])
		w.int(1)
		w.str(c[1])
		w.str(c[1])
		w.end()
	}
	for k := range nDHCPCS - len(hcpcsCatalogue) {
		code := "S" + pad(k, 5)
		w.str(code)
		w.null()
		w.str("Synthetic service " + code)
		w.str("Synthetic " + code)
		w.end()
	}
}
