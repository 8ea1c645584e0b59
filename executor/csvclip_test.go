package executor_test

import (
	"encoding/csv"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/clinsql/clinsql/executor"
)

func readAll(t *testing.T, r io.Reader, lazy bool) [][]string {
	t.Helper()
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = lazy
	recs, err := cr.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// ClipCells cuts long cells and nothing else: the records and fields read
// through it are those of the original, each cut to the cap.
func TestClipCells(t *testing.T) {
	cases := []struct{ in, want string }{
		{"a,b\n1,2\n", "a,b\n1,2\n"},
		{"a\nabcdefgh\n", "a\nabcd…\n"},
		{"a,b\n\"abc,defgh\",x\n", "a,b\n\"abc,…\",x\n"},
		{"a\n\"ab\"\"cdef\"\n", "a\n\"ab\"\"…\"\n"},
		{"a\n\"ab\"\"\"\n", "a\n\"ab\"\"\"\n"},
		{"a\r\nabcdef\r\n", "a\r\nabcd…\r\n"},
		{"a\néééé\n", "a\néé…\n"},
		{"a\n\"abcdef", "a\n\"abcd…"},
		{"a\n\"\"\n", "a\n\"\"\n"},
		{"a,b\n,\n", "a,b\n,\n"},
	}
	for _, c := range cases {
		got, err := io.ReadAll(executor.ClipCells(strings.NewReader(c.in), 4))
		if err != nil || string(got) != c.want {
			t.Errorf("ClipCells(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// The same records come out, one byte at a time or in bulk, and cells
// within the cap are untouched.
func TestClipCellsRecords(t *testing.T) {
	in := "id,text\n1,\"multi\nline, quoted \"\"cell\"\"\"\n2,plain\n3,\n"
	want := readAll(t, strings.NewReader(in), false)
	for _, r := range []io.Reader{executor.ClipCells(strings.NewReader(in), 1000), iotest.OneByteReader(executor.ClipCells(iotest.OneByteReader(strings.NewReader(in)), 1000))} {
		got := readAll(t, r, false)
		if len(got) != len(want) {
			t.Fatalf("%d records, want %d", len(got), len(want))
		}
		for i := range got {
			if strings.Join(got[i], "|") != strings.Join(want[i], "|") {
				t.Errorf("record %d: %q, want %q", i, got[i], want[i])
			}
		}
	}
}

// A 64 MB cell is read through a few kilobytes of buffer.
func TestClipCellsHuge(t *testing.T) {
	huge := io.MultiReader(strings.NewReader("s\n\""), io.LimitReader(repeatReader('x'), 64<<20), strings.NewReader("\"\n"))
	recs := readAll(t, executor.ClipCells(huge, 100), false)
	if len(recs) != 2 || recs[1][0] != strings.Repeat("x", 100)+executor.ClipMark {
		t.Fatalf("%d records, cell of %d bytes", len(recs), len(recs[len(recs)-1][0]))
	}
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// BenchmarkClipCells reads the largest released model result through the
// clipper (throughput in MB/s).
func BenchmarkClipCells(b *testing.B) {
	row := "12345678,2150-01-01 00:00:00,\"some text, quoted\",3.14159\n"
	in := "a,b,c,d\n" + strings.Repeat(row, 1_882_887/len(row))
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := io.Copy(io.Discard, executor.ClipCells(strings.NewReader(in), 64<<10)); err != nil {
			b.Fatal(err)
		}
	}
}
