package refine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/clinsql/clinsql/executor/mimic"
)

// sharedNoteMin is how many tables must carry the same note on the same
// column for it to be stated once, in the general notes, rather than under
// every table.
const sharedNoteMin = 3

// SchemaText renders s as the schema reference shown to models: every
// table, fully qualified as BigQuery names it, with its description, its
// columns and BigQuery types in table order, and the notes on easily confused
// columns. A note that many tables share on the same column (subject_id,
// stay_id, itemid, icd_version, ...) is stated once at the top. The text is a
// pure function of s, so a prompt changes only when the schema does.
func SchemaText(s *mimic.Schema) string {
	type noteKey struct{ col, note string }
	count := map[noteKey]int{}
	carriers := map[noteKey][]string{} // tables carrying the note
	having := map[string]int{}         // tables having the column
	for _, t := range s.Tables {
		for _, c := range t.Columns {
			having[c.Name]++
			if c.Note != "" {
				k := noteKey{c.Name, c.Note}
				count[k]++
				carriers[k] = append(carriers[k], t.Name)
			}
		}
	}
	var shared []noteKey
	for k, n := range count {
		if n >= sharedNoteMin {
			shared = append(shared, k)
		}
	}
	sort.Slice(shared, func(i, j int) bool {
		if shared[i].col != shared[j].col {
			return shared[i].col < shared[j].col
		}
		return shared[i].note < shared[j].note
	})
	isShared := map[noteKey]bool{}
	for _, k := range shared {
		isShared[k] = true
	}

	var b strings.Builder
	if len(shared) > 0 {
		b.WriteString("Notes on columns that many tables share:\n")
		for _, k := range shared {
			where := "wherever it appears"
			if len(carriers[k]) != having[k.col] {
				where = "in " + strings.Join(carriers[k], ", ")
			}
			fmt.Fprintf(&b, "- %s (%s): %s\n", k.col, where, k.note)
		}
	}
	var datasets []string
	for _, t := range s.Tables {
		if len(datasets) == 0 || datasets[len(datasets)-1] != t.Dataset {
			datasets = append(datasets, t.Dataset)
		}
	}
	for _, ds := range datasets {
		fmt.Fprintf(&b, "\nDataset `%s.%s`:\n", mimic.Project, ds)
		for _, t := range s.Dataset(ds) {
			fmt.Fprintf(&b, "\n`%s`", t.BigQueryName())
			if t.Description != "" {
				fmt.Fprintf(&b, ": %s", t.Description)
			}
			b.WriteString("\n  columns: ")
			for i, c := range t.Columns {
				if i > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "%s %s", c.Name, c.Type)
			}
			b.WriteByte('\n')
			for _, c := range t.Columns {
				if c.Note != "" && !isShared[noteKey{c.Name, c.Note}] {
					fmt.Fprintf(&b, "  - %s: %s\n", c.Name, c.Note)
				}
			}
		}
	}
	return b.String()
}

// DatasetNames returns the fully qualified datasets of s in schema order
// ("physionet-data.mimiciv_3_1_hosp", ...).
func DatasetNames(s *mimic.Schema) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range s.Tables {
		if !seen[t.Dataset] {
			seen[t.Dataset] = true
			out = append(out, mimic.Project+"."+t.Dataset)
		}
	}
	return out
}
