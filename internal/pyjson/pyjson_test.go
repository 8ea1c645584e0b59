package pyjson

import (
	"math"
	"testing"
)

func TestMarshal(t *testing.T) {
	v := Object{
		{"name", "gpt‑5 “chat” \\ \n\t\x01 😀 ~\x7f"},
		{"n", 189},
		{"avg", 0.72037},
		{"one", 1.0},
		{"tiny", 1e-05},
		{"nan", math.NaN()},
		{"list", []any{1.5, nil, true, Object{}}},
		{"empty", []any{}},
		{"obj", Object{{"a", int64(2)}}},
	}
	// Expected: python3 -c 'import json; print(json.dumps({...}, indent=2))'
	want := `{
  "name": "gpt\u20115 \u201cchat\u201d \\ \n\t\u0001 \ud83d\ude00 ~\u007f",
  "n": 189,
  "avg": 0.72037,
  "one": 1.0,
  "tiny": 1e-05,
  "nan": NaN,
  "list": [
    1.5,
    null,
    true,
    {}
  ],
  "empty": [],
  "obj": {
    "a": 2
  }
}`
	got, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if _, err := Marshal(struct{}{}); err == nil {
		t.Error("want an error for an unsupported type")
	}
}
