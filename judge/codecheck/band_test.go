package codecheck

import (
	"math"
	"testing"
)

var inf = math.Inf(1)

func TestParseBands(t *testing.T) {
	type b = Band
	for _, tc := range []struct {
		text string
		want []Band
	}{
		{"Clinically Plausible (0-20)", []Band{{Lo: 0, Hi: 20}}},
		{"Acceptable Range (2-5)", []Band{{Lo: 2, Hi: 5}}},
		{"Acceptable Range (0.01 to 0.40)", []Band{{Lo: 0.01, Hi: 0.4}}},
		{"Values must be between 5 and 90", []Band{{Lo: 5, Hi: 90}}},
		{"Clinically Plausible (0-50%)", []Band{{Lo: 0, Hi: 50, Percent: true}}},
		{"Clinically Plausible (40.0-90.0 %)", []Band{{Lo: 40, Hi: 90, Percent: true}}},
		{"p90 LOS is clinically plausible (3.0-45.0 days)", []Band{{Lo: 3, Hi: 45, Unit: "days"}}},
		{"Acceptable Range (100.0-300.0 K/uL)", []Band{{Lo: 100, Hi: 300, Unit: "k/ul"}}},
		{"Value is within the acceptable range (>0.01 and <0.1).", []Band{{Lo: 0.01, Hi: 0.1, LoOpen: true, HiOpen: true}}},
		{"Acceptable Range for Insulin (-80.0 to -10.0)", []Band{{Lo: -80, Hi: -10}}},
		{"Clinically Plausible (-50.0 - 50.0)", []Band{{Lo: -50, Hi: 50}}},
		{"Clinically Plausible (1 - 50)", []Band{{Lo: 1, Hi: 50}}},
		{"Clinically Plausible (1 to 100000)", []Band{{Lo: 1, Hi: 100000}}},
		{"Patient counts are within an acceptable range for the cohort (10-5000)", []Band{{Lo: 10, Hi: 5000}}},
		{"Clinically Plausible: Values are between 0 and 100 percent.", []Band{{Lo: 0, Hi: 100, Percent: true}}},
		{"Acceptable Range (1,000-5,000)", []Band{{Lo: 1000, Hi: 5000}}},
		{"Clinically Plausible (5-80 breaths/min)", []Band{{Lo: 5, Hi: 80, Unit: "breaths/min"}}},
		{"Acceptable Range: In-hospital mortality for an ICH cohort is expected to be between 15% and 50%", []Band{{Lo: 15, Hi: 50, Percent: true}}},
		{"Values are within an acceptable range (Home: 60-95%, Facility: 30-70%, Mortality: 20-60%)", []Band{
			{Lo: 60, Hi: 95, Percent: true, Label: "Home"}, {Lo: 30, Hi: 70, Percent: true, Label: "Facility"}, {Lo: 20, Hi: 60, Percent: true, Label: "Mortality"}}},
		{"Acceptable Range: Ischemic Stroke (10 to 200), General ICU (200 to 2000)", []Band{
			{Lo: 10, Hi: 200, Label: "Ischemic Stroke"}, {Lo: 200, Hi: 2000, Label: "General ICU"}}},
		{"Acceptable Range for 'Hospice' (5.0 - 15.0 days)", []Band{{Lo: 5, Hi: 15, Unit: "days", Label: "Hospice"}}},
		// Interval notation and one bound (the rubric's "[0, 100]",
		// "(count >= 0)").
		{"Clinically Plausible [0, 100]", []Band{{Lo: 0, Hi: 100}}},
		{"Acceptable Range ([1, 3])", []Band{{Lo: 1, Hi: 3}}},
		{"Clinically plausible range: [1, 5]. It's unlikely ...", []Band{{Lo: 1, Hi: 5}}},
		{"Clinically Plausible (count >= 0)", []Band{{Lo: 0, Hi: inf}}},
		{"Clinically Plausible (>=1). The cohort must contain at least one patient.", []Band{{Lo: 1, Hi: inf}}},
		{"Patient counts are clinically plausible (>= 1)", []Band{{Lo: 1, Hi: inf}}},
		{"Clinically Plausible (Value > 0)", []Band{{Lo: 0, LoOpen: true, Hi: inf}}},
		{"Acceptable (< 5%)", []Band{{Lo: -inf, Hi: 5, HiOpen: true, Percent: true}}},
		{"Clinically Plausible (>=0.01 and < 1.0)", []Band{{Lo: 0.01, Hi: 1, HiOpen: true}}},
		// Not bands: a 30-day window, an ICD version, a lone value.
		{"Column exists for 30-day readmission rate", nil},
		{"Uses ICD-10 codes only", nil},
		{"The 'Borderline' category percentage (45.73) is within an acceptable range (20-65).", []Band{{Lo: 20, Hi: 65, Label: ""}}},
		{"There are exactly 4 categories of respiratory rate.", nil},
		{"Shock cohort has higher mean hypotension burden than No-Shock cohort", nil},
		// A reversed range is no band.
		{"Acceptable Range (10-5)", nil},
	} {
		got := ParseBands(tc.text)
		if len(got) != len(tc.want) {
			t.Errorf("ParseBands(%q) = %v, want %v", tc.text, got, tc.want)
			continue
		}
		for i := range got {
			g, w := got[i], tc.want[i]
			if g.Lo != w.Lo || g.Hi != w.Hi || g.LoOpen != w.LoOpen || g.HiOpen != w.HiOpen || g.Percent != w.Percent ||
				g.Unit != w.Unit || g.Label != w.Label {
				t.Errorf("ParseBands(%q)[%d] = %+v, want %+v", tc.text, i, g, w)
			}
		}
	}
	_ = b{}
}

func TestBandContains(t *testing.T) {
	closed := Band{Lo: 2, Hi: 5}
	open := Band{Lo: 0.01, Hi: 0.1, LoOpen: true, HiOpen: true}
	for _, tc := range []struct {
		b    Band
		v    float64
		want bool
	}{
		{closed, 2, true}, {closed, 5, true}, {closed, 1.999, false}, {closed, 5.0001, false},
		{open, 0.01, false}, {open, 0.1, false}, {open, 0.05, true},
	} {
		if got := tc.b.Contains(tc.v); got != tc.want {
			t.Errorf("%v.Contains(%v) = %v", tc.b, tc.v, got)
		}
	}
	if s := (Band{Lo: 0.01, Hi: 0.4, Percent: true, Label: "Home"}).String(); s != "Home: [0.01, 0.4] %" {
		t.Errorf("String = %q", s)
	}
}

func TestBandString(t *testing.T) {
	for _, c := range []struct {
		b    Band
		want string
	}{
		{Band{Lo: 2, Hi: 5}, "[2, 5]"},
		{Band{Lo: 0.01, Hi: 0.1, LoOpen: true, HiOpen: true}, "(0.01, 0.1)"},
		{Band{Lo: 1, Hi: inf}, ">= 1"},
		{Band{Lo: 0, LoOpen: true, Hi: inf}, "> 0"},
		{Band{Lo: -inf, Hi: 5, HiOpen: true, Percent: true}, "< 5 %"},
	} {
		if got := c.b.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.b, got, c.want)
		}
	}
}
