package reports

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/rubric"
	"github.com/clinsql/clinsql/scoring"
)

// HealthNote says what the judge-health table's columns count.
const HealthNote = "Leaves over all tasks of the model's splits, by verdict. Invalid verdict: the judge gave no valid verdict " +
	"(an API error, an unreadable reply, or, replaying, no recorded decision that applies); never a pass in strict mode. " +
	"Skipped: not judged because it could not change the score. Missing: no decision (including every leaf of an ungraded task). " +
	"Invalid leaves (tasks): as in the leaderboard, those invalid, skipped or missing leaves that could change the score, and the tasks holding them. " +
	"Code, LLM, Replay: decided by clinsql judge's code checks, its LLM judge, or replayed recorded decisions; Recorded: decided by " +
	"the reference's LLM judge, as recorded in the grading file. LLM share counts every LLM decision, recorded or replayed."

// HealthRow is how one model's leaves were judged.
type HealthRow struct {
	Model string `json:"model"`
	// Judge names who judged: the recorded reference judge, or clinsql
	// judge's backend ("replay:<file>", "llm:<endpoint>/<model>") and mode.
	Judge string `json:"judge"`
	// Complete is false when the judge stopped before deciding every leaf
	// (nil without a judge summary).
	Complete *bool `json:"complete,omitempty"`
	// Tasks is the number of tasks of the model's splits; Ungraded those
	// the decisions lack.
	Tasks    int `json:"tasks"`
	Ungraded int `json:"ungraded_tasks"`
	// Leaves over all those tasks, by verdict: Invalid counts the
	// verdicts of status invalid (the judge gave no valid verdict).
	Leaves  int `json:"leaves"`
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Invalid int `json:"invalid"`
	Skipped int `json:"skipped"`
	Missing int `json:"missing"`
	// InvalidLeaves and InvalidTasks are the leaderboard's invalid leaves
	// (tasks) over the model's splits (InvalidLeavesNote): those of the
	// invalid, skipped and missing leaves that could change the score.
	InvalidLeaves int `json:"invalid_leaves"`
	InvalidTasks  int `json:"tasks_with_invalid_leaves"`
	// BySource counts the leaves with a verdict (pass, fail or invalid) by
	// who decided them (SourceCode, SourceLLM, SourceReplay,
	// SourceRecorded, SourceJudge).
	BySource map[string]int `json:"decided_by"`
	// Recorded reply kinds among them: judge errors stored as replies,
	// replies the reference parser could not read, non-binary scores.
	JudgeErrors int `json:"judge_errors"`
	Unparsed    int `json:"unparsed_replies"`
	NonBinary   int `json:"non_binary_scores"`
	// ErrorKinds counts invalid verdicts by the judge's error kind.
	ErrorKinds map[string]int `json:"error_kinds,omitempty"`
	// Usage is known when the judge recorded it: from judge_summary.json
	// (every call the ledger's runs made, superseded decisions included),
	// else summed over the ledger's leaf records. The recorded reference
	// judge kept none.
	HasUsage         bool    `json:"usage_recorded"`
	LLMCalls         int     `json:"llm_calls"`
	CacheHits        int     `json:"cache_hits"`
	PromptTokens     int64   `json:"prompt_tokens"`
	CompletionTokens int64   `json:"completion_tokens"`
	CostUSD          float64 `json:"cost_usd"`
}

// CodeShare is the share of decided leaves decided in code.
func (h HealthRow) CodeShare() float64 {
	d := h.decided()
	if d == 0 {
		return 0
	}
	return float64(h.BySource[SourceCode]) / float64(d)
}

// LLMShare is the share of decided leaves decided by an LLM judge,
// including the recorded reference judge and replayed LLM decisions.
func (h HealthRow) LLMShare() float64 {
	d := h.decided()
	if d == 0 {
		return 0
	}
	return float64(h.BySource[SourceLLM]+h.BySource[SourceRecorded]+h.BySource[SourceReplay]+h.BySource[SourceJudge]) / float64(d)
}

func (h HealthRow) decided() int {
	n := 0
	for _, c := range h.BySource {
		n += c
	}
	return n
}

