package synth

import (
	"context"
	"testing"
)

// BenchmarkWrite reports the generator's speed in rows/s at 1,000 patients.
func BenchmarkWrite(b *testing.B) {
	for range b.N {
		rep, err := Write(context.Background(), Options{Patients: 1000, Seed: 1, Out: b.TempDir(), Workers: 2})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(rep.Rows)/rep.Duration.Seconds(), "rows/s")
		b.ReportMetric(float64(rep.Bytes)/float64(rep.Rows), "bytes/row")
	}
}
