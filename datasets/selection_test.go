package datasets

import (
	"strings"
	"testing"
)

// TestSelection: the subset flags' selection keeps the tasks of the split,
// the keys, the domain and the difficulty, then the first Limit of them
// (the count is after the limit, whatever the other filters kept); a
// split, key or domain the tasks lack is an error naming it; String gives
// the flags back.
func TestSelection(t *testing.T) {
	var tasks []*Task
	for _, k := range []string{
		"test/A/easy_level_queries/001", "validation/A/easy_level_queries/001", "validation/A/easy_level_queries/002",
		"validation/A/hard_level_queries/001", "validation/B/easy_level_queries/001", "validation/B/medium_level_queries/001",
	} {
		key, err := ParseKey(k)
		if err != nil {
			t.Fatal(err)
		}
		tasks = append(tasks, &Task{Key: key})
	}
	for _, tc := range []struct {
		sel     Selection
		want    []string // ids as domain/difficulty/id
		wantErr string
		str     string
	}{
		{sel: Selection{Split: "validation", Limit: 3}, want: []string{"A/easy/001", "A/easy/002", "A/hard/001"}, str: "--split validation --limit 3"},
		{sel: Selection{Domain: "B", Limit: 6}, want: []string{"B/easy/001", "B/medium/001"}, str: "--domain B --limit 6"},
		{sel: Selection{Split: "validation", Difficulty: "easy_level_queries"}, want: []string{"A/easy/001", "A/easy/002", "B/easy/001"}, str: "--split validation --difficulty easy"},
		{sel: Selection{Keys: []string{"validation/B/medium_level_queries/001"}}, want: []string{"B/medium/001"}, str: "--task validation/B/medium_level_queries/001"},
		{sel: Selection{Split: "validation"}, want: []string{"A/easy/001", "A/easy/002", "A/hard/001", "B/easy/001", "B/medium/001"}, str: ""},
		{sel: Selection{Split: "valid"}, wantErr: "--split valid: no such split in --tasks (have: test, validation)"},
		{sel: Selection{Domain: "C"}, wantErr: "--domain C: no such domain in --tasks (have: A, B)"},
		{sel: Selection{Keys: []string{"validation/C/easy_level_queries/001"}}, wantErr: "--task validation/C/easy_level_queries/001: no such task"},
		{sel: Selection{Difficulty: "tricky"}, wantErr: `--difficulty must be easy, medium or hard, not "tricky"`},
		{sel: Selection{Domain: "A", Difficulty: "medium"}, wantErr: "no task matches --domain A --difficulty medium"},
	} {
		got, err := tc.sel.Apply(tasks)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%+v: error %v, want %q", tc.sel, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%+v: %v", tc.sel, err)
			continue
		}
		var ids []string
		for _, task := range got {
			ids = append(ids, task.Domain+"/"+task.Difficulty+"/"+task.ID)
		}
		if strings.Join(ids, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%+v: kept %v, want %v", tc.sel, ids, tc.want)
		}
		if s := tc.sel.String(); s != tc.str {
			t.Errorf("%+v: String %q, want %q", tc.sel, s, tc.str)
		}
	}
	kept, unknown := KeepKeys(tasks, []Key{tasks[2].Key, {Split: "x", Domain: "y", Difficulty: "easy", ID: "1"}, tasks[2].Key})
	if len(kept) != 1 || kept[0] != tasks[2] || len(unknown) != 1 {
		t.Errorf("KeepKeys: kept %v, unknown %v", kept, unknown)
	}
}

// TestSelect: a run's recorded subset comes first, the flags narrow it,
// and the description names both; a recorded task --tasks lacks means the
// run was made from other tasks; an error of the flags says which subset
// it was looked for in. ForTasks names a --tasks that is part of a tree.
func TestSelect(t *testing.T) {
	var tasks []*Task
	for _, k := range []string{"validation/A/easy_level_queries/001", "validation/A/hard_level_queries/001", "validation/B/easy_level_queries/001"} {
		key, err := ParseKey(k)
		if err != nil {
			t.Fatal(err)
		}
		tasks = append(tasks, &Task{Key: key})
	}
	rec := &Recorded{Keys: []Key{tasks[0].Key, tasks[1].Key}, Label: "the run's subset: --domain A", From: "--run r"}
	other := &Recorded{Keys: []Key{{Split: "test", Domain: "A", Difficulty: "easy", ID: "009"}}, Label: "x", From: "--run r"}
	for _, tc := range []struct {
		name    string
		sel     *Selection
		rec     *Recorded
		n       int
		what    string
		wantErr string
	}{
		{name: "all", n: 3},
		{name: "whole split", sel: Selection{Split: "validation"}.ForTasks("data"), n: 3},
		{name: "flags", sel: Selection{Difficulty: "easy"}.ForTasks("data"), n: 2, what: "--difficulty easy"},
		{name: "recorded", rec: rec, n: 2, what: "the run's subset: --domain A"},
		{name: "recorded, narrowed", sel: &Selection{Limit: 1}, rec: rec, n: 1, what: "the run's subset: --domain A, then --limit 1"},
		{name: "recorded elsewhere", rec: other, wantErr: "--run r was made on 1 tasks, 1 of them not in --tasks data (first: test/A/easy_level_queries/009): give the --tasks it was made from"},
		{name: "flags outside the recorded", sel: &Selection{Domain: "B"}, rec: rec, wantErr: "--domain B: no such domain in --tasks (have: A) among the 2 tasks of --run r (the run's subset: --domain A)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, what, err := tc.sel.Select(tasks, "data", tc.rec)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || len(got) != tc.n || what != tc.what {
				t.Errorf("%d tasks, %q, %v; want %d, %q", len(got), what, err, tc.n, tc.what)
			}
		})
	}
	if s := (Selection{}).ForTasks("data.jsonl:3"); s == nil || s.Part != "data.jsonl:3 (one manifest line)" || s.String() != "--tasks data.jsonl:3 (one manifest line)" {
		t.Errorf("a manifest line: %+v", s)
	}
}

// TestGoldByQuestion: each task's gold SQL by its question; a task
// without gold is left out.
func TestGoldByQuestion(t *testing.T) {
	gold := GoldByQuestion([]*Task{{Question: "How many?", GoldSQL: "SELECT 1"}, {Question: "None?"}})
	if len(gold) != 1 || gold["How many?"] != "SELECT 1" {
		t.Errorf("%v", gold)
	}
}
