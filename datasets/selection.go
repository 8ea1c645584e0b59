package datasets

import (
	"fmt"
	"slices"
	"strings"
)

// Selection chooses part of a task set: the subset flags every clinsql
// command that takes tasks shares (--split, --task, --domain,
// --difficulty, --limit), and a --tasks that names part of the tree. A
// run's manifest records the selection it was generated with, so that the
// commands after generate take the run's subset without the flags being
// typed again (runfolder.Manifest.Selection).
type Selection struct {
	Split string `json:"split,omitempty"`
	// Keys are --task keys (split/Domain/difficulty_level_queries/id).
	Keys       []string `json:"task,omitempty"`
	Domain     string   `json:"domain,omitempty"`
	Difficulty string   `json:"difficulty,omitempty"`
	// Limit keeps the first N tasks, in key order, after the rest.
	Limit int `json:"limit,omitempty"`
	// Part is a --tasks that names part of the tree ("DIR (one domain)").
	Part string `json:"part,omitempty"`
}

// Active reports whether the selection keeps only some tasks of its
// splits. A split alone is a whole split: not a subset.
func (s *Selection) Active() bool {
	return s != nil && (len(s.Keys) > 0 || s.Domain != "" || s.Difficulty != "" || s.Limit > 0 || s.Part != "")
}

// String is the selection as the flags that make it
// ("--domain Vital_Signs_Monitoring --limit 6"), "" when it is inactive.
func (s *Selection) String() string {
	if !s.Active() {
		return ""
	}
	var parts []string
	if s.Part != "" {
		parts = append(parts, "--tasks "+s.Part)
	}
	if s.Split != "" {
		parts = append(parts, "--split "+s.Split)
	}
	for _, k := range s.Keys {
		parts = append(parts, "--task "+k)
	}
	if s.Domain != "" {
		parts = append(parts, "--domain "+s.Domain)
	}
	if s.Difficulty != "" {
		parts = append(parts, "--difficulty "+s.Difficulty)
	}
	if s.Limit > 0 {
		parts = append(parts, fmt.Sprintf("--limit %d", s.Limit))
	}
	return strings.Join(parts, " ")
}

// ForTasks is the selection with --tasks root as its Part when root names
// part of the tree (a domain, difficulty or task folder, a manifest
// line); nil when the selection keeps every task.
func (s Selection) ForTasks(root string) *Selection {
	if kind := PartKind(root); kind != "" {
		s.Part = fmt.Sprintf("%s (one %s)", root, kind)
	} else if strings.Contains(root, ".jsonl:") {
		s.Part = root + " (one manifest line)"
	}
	if !s.Active() && s.Split == "" {
		return nil
	}
	return &s
}

// Recorded is the subset a run was made on (runfolder.RunSubset,
// reports.RunsSubset): its tasks' keys, Label describing it and From
// naming where it is recorded ("--run DIR"), for messages.
type Recorded struct {
	Keys        []Key
	Label, From string
}

// Select keeps the tasks of the recorded subset (rec nil: none), then
// those s selects (s nil: all), of tasks loaded from --tasks root. It
// returns them with the subset's description ("" for whole splits). A
// recorded task that root lacks is an error: the run was made from other
// tasks.
func (s *Selection) Select(tasks []*Task, root string, rec *Recorded) ([]*Task, string, error) {
	if rec != nil {
		kept, unknown := KeepKeys(tasks, rec.Keys)
		if len(unknown) > 0 {
			return nil, "", fmt.Errorf("%s was made on %d tasks, %d of them not in --tasks %s (first: %s): give the --tasks it was made from",
				rec.From, len(rec.Keys), len(unknown), root, unknown[0])
		}
		tasks = kept
	}
	tasks, err := s.Apply(tasks)
	switch {
	case err != nil && rec != nil:
		return nil, "", fmt.Errorf("%w among the %d tasks of %s (%s)", err, len(rec.Keys), rec.From, rec.Label)
	case err != nil:
		return nil, "", err
	case rec != nil && s.String() != "":
		return tasks, rec.Label + ", then " + s.String(), nil
	case rec != nil:
		return tasks, rec.Label, nil
	}
	return tasks, s.String(), nil
}

