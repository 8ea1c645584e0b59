package judgefmt

// LeafKind says which code check, if any, applies to a results-rubric leaf.
type LeafKind string

const (
	// KindCSV: "CSV File Exists".
	KindCSV LeafKind = "csv_exists"
	// KindColumn: "Column exists for ... (e.g., `name`)".
	KindColumn LeafKind = "column_exists"
	// KindNoNull: "No NULL/Empty Values ...".
	KindNoNull LeafKind = "no_null"
	// KindBand: a value leaf with an acceptable interval, "Clinically
	// Plausible (0-20)".
	KindBand LeafKind = "band"
	// KindOther: a results leaf no check reads (trends, comparisons, counts
	// of categories). Decided by code only when there is no result at all.
	KindOther LeafKind = "other"
	// KindSQL: a leaf of the SQL rubric; never decided by code.
	KindSQL LeafKind = "sql"
)

// Evidence is what a code decision rests on.
type Evidence struct {
	// Column is the result column the leaf was bound to.
	Column string `json:"column,omitempty"`
	// Columns lists the columns inspected (no_null) or the result's
	// columns (column_exists).
	Columns []string `json:"columns,omitempty"`
	// Values are the values checked (at most maxEvidenceValues).
	Values []string `json:"values,omitempty"`
	// Band is the interval applied, in interval notation.
	Band string `json:"band,omitempty"`
	// Rows is the result's row count.
	Rows int `json:"rows"`
	// Match says how a column was found: exact, canonical, similar,
	// only, absent.
	Match string `json:"match,omitempty"`
}
