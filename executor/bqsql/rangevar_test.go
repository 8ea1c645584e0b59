package bqsql

import (
	"context"
	"errors"
	"testing"
)

// An unaliased FROM path written as one backticked identifier
// (`project.dataset.table`) is one identifier: BigQuery's implicit alias is
// the whole dotted text (query syntax reference, implicit aliases), so a
// bare name equal to the table's last component is a column, and the last
// component cannot qualify a column ("Unrecognized name"). Written in parts,
// the last part is the alias, as before.
func TestBacktickedPathAlias(t *testing.T) {
	db := openDuck(t)
	ctx := context.Background()
	for _, s := range []string{
		`CREATE SCHEMA mimiciv_3_1_derived`,
		`CREATE TABLE mimiciv_3_1_derived.age (subject_id BIGINT, age BIGINT)`,
		`INSERT INTO mimiciv_3_1_derived.age VALUES (1, 70)`,
	} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		bq, want string
		fails    bool
	}{
		{bq: "SELECT age FROM `physionet-data.mimiciv_3_1_derived.age`", want: "70"},
		{bq: "SELECT age.age FROM `physionet-data`.mimiciv_3_1_derived.age", want: "70"},
		{bq: "SELECT a.age FROM `physionet-data.mimiciv_3_1_derived.age` AS a", want: "70"},
		{bq: "SELECT age.subject_id FROM `physionet-data.mimiciv_3_1_derived.age`", fails: true},
	} {
		out, err := Translate(c.bq)
		if err != nil {
			if c.fails && errors.Is(err, ErrInvalid) {
				continue
			}
			t.Errorf("Translate(%q): %v", c.bq, err)
			continue
		}
		got, _, err := queryFormatted(ctx, db, out)
		switch {
		case c.fails && err == nil:
			t.Errorf("%s\n%s ran (%q); BigQuery rejects it", c.bq, out, got)
		case !c.fails && err != nil:
			t.Errorf("%s\n%s: %v", c.bq, out, err)
		case !c.fails && got != c.want:
			t.Errorf("%s\n%s = %q, want %q", c.bq, out, got, c.want)
		}
	}
}
