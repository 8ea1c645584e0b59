package synth

import (
	"math/rand/v2"
	"strconv"
)

var specimens = []struct {
	itemid int64
	desc   string
	weight float64
}{{70012, "BLOOD CULTURE", 30}, {70079, "URINE", 25}, {70091, "MRSA SCREEN", 12}, {70062, "SPUTUM", 6},
	{70070, "SWAB", 5}, {70087, "SEROLOGY/BLOOD", 8}, {70067, "STOOL", 6}, {70021, "BRONCHOALVEOLAR LAVAGE", 2}}
var specimenWeights = weightsOf(specimens, func(s struct {
	itemid int64
	desc   string
	weight float64
}) float64 {
	return s.weight
})

var organisms = []struct {
	itemid int64
	name   string
}{{80002, "ESCHERICHIA COLI"}, {80023, "STAPH AUREUS COAG +"}, {80053, "ENTEROCOCCUS SP."}, {80026, "PSEUDOMONAS AERUGINOSA"},
	{80004, "KLEBSIELLA PNEUMONIAE"}, {80155, "STAPHYLOCOCCUS, COAGULASE NEGATIVE"}, {80075, "YEAST"}, {80139, "CANDIDA ALBICANS"}}

var antibiotics = []struct {
	itemid int64
	name   string
}{{90012, "GENTAMICIN"}, {90004, "AMPICILLIN"}, {90025, "CEFTRIAXONE"}, {90015, "VANCOMYCIN"}, {90026, "CIPROFLOXACIN"},
	{90010, "TRIMETHOPRIM/SULFA"}, {90016, "PIPERACILLIN/TAZO"}, {90019, "MEROPENEM"}, {90006, "CEFAZOLIN"}, {90028, "OXACILLIN"}}

func genMicro(r *rand.Rand, p *patient, w *row) {
	n := count(r, 10.94, 1.3, 1<<16-1)
	spec := 0
	for j := 0; j < n; {
		spec++
		a, t := orderFor(r, p)
		sp := specimens[pick(r, specimenWeights)]
		grew := r.Float64() < 0.3
		rows := 1
		if grew {
			rows = min(n-j, 1+r.IntN(len(antibiotics)))
		}
		org := organisms[r.IntN(len(organisms))]
		for k := 0; k < rows; k++ {
			w.int(int64(p.idx)<<16 | int64(j))
			w.int(p.subject)
			hadmOrNull(w, a)
			w.int(int64(p.idx)<<16 | int64(spec))
			w.optStr(randProvider(r), r.Float64() < 0.5)
			w.time(t - t%daySec)
			if r.Float64() < 0.9 {
				w.time(t)
			} else {
				w.null()
			}
			w.int(sp.itemid)
			w.str(sp.desc)
			w.int(1)
			store := t + int64(daySec+r.IntN(3*daySec))
			w.time(store - store%daySec)
			w.time(store)
			w.int(90200 + sp.itemid%100)
			w.str(sp.desc + " TEST")
			if grew {
				w.int(org.itemid)
				w.str(org.name)
				w.int(1)
				w.null()
				ab := antibiotics[k%len(antibiotics)]
				w.int(ab.itemid)
				w.str(ab.name)
				w.str("<=1")
				w.str("<=")
				w.float(1, 1)
				w.str([]string{"S", "S", "S", "R", "I"}[r.IntN(5)])
				w.null()
			} else {
				for range 10 {
					w.null()
				}
				w.str("No growth.")
			}
			w.end()
			j++
		}
	}
}

func genOMR(r *rand.Rand, p *patient, w *row) {
	n := count(r, 21.26, 1.2, 5000)
	heightIn := 60 + float64(p.subject*31%150)/10
	weightLb := patientWeight(p) * 2.2046
	for j := 0; j < n; j++ {
		t := outpatientTime(r, p)
		w.int(p.subject)
		w.date(t)
		w.int(int64(1 + r.IntN(3)))
		switch x := r.Float64(); {
		case x < 0.4:
			w.str("Blood Pressure")
			sys := 90 + r.IntN(80)
			w.str(strconv.Itoa(sys) + "/" + strconv.Itoa(sys/2+r.IntN(30)))
		case x < 0.7:
			w.str("Weight (Lbs)")
			w.str(strconv.FormatFloat(round(weightLb+r.NormFloat64()*4, 1), 'f', -1, 64))
		case x < 0.9:
			w.str("BMI (kg/m2)")
			bmi := weightLb * 703 / (heightIn * heightIn)
			w.str(strconv.FormatFloat(round(bmi, 1), 'f', 1, 64))
		case x < 0.98:
			w.str("Height (Inches)")
			w.str(strconv.FormatFloat(heightIn, 'f', 1, 64))
		default:
			w.str("eGFR")
			w.str(strconv.Itoa(20 + r.IntN(80)))
		}
		w.end()
	}
}