// Equal reports whether two selections choose by the same flags.
func (s *Selection) Equal(o *Selection) bool {
	if s == nil || o == nil {
		return s == o
	}
	return s.Split == o.Split && slices.Equal(s.Keys, o.Keys) && s.Domain == o.Domain &&
		s.Difficulty == o.Difficulty && s.Limit == o.Limit && s.Part == o.Part
}

// Check refuses a selection whose flags cannot select anything whatever
// the tasks: a difficulty that is none, a --task that is no key, a
// negative limit. (A domain or key the tasks lack is Apply's error.)
func (s *Selection) Check() error {
	if s == nil {
		return nil
	}
	if s.Difficulty != "" {
		s.Difficulty = strings.TrimSuffix(s.Difficulty, "_level_queries")
		if !slices.Contains(Difficulties, s.Difficulty) {
			return fmt.Errorf("--difficulty must be easy, medium or hard, not %q", s.Difficulty)
		}
	}
	for _, k := range s.Keys {
		if _, err := ParseKey(k); err != nil {
			return fmt.Errorf("--task: %v", err)
		}
	}
	if s.Limit < 0 {
		return fmt.Errorf("--limit must not be negative")
	}
	return nil
}

// Apply keeps the selected tasks, in their order: those of the split, the
// keys, the domain and the difficulty, then the first Limit of them. A
// split, key or domain that the tasks lack, or a selection that keeps
// nothing, is an error naming it, never an empty task set.
func (s *Selection) Apply(tasks []*Task) ([]*Task, error) {
	if s == nil || (!s.Active() && s.Split == "") {
		return tasks, nil
	}
	if err := s.Check(); err != nil {
		return nil, err
	}
	want := map[Key]bool{}
	for _, k := range s.Keys {
		key, _ := ParseKey(k)
		want[key] = false
	}
	splits, domains := map[string]bool{}, map[string]bool{}
	var out []*Task
	for _, t := range tasks {
		splits[t.Split] = true
		if s.Split != "" && t.Split != s.Split {
			continue
		}
		domains[t.Domain] = true
		if len(want) > 0 {
			if _, ok := want[t.Key]; !ok {
				continue
			}
			want[t.Key] = true
		}
		if s.Domain != "" && t.Domain != s.Domain || s.Difficulty != "" && t.Difficulty != s.Difficulty {
			continue
		}
		if s.Limit > 0 && len(out) == s.Limit {
			continue
		}
		out = append(out, t)
	}
	if s.Split != "" && !splits[s.Split] {
		return nil, fmt.Errorf("--split %s: no such split in --tasks (have: %s)", s.Split, strings.Join(sortedNames(splits), ", "))
	}
	for _, k := range s.Keys {
		if key, _ := ParseKey(k); !want[key] {
			return nil, fmt.Errorf("--task %s: no such task in --tasks", key)
		}
	}
	if s.Domain != "" && !domains[s.Domain] {
		return nil, fmt.Errorf("--domain %s: no such domain in --tasks (have: %s)", s.Domain, strings.Join(sortedNames(domains), ", "))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no task matches %s", s)
	}
	return out, nil
}

func sortedNames(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// KeepKeys returns the tasks whose key is in keys, in their order, and
// the keys no task has, once each in the order given.
func KeepKeys(tasks []*Task, keys []Key) (kept []*Task, unknown []Key) {
	want := make(map[Key]bool, len(keys))
	for _, k := range keys {
		want[k] = false
	}
	for _, t := range tasks {
		if found, ok := want[t.Key]; ok && !found {
			want[t.Key] = true
			kept = append(kept, t)
		}
	}
	for _, k := range keys {
		if !want[k] {
			unknown = append(unknown, k)
			want[k] = true
		}
	}
	return kept, unknown
}
