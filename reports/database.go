package reports

import (
	"fmt"
	"strings"
)

// Engine names as run manifests record them (duckdb.EngineName,
// bigquery.Name; not imported: reports does not link the engines).
const (
	engineDuckDB   = "duckdb"
	engineBigQuery = "bigquery"
)

// DatabaseNote is what the report says about the data a model's answers ran
// on, from its run folder's manifest. Runs without a manifest (released
// runs, executed on BigQuery) get none.
type DatabaseNote struct {
	// Engine is the manifest's engine name, "unknown" when it names none.
	Engine string `json:"engine"`
	// Patients is the database's patient count, 0 when unknown.
	Patients int64 `json:"patients,omitempty"`
	// Sample: fewer than a tenth of MIMIC-IV's patients.
	Sample bool   `json:"sample"`
	Source string `json:"source,omitempty"`
	// Badge is the short label beside the model's name; Caveat the
	// sentence that says why its scores are not comparable.
	Badge  string `json:"badge"`
	Caveat string `json:"caveat"`
}

// databaseNote reads what a model's run says of its engine (its
// manifest, else its task summaries: a run read through its split folder,
// or whose manifest is gone, is still the same run): nil when the run says
// nothing (a released run), or when its answers ran on the whole of
// MIMIC-IV. What the run does not say is said to be unknown, never
// guessed.
func (m *Model) databaseNote() *DatabaseNote {
	if m.Engine == nil {
		return nil
	}
	e := *m.Engine
	n := &DatabaseNote{Engine: e.Name, Patients: e.Patients, Sample: e.OnSample(), Source: e.Source}
	if n.Engine == "" {
		n.Engine = "unknown"
	}
	patients := "patient count unknown"
	if e.Patients > 0 {
		patients = fmt.Sprintf("%d patients", e.Patients)
	}
	from := ""
	if e.Source != "" {
		from = ", built from " + e.Source
	}
	switch {
	case n.Sample:
		n.Badge = fmt.Sprintf("sample DB: %s, %s", n.Engine, patients)
		n.Caveat = fmt.Sprintf("%s ran on a sample database (%s, %s%s): its scores are not comparable with runs on BigQuery (the whole of MIMIC-IV).",
			m.Name, n.Engine, patients, from)
	case e.Name == engineBigQuery && e.Patients == 0:
		return nil // BigQuery: the whole of MIMIC-IV, as the released runs
	case e.Patients > 0:
		return nil // a database of the whole of MIMIC-IV (or most of it)
	case e.Name == "":
		n.Badge = "engine unknown, " + patients
		n.Caveat = fmt.Sprintf("%s: its run's manifest names no engine and no patient count; its scores may not be comparable with runs on BigQuery.", m.Name)
	default:
		n.Badge = fmt.Sprintf("%s, %s", n.Engine, patients)
		n.Caveat = fmt.Sprintf("%s ran on %s with a database whose patient count its manifest does not record (written before clinsql recorded it%s): it may be a sample, and its scores may not be comparable with runs on BigQuery.",
			m.Name, n.Engine, from)
	}
	return n
}

// databaseCaveats lists the models' database caveats, in model order.
func (r *Report) databaseCaveats() []string {
	var out []string
	for _, m := range r.Models {
		if n := m.Database; n != nil {
			out = append(out, n.Caveat)
		}
	}
	return out
}

// badgeOf is the model's database badge, "" without one.
func (r *Report) badgeOf(name string) string {
	if m := r.Model(name); m != nil && m.Database != nil {
		return m.Database.Badge
	}
	return ""
}

// withBadge appends a model's badge to its name, for plain-text tables.
func (r *Report) withBadge(name string) string {
	if b := r.badgeOf(name); b != "" {
		return strings.TrimSpace(name + " (" + b + ")")
	}
	return name
}
