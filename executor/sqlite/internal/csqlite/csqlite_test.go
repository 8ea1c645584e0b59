package csqlite

import (
	"strings"
	"testing"
)

func TestPrepareTail(t *testing.T) {
	c, err := Open(":memory:", OpenReadWrite|OpenCreate)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, tc := range []struct{ sql, tail string }{
		{"SELECT 'é';  SELECT 2", "  SELECT 2"},
		{"SELECT 1", ""},
		{"SELECT 1; -- c", " -- c"},
	} {
		s, tail, err := c.Prepare(tc.sql)
		if err != nil {
			t.Fatal(err)
		}
		s.Finalize()
		if tail != tc.tail {
			t.Errorf("Prepare(%q) tail %q, want %q", tc.sql, tail, tc.tail)
		}
	}
	if s, _, err := c.Prepare("  -- nothing"); s != nil || err != nil {
		t.Errorf("empty statement: %v %v", s, err)
	}
	_, _, err = c.Prepare("SELEC")
	if !Is(err, CodeError) || !strings.Contains(err.Error(), "syntax error") {
		t.Errorf("syntax error: %v", err)
	}
	if !strings.HasPrefix(Version(), "3.") {
		t.Errorf("Version() = %q", Version())
	}
}

func TestValues(t *testing.T) {
	c, err := Open(":memory:", OpenReadWrite|OpenCreate)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, _, err := c.Prepare("SELECT 7, 2.5, 'a' || char(0) || 'b', x'00ff', NULL, x''")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Finalize()
	if ok, err := s.Step(); !ok || err != nil {
		t.Fatal(ok, err)
	}
	want := []int{Integer, Float, Text, Blob, Null, Blob}
	for i, w := range want {
		if got := s.ColumnType(i); got != w {
			t.Errorf("column %d: class %d, want %d", i, got, w)
		}
	}
	if s.Int64(0) != 7 || s.Float(1) != 2.5 || string(s.Text(2)) != "a\x00b" || string(s.Blob(3)) != "\x00\xff" || len(s.Blob(5)) != 0 || s.Blob(5) == nil {
		t.Errorf("values: %v %v %q %q %v", s.Int64(0), s.Float(1), s.Text(2), s.Blob(3), s.Blob(5))
	}
}