func health(m *Model, tasks map[datasets.Key]*datasets.Task) HealthRow {
	h := HealthRow{Model: m.Name, BySource: map[string]int{}, ErrorKinds: map[string]int{}, Judge: "recorded reference judge"}
	if m.Run != "" && m.fromJudge {
		h.Judge = "clinsql judge"
	}
	if j := m.Judge; j != nil {
		h.Judge = fmt.Sprintf("%s (%s mode)", judgeLabel(j.Judge, j.Backend), j.Mode)
		complete := j.Complete
		h.Complete = &complete
	}
	for _, t := range m.Strict.Tasks {
		h.Tasks++
		if !t.Graded {
			h.Ungraded++
		}
		if n := t.Invalid(); n > 0 {
			h.InvalidLeaves += n
			h.InvalidTasks++
		}
		task := tasks[t.Key]
		dec := m.Decisions[t.Key]
		for _, tr := range []struct {
			tree Tree
			root *rubric.Node
		}{{TreeSQL, task.SQLRubric.Root}, {TreeResults, task.ResultsRubric.Root}} {
			for _, l := range tr.root.Leaves() {
				h.Leaves++
				d := dec[LeafKey{tr.tree, l.ID}]
				if d == nil {
					h.Missing++
					continue
				}
				switch d.Status {
				case rubric.Pass:
					h.Passed++
				case rubric.Fail:
					h.Failed++
				case rubric.Invalid:
					h.Invalid++
				case rubric.Skipped:
					h.Skipped++
					continue
				default:
					h.Missing++
					continue
				}
				h.BySource[d.Source]++
				if d.Status == rubric.Invalid && d.ErrorKind != "" {
					h.ErrorKinds[d.ErrorKind]++
				}
				switch d.Kind {
				case scoring.KindJudgeError:
					h.JudgeErrors++
				case scoring.KindUnparsed:
					h.Unparsed++
				case scoring.KindNonBinary:
					h.NonBinary++
				}
				if d.Calls > 0 || d.PromptTokens > 0 || d.CompletionTokens > 0 || d.CostUSD > 0 {
					h.HasUsage = true
					h.LLMCalls += d.Calls
					h.PromptTokens += int64(d.PromptTokens)
					h.CompletionTokens += int64(d.CompletionTokens)
					h.CostUSD += d.CostUSD
				}
			}
		}
	}
	if j := m.Judge; j != nil {
		h.HasUsage = true
		h.LLMCalls, h.CacheHits, h.CostUSD = j.LLMCalls, j.CacheHits, j.CostUSD
		h.PromptTokens, h.CompletionTokens = int64(j.PromptTokens), int64(j.CompletionTokens)
	}
	if len(h.ErrorKinds) == 0 {
		h.ErrorKinds = nil
	}
	return h
}

// judgeLabel names a clinsql judge backend for a reader: a replay by the
// model and digest of the decisions it replays (its Backend identity), not
// by the grading file's path on the machine that judged; other backends
// by their name.
func judgeLabel(name, backend string) string {
	file, ok := strings.CutPrefix(name, "replay:")
	if !ok {
		return name
	}
	if rest, ok := strings.CutPrefix(backend, "replay:sha256:"); ok {
		sha, quoted, _ := strings.Cut(rest, " model ")
		if q, err := strconv.QuotedPrefix(quoted); err == nil {
			model, _ := strconv.Unquote(q)
			label := fmt.Sprintf("replay of %q's recorded decisions (%s, sha256 %.12s)", model, filepath.Base(file), sha)
			if extra := strings.TrimSpace(quoted[len(q):]); extra != "" {
				label += ", " + extra
			}
			return label
		}
	}
	// Without the identity, the file's last folders say whose decisions
	// they are (<model>/<split>/detailed_grading.json).
	return "replay:" + shownPath(file, 3)
}

// shownPath is how a report shows an input's path to its readers: its
// last n parts (a grading file's <model>/<split>/detailed_grading.json, a
// run folder's <parent>/<name>), which say whose it is, without the layout
// of the machine that made the report (the user's home, a shared drive).
// report.json keeps the full paths, for provenance.
func shownPath(p string, n int) string {
	parts := strings.Split(strings.Trim(filepath.ToSlash(filepath.Clean(p)), "/"), "/")
	return strings.Join(parts[max(0, len(parts)-n):], "/")
}

// machinePrefixes removes from a message the part of each input's path
// that shownPath hides (the folders above <model>/<split>/ or above a run's
// <parent>/<name>), so that a warning names its file as the rest of the
// page does. Longer prefixes are tried first: an input inside another's
// folder keeps the parts its own shown path has.
func (r *Report) machinePrefixes() *strings.Replacer {
	seen := map[string]bool{}
	var prefixes []string
	add := func(p string, n int) {
		clean := filepath.Clean(p)
		if !filepath.IsAbs(clean) {
			return // a relative path shows no machine's layout
		}
		shown := shownPath(clean, n)
		prefix := strings.TrimSuffix(filepath.ToSlash(clean), shown)
		if prefix == "" || prefix == "/" || seen[prefix] {
			return
		}
		seen[prefix] = true
		prefixes = append(prefixes, filepath.FromSlash(prefix))
	}
	for _, m := range r.Models {
		for _, g := range m.Gradings {
			add(g, 3)
		}
		if m.Run != "" {
			add(m.Run, 2)
		}
	}
	sort.Slice(prefixes, func(i, j int) bool { return len(prefixes[i]) > len(prefixes[j]) })
	var pairs []string
	for _, p := range prefixes {
		pairs = append(pairs, p, "")
	}
	return strings.NewReplacer(pairs...)
}

// backend is the identity of the judge backend of that name, from the
// model's judge summary ("" when it names another).
func (m *Model) backend(name string) string {
	if m.Judge != nil && m.Judge.Judge == name {
		return m.Judge.Backend
	}
	return ""
}
