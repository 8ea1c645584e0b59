package bqduck

import (
	"context"
	"fmt"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/duckdb"
	"github.com/clinsql/clinsql/executor/mimic"
	"github.com/clinsql/clinsql/runfolder"
)

// ZeroDivision is what a division by zero gives (--zero-division).
type ZeroDivision string

const (
	// ZeroDivisionAuto is ZeroDivisionNull on a sample of MIMIC-IV and
	// ZeroDivisionError otherwise.
	ZeroDivisionAuto ZeroDivision = "auto"
	// ZeroDivisionError fails the query, as BigQuery does.
	ZeroDivisionError ZeroDivision = "error"
	// ZeroDivisionNull gives NULL, with a warning in the result.
	ZeroDivisionNull ZeroDivision = "null"
)

// ZeroDivisionHelp is --zero-division's usage.
const ZeroDivisionHelp = "duckdb engine: a division by zero fails the query as on BigQuery (error), or gives NULL with a warning in the result (null); " +
	"auto is null on a sample database (fewer than a tenth of MIMIC-IV v3.1's patients, e.g. the 100-patient demo, where an empty group is the sample's doing) and error otherwise"

// ParseZeroDivision reads a --zero-division value ("" is auto).
func ParseZeroDivision(s string) (ZeroDivision, error) {
	switch z := ZeroDivision(s); z {
	case "", ZeroDivisionAuto:
		return ZeroDivisionAuto, nil
	case ZeroDivisionError, ZeroDivisionNull:
		return z, nil
	}
	return "", &UsageError{Msg: fmt.Sprintf("--zero-division must be auto, error or null, not %q", s)}
}

// UsageError is an option given a value it cannot take.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// relaxed decides whether a division by zero gives NULL: in auto mode, on
// a sample of MIMIC-IV (facts, or countErr when the patients could not be
// counted). A count cut by the timeout is the timeout's error (class
// timeout): a timeout that short is the user's, as any query's.
func relaxed(facts runfolder.DatabaseFacts, countErr error, mode ZeroDivision) (bool, error) {
	switch mode {
	case ZeroDivisionError:
		return false, nil
	case ZeroDivisionNull:
		return true, nil
	}
	if executor.ClassOf(countErr) == executor.ClassTimeout {
		return false, fmt.Errorf("%s: counting patients for --zero-division auto: %w", executor.ClassTimeout, countErr)
	}
	if countErr != nil {
		return false, fmt.Errorf("--zero-division auto: counting patients: %w (give --zero-division error or null)", countErr)
	}
	return facts.Sample, nil
}

// databaseFacts reads what clinsql db build recorded about the database
// (mimic.FactsTable), or, for a database built before it did, counts its
// patients. The error is the count's: the facts are then zero (unknown).
func databaseFacts(ctx context.Context, eng *duckdb.Engine) (runfolder.DatabaseFacts, error) {
	if res, err := eng.QueryNative(ctx, mimic.FactsQuery); err == nil && len(res.Rows) == 1 {
		if f, err := mimic.ParseFacts(res.Rows[0]); err == nil {
			return runfolder.DatabaseFacts{Patients: f.Patients, Sample: mimic.IsSample(f.Patients), Source: f.Source, SourceSHA256: f.SourceSHA256}, nil
		}
	}
	res, err := eng.QueryNative(ctx, mimic.PatientsQuery)
	if err != nil {
		return runfolder.DatabaseFacts{}, err
	}
	n, ok := res.Rows[0][0].(int64)
	if !ok {
		return runfolder.DatabaseFacts{}, fmt.Errorf("patient count is %T", res.Rows[0][0])
	}
	return runfolder.DatabaseFacts{Patients: n, Sample: mimic.IsSample(n)}, nil
}
