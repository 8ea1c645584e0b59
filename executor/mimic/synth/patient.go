package synth

import (
	"math"
	"math/rand/v2"
	"time"
)

// Cohort-level facts of MIMIC-IV v3.1 the skeleton is shaped to (totals from
// mimic-code's postgres/validate.sql divided by its 364,627 patients; the
// spreads from the open demo).
const (
	pAdmitted       = 0.613 // patients with at least one hospital admission (223,452 of 364,627)
	pExtraAdmission = 0.60  // geometric tail: 1 + Geom gives 2.44 admissions per admitted patient (2.5 before the cap)
	maxAdmissions   = 19    // hadm_id = base + 20*patient + k; stay_id = base + 40*patient + 2k (+1)
	pICU            = 0.157 // admissions with an ICU stay; 10% of them have two: 0.173 stays per admission
	pSecondStay     = 0.10
	pInHospitalDead = 0.022
	pDeadLater      = 0.07
	hourSec         = 3600
	daySec          = 86400
)

// Identifier bases. subject_id is 8 digits up to MIMIC-IV's size; the other
// identifiers are derived from the patient's index so any table can be
// written independently of the others and still join.
const (
	subjectBase = 10_000_000
	subjectStep = 27
	hadmBase    = 20_000_000
	stayBase    = 30_000_000
)

// patient is the skeleton every table of one patient is written from: drawn
// from its own random stream (seed, patient index), so the same patient has
// the same admissions and stays in every table whatever order they are
// written in.
type patient struct {
	idx        int
	subject    int64
	female     bool
	anchorAge  int
	anchorYear int
	dod        int64 // Unix seconds of the date of death, 0 if none
	adms       []admission
	// Per-patient order counts shared by the tables that refer to each
	// other (poe <- prescriptions, pharmacy <- emar, emar <- emar_detail).
	nPoe int
}

type admission struct {
	k           int
	hadm        int64
	admit       int64
	disch       int64
	typ         int // index into admissionTypes
	emergency   bool
	died        bool
	stays       []icuStay
	nPharmacy   int
	nEmar       int
	emarStart   int // first emar_seq of this admission
	pharmacyIDs int64
	insurance   int
	race        int
	marital     int
	language    int
	location    int
	discharge   int
	service     int
}

type icuStay struct {
	id      int64
	in, out int64
	unit    int
	last    int
}

func subjectID(idx int) int64 { return subjectBase + int64(idx)*subjectStep }

// lognormal draws a positive value of the given mean with log-spread sigma.
func lognormal(r *rand.Rand, mean, sigma float64) float64 {
	return mean * math.Exp(sigma*r.NormFloat64()-sigma*sigma/2)
}

// count draws a non-negative count of the given mean (stochastic rounding
// keeps the mean exact for small means), capped at max.
func count(r *rand.Rand, mean, sigma float64, max int) int {
	x := lognormal(r, mean, sigma)
	n := int(x)
	if r.Float64() < x-float64(n) {
		n++
	}
	return min(n, max)
}

// skeleton fills p for patient idx from its own stream.
func (w *worker) skeleton(p *patient, idx int) {
	w.spcg.Seed(w.seed, 0x9E3779B97F4A7C15^uint64(idx))
	r := w.srand
	*p = patient{idx: idx, subject: subjectID(idx), adms: p.adms[:0]}
	p.female = r.Float64() < 0.53
	// Anchor age: adults 18-91 (91 stands for older), skewed old as
	// MIMIC-IV's hospital population.
	age := 18 + int(math.Abs(r.NormFloat64()*24+38))
	if age > 91 {
		age = 91
	}
	p.anchorAge = age
	p.anchorYear = 2110 + r.IntN(99)
	t := yearStart(p.anchorYear) + int64(r.IntN(3*365))*daySec
	if r.Float64() < pAdmitted {
		n := 1
		for n < maxAdmissions && r.Float64() < pExtraAdmission {
			n++
		}
		emarSeq := 1
		for k := range n {
			a := admission{k: k, hadm: hadmBase + int64(idx)*20 + int64(k)}
			a.typ = pick(r, admissionTypeWeights)
			a.emergency = admissionTypes[a.typ].emergency
			a.admit = t + int64(r.IntN(daySec))
			los := lognormal(r, 5.0, 0.85) // days; demo: mean 6.9, median 4.9
			a.disch = a.admit + int64(los*daySec)
			a.insurance = pick(r, insuranceWeights)
			a.race = pick(r, raceWeights)
			a.marital = pick(r, maritalWeights)
			a.language = pick(r, languageWeights)
			a.location = pick(r, admitLocationWeights)
			a.discharge = pick(r, dischargeLocationWeights)
			a.service = pick(r, serviceWeights)
			a.nPharmacy = count(r, 32.7, 1.1, 999)
			a.nEmar = count(r, 78.4, 1.5, 20000)
			a.emarStart = emarSeq
			emarSeq += a.nEmar
			if r.Float64() < pICU {
				// An ICU stay inside the admission, which lasts past it.
				s := icuStay{id: stayBase + int64(idx)*40 + int64(2*k)}
				placeStay(r, &s, a.admit)
				a.stays = append(a.stays[:0], s)
				end := s.out
				if r.Float64() < pSecondStay {
					s2 := icuStay{id: s.id + 1}
					placeStay(r, &s2, s.out+daySec/2)
					a.stays = append(a.stays, s2)
					end = s2.out
				}
				if a.disch < end {
					a.disch = end + int64(r.IntN(3*daySec))
				}
			}
			if k == n-1 && r.Float64() < pInHospitalDead*float64(n) {
				a.died = true
				p.dod = a.disch - a.disch%daySec
			}
			p.adms = append(p.adms, a)
			t = a.disch + int64(r.ExpFloat64()*250*daySec) + daySec
		}
		p.nPoe = count(r, 95.6*float64(n), 1.2, 200000)
	} else {
		p.nPoe = count(r, 3, 1.0, 1000)
	}
	if p.dod == 0 && r.Float64() < pDeadLater {
		p.dod = t + int64(r.IntN(700))*daySec
		p.dod -= p.dod % daySec
	}
}

// placeStay places an ICU stay starting within a day of from: MIMIC-IV's
// ICU length of stay is log-normal (demo: median 2.2 days, mean 3.7).
func placeStay(r *rand.Rand, s *icuStay, from int64) {
	s.in = from + int64(r.IntN(daySec))
	los := lognormal(r, meanStayDays, 0.95)
	s.out = s.in + int64(los*daySec)
	s.unit = pick(r, careUnitWeights)
	s.last = s.unit
	if r.Float64() < 0.12 {
		s.last = pick(r, careUnitWeights)
	}
}

// yearStart is the Unix second of January 1 of year y.
func yearStart(y int) int64 { return time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC).Unix() }

// pick draws an index from cumulative weights.
func pick(r *rand.Rand, cum []float64) int {
	x := r.Float64() * cum[len(cum)-1]
	lo, hi := 0, len(cum)-1
	for lo < hi {
		m := (lo + hi) / 2
		if cum[m] > x {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// cumulative turns weights into the running sums pick draws from.
func cumulative(w ...float64) []float64 {
	out := make([]float64, len(w))
	s := 0.0
	for i, x := range w {
		s += x
		out[i] = s
	}
	return out
}
