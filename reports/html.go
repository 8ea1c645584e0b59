package reports

import (
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"os"
	"strings"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/internal/textclip"
	"github.com/clinsql/clinsql/rubric"
	"github.com/clinsql/clinsql/runfolder"
	"github.com/clinsql/clinsql/scoring"
)

//go:embed assets/*.tmpl
var assets embed.FS

var pageTemplate = template.Must(template.New("report.html.tmpl").Funcs(template.FuncMap{
	"f1": func(x float64) string { return fmt.Sprintf("%.1f", x) },
	// svgTall is a figure file's height: the chart and its title line.
	"svgTall": func(h float64) float64 { return h + 26 },
}).ParseFS(assets, "assets/*.tmpl"))

// Bounds on what the drill-down embeds per task, so that a report over
// many models stays a file a browser opens quickly.
const (
	maxSQLBytes    = 20000
	maxPreviewCols = 20
	maxCellRunes   = 200
	maxExplanation = 4000
	maxErrorRunes  = 600
	scoreDecimals  = 1e4
	// goldSource is where every ClinSQL gold result was computed.
	goldSource      = "MIMIC-IV v3.1 on BigQuery (the whole database), as the dataset publishes it"
	placeholderNote = "placeholder CSV (header \"result\", one empty row): the reference writes it when the SQL failed or returned no rows"
)

// htmlPage is the template's data. Everything that came from a model or a
// judge is a plain string here; html/template escapes it for its context.
type htmlPage struct {
	Title string
	// ClinSQL: the report has ClinSQL models (an EHRSQL section may stand
	// alone).
	ClinSQL bool
	Setup   string
	// InvalidNote and HealthNote define the invalid leaves (tasks) and the
	// judge-health columns beside their tables.
	InvalidNote, HealthNote string
	// HasRS shows the reliability columns (some model abstained somewhere).
	HasRS bool
	// Caveats say what makes the scores not comparable with others (a
	// subset of the tasks, runs on a sample database).
	Caveats  []string
	Splits   []htmlSplit
	Taxonomy htmlTaxonomy
	Refine   htmlRefine
	Health   []htmlHealth
	Audit    *htmlAudit
	Labels   *htmlLabels
	EHRSQL   *htmlEHRSQL
	Warnings []string
	// Data feeds the drill-down; html/template encodes it as JSON inside
	// the script, escaping <, > and & so no string can end the script.
	Data htmlData
	// Blobs carry the bulky drill-down data (rubric trees, per-task
	// verdicts, explanations, SQL, result previews) as gzip-compressed JSON
	// in base64: a 16-model report stays a file a browser opens at once,
	// and each model's part is decompressed only when it is opened. Base64
	// holds no character that HTML or JS give a meaning to; the decoded
	// strings reach the page as text nodes only.
	Blobs htmlBlobs
}

type htmlBlobs struct {
	Tasks  string   `json:"tasks"`
	Models []string `json:"models"`
	// Calls holds each model's judge transcript (hCalls), "" for a model
	// without one: decompressed only when one of its task pages opens.
	Calls []string `json:"calls"`
	// EHRSQL holds each EHRSQL model x split's questions and decisions
	// (hEHRItems), decompressed when a strategy's page opens.
	EHRSQL []string `json:"ehrsql"`
}

// pack encodes v as JSON, gzips it and returns it in base64.
func pack(v any) (string, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(v); err != nil {
		return "", err
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

type htmlSplit struct {
	Name      string
	ModeName  string
	OtherName string
	Rows      []htmlLBRow
	// Charts are the overall execution and SQL score panels; ByDifficulty
	// the same per difficulty.
	Charts       []svgChart
	ByDifficulty []svgChart
	Compare      []htmlCompare
}

type htmlCell struct {
	Text, Title string
}

type htmlLBRow struct {
	Rank  int
	Model string
	// Badge and Caveat flag a run on a sample database (DatabaseNote).
	Badge, Caveat string
	Index         int
	N             string
	Cells         []htmlCell // SQL E/M/H/All, Exec E/M/H/All
	OtherSQL      htmlCell
	OtherEx       htmlCell
	RS0           string
	RS10          string
	Invalid       string
}

type htmlCompare struct {
	A, B, Difficulty string
	N                int
	SQL, Exec        string
	SQLSig, ExecSig  bool
}

type htmlTaxonomy struct {
	Rules    []htmlRule
	Temporal string
	Buckets  []string
	Rows     []htmlTaxRow
	Charts   []svgChart
	Top      []htmlTop
}

type htmlRule struct {
	N                                 int
	Tree, Category, Text, Bucket, Why string
	Leaves                            int
}

type htmlTaxRow struct {
	Model string
	Cells []htmlCell
}

type htmlTop struct {
	Model, Tree, Leaf, Bucket, Rate, Example string
}

type htmlRefine struct {
	Header []string
	Rows   [][]string
	Chart  *svgChart
}

type htmlHealth struct {
	Model, Judge, Calls, InvalidLeaves                       string
	Tasks, Leaves, Passed, Failed, Invalid, Skipped, Missing int
	Code, LLM, Replay, Recorded                              int
	CodeShare, LLMShare, Kinds, Tokens, Cost                 string
}

// Drill-down data. Short JSON keys keep a 16-model report small.

type htmlData struct {
	Mode   string      `json:"mode"`
	Other  string      `json:"other"`
	Tasks  []hTask     `json:"-"` // packed in htmlBlobs.Tasks
	Models []hModel    `json:"models"`
	Labels hLabels     `json:"labels"`
	Splits []string    `json:"splits"`
	Boards [][]hSumRow `json:"boards"` // per model: split totals in both modes
	// Order lists, per split, the models' indexes in rank order: the
	// order of the columns where models stand side by side.
	Order map[string][]int `json:"order"`
	// GoldSource says where the gold results come from, shown beside a
	// result computed elsewhere.
	GoldSource string `json:"goldsrc"`
	// EHRSQL summarises the EHRSQL section's results for its drill-down.
	EHRSQL []hEHRSQL `json:"ehrsql"`
}

type hLabels struct {
	Sources map[string]string `json:"sources"`
}

type hSumRow struct {
	Split string   `json:"split"`
	Mode  string   `json:"mode"`
	N     int      `json:"n"`
	SQL   string   `json:"sql"`
	Exec  string   `json:"exec"`
	SQLCI string   `json:"sqlci"`
	ExCI  string   `json:"execci"`
	Inv   int      `json:"inv"`
	Cells []string `json:"cells"` // SQL E/M/H, Exec E/M/H
}

type hTask struct {
	Key      string     `json:"key"`
	Scenario string     `json:"scenario"`
	Level    string     `json:"level"`
	Question string     `json:"q"`
	Trees    [2][]hNode `json:"trees"` // SQL, results: pre-order
	// GoldSQL and Gold are the task's gold query and the first rows of its
	// gold result, shown beside the model's.
	GoldSQL string    `json:"gsql"`
	Gold    *hPreview `json:"gold,omitempty"`
}

type hNode struct {
	ID    string `json:"id"`
	Req   string `json:"req"`
	Depth int    `json:"d"`
	W     int    `json:"w"`
	Seq   bool   `json:"seq,omitempty"`
	Crit  bool   `json:"crit,omitempty"`
	Leaf  bool   `json:"leaf,omitempty"`
}

type hModel struct {
	Name    string `json:"name"`
	Grading string `json:"grading"`
	Run     string `json:"run,omitempty"`
	// Badge and Caveat flag a run on a sample database (DatabaseNote).
	Badge  string `json:"badge,omitempty"`
	Caveat string `json:"caveat,omitempty"`
	// NTasks is len(Tasks); the tasks themselves are packed in
	// htmlBlobs.Models, the judge's calls in htmlBlobs.Calls.
	NTasks int      `json:"ntasks"`
	Tasks  []hMTask `json:"-"`
	Calls  *hCalls  `json:"-"`
	// Rank is the model's place in the first split's ranking (0-based),
	// the order of the columns where models stand side by side.
	Rank int `json:"rank"`
}

type hMTask struct {
	T        int            `json:"t"` // index into htmlData.Tasks
	Scores   [2][2]*float64 `json:"s"` // [mode: main, other][SQL, Exec]; null when the mode does not score the task
	Invalid  int            `json:"inv"`
	Graded   bool           `json:"graded"`
	Status   string         `json:"status"`
	SQL      string         `json:"sql,omitempty"`
	Attempts []hAttempt     `json:"att,omitempty"`
	// Detailed: the attempts carry clinsql's record (SQL, reply, tokens);
	// Class the final attempt's error class, "" when it ran or is unknown.
	Detailed bool            `json:"det,omitempty"`
	Class    string          `json:"cls,omitempty"`
	Preview  *hPreview       `json:"prev,omitempty"`
	Nodes    [2][]hNodeScore `json:"nodes"`
}

type hPreview struct {
	Cols  []string   `json:"cols"`
	Rows  [][]string `json:"rows"`
	Total int        `json:"total"`
	More  bool       `json:"more,omitempty"`
	Note  string     `json:"note,omitempty"`
}

type hNodeScore struct {
	V       float64 `json:"v"`
	Counted bool    `json:"c"`
	Reason  string  `json:"r,omitempty"`
	Status  string  `json:"st,omitempty"`
	Source  string  `json:"src,omitempty"`
	Expl    string  `json:"e,omitempty"`
	// Use is the judge's calls, tokens and cost for the leaf.
	Use string   `json:"u,omitempty"`
	Rec *float64 `json:"rec,omitempty"`
	// Judge names clinsql judge's backend; Group the call that decided
	// the leaf with others (hCall.Group).
	Judge string `json:"j,omitempty"`
	Group string `json:"g,omitempty"`
}

// WriteHTML writes the self-contained HTML report.
func (r *Report) WriteHTML(w io.Writer) error {
	p := htmlPage{Title: "ClinSQL report", ClinSQL: len(r.Models) > 0, Setup: r.setup(), InvalidNote: InvalidLeavesNote, HealthNote: HealthNote, HasRS: r.hasReliability(), Caveats: r.caveats()}
	if !p.ClinSQL {
		p.Title = "EHRSQL 2024 report"
	}
	index := map[string]int{}
	for i, m := range r.Models {
		index[m.Name] = i
	}
	for _, split := range r.Splits {
		p.Splits = append(p.Splits, r.htmlSplit(split, index))
	}
	if r.Taxonomy != nil {
		p.Taxonomy = r.htmlTaxonomy()
	}
	p.Refine = r.htmlRefine()
	for _, h := range r.Health {
		hh := htmlHealth{Model: h.Model, Judge: h.Judge, Calls: "–", Tasks: h.Tasks, Leaves: h.Leaves, Passed: h.Passed, Failed: h.Failed, Invalid: h.Invalid,
			Skipped: h.Skipped, Missing: h.Missing, Code: h.BySource[SourceCode], LLM: h.BySource[SourceLLM], Replay: h.BySource[SourceReplay],
			Recorded:  h.BySource[SourceRecorded] + h.BySource[SourceJudge],
			CodeShare: fmt.Sprintf("%.1f%%", 100*h.CodeShare()), LLMShare: fmt.Sprintf("%.1f%%", 100*h.LLMShare()),
			Kinds: fmt.Sprintf("%d / %d / %d", h.JudgeErrors, h.Unparsed, h.NonBinary), Tokens: "–", Cost: "–",
			InvalidLeaves: h.invalidText()}
		if h.Complete != nil && !*h.Complete {
			hh.Judge += ", incomplete"
		}
		if h.HasUsage {
			hh.Calls = fmt.Sprint(h.LLMCalls)
			hh.Tokens = fmt.Sprintf("%d / %d", h.PromptTokens, h.CompletionTokens)
			hh.Cost = fmt.Sprintf("%.4f", h.CostUSD)
		}
		p.Health = append(p.Health, hh)
	}
	p.Audit = r.htmlAudit()
	p.Labels = r.htmlLabels()
	var ehrItems []hEHRItems
	hide := r.machinePrefixes()
	for _, wr := range r.Warnings {
		p.Warnings = append(p.Warnings, hide.Replace(wr.Error()))
	}
	p.Data = r.htmlData()
	if r.EHRSQL != nil {
		p.EHRSQL, p.Data.EHRSQL, ehrItems = r.EHRSQL.html()
	}
	p.Blobs.EHRSQL = []string{}
	for _, it := range ehrItems {
		b, err := pack(it)
		if err != nil {
			return err
		}
		p.Blobs.EHRSQL = append(p.Blobs.EHRSQL, b)
	}
	var err error
	if p.Blobs.Tasks, err = pack(p.Data.Tasks); err != nil {
		return err
	}
	for _, m := range p.Data.Models {
		b, err := pack(m.Tasks)
		if err != nil {
			return err
		}
		p.Blobs.Models = append(p.Blobs.Models, b)
		c := ""
		if m.Calls != nil {
			if c, err = pack(m.Calls); err != nil {
				return err
			}
		}
		p.Blobs.Calls = append(p.Blobs.Calls, c)
	}
	return pageTemplate.Execute(w, p)
}

func (r *Report) htmlSplit(split string, index map[string]int) htmlSplit {
	s := htmlSplit{Name: split, ModeName: modeName(r.Mode), OtherName: modeName(r.Other())}
	diffs := append(append([]string{}, datasets.Difficulties...), All)
	for i, name := range r.Ranking(split).Models {
		b := r.Board(r.Mode, name)
		all := b.Cell(split, All, All)
		row := htmlLBRow{Rank: i + 1, Model: name, Index: index[name], Badge: r.badgeOf(name), N: fmt.Sprintf("%d (%s)", all.N, nByDifficulty(b, split)),
			Invalid: invalidText(all), RS0: rsText(all.RS, 0), RS10: rsText(all.RS, 10)}
		for _, f := range []func(*Cell) Interval{func(c *Cell) Interval { return c.SQL }, func(c *Cell) Interval { return c.Exec }} {
			for _, d := range diffs {
				if c := b.Cell(split, All, d); c != nil {
					row.Cells = append(row.Cells, htmlCell{pct(f(c).Mean), fmt.Sprintf("n = %d, 95%% CI %s, invalid leaves %d", c.N, ci(f(c)), c.InvalidLeaves)})
				} else {
					row.Cells = append(row.Cells, htmlCell{"–", "no tasks"})
				}
			}
		}
		if o := r.Board(r.Other(), name).Cell(split, All, All); o != nil {
			row.OtherSQL = htmlCell{pct(o.SQL.Mean), fmt.Sprintf("n = %d, 95%% CI %s", o.N, ci(o.SQL))}
			row.OtherEx = htmlCell{pct(o.Exec.Mean), fmt.Sprintf("n = %d, 95%% CI %s", o.N, ci(o.Exec))}
		}
		if n := r.Model(name).Database; n != nil {
			row.Caveat = n.Caveat
		}
		s.Rows = append(s.Rows, row)
	}
	for _, f := range r.leaderboardPanels(split) {
		if strings.Contains(f.File, "_"+fileSlug(All)+".svg") {
			s.Charts = append(s.Charts, f.Chart)
		} else {
			s.ByDifficulty = append(s.ByDifficulty, f.Chart)
		}
	}
	for _, c := range r.Comparisons {
		if c.Split == split {
			s.Compare = append(s.Compare, htmlCompare{A: c.A, B: c.B, Difficulty: c.Difficulty, N: c.N,
				SQL: diffCI(c.SQL), Exec: diffCI(c.Exec), SQLSig: c.Significant(c.SQL), ExecSig: c.Significant(c.Exec)})
		}
	}
	return s
}

func (r *Report) htmlTaxonomy() htmlTaxonomy {
	tx := r.Taxonomy
	h := htmlTaxonomy{Temporal: temporalText}
	for i, ru := range Rules {
		tree, cat, text := ruleText(ru)
		h.Rules = append(h.Rules, htmlRule{N: i + 1, Tree: tree, Category: cat, Text: text, Bucket: string(ru.Bucket), Why: ru.Why, Leaves: tx.RuleLeaves[i]})
	}
	for _, b := range Buckets {
		h.Buckets = append(h.Buckets, string(b))
	}
	for _, m := range r.orderedModels() {
		row := htmlTaxRow{Model: m}
		for _, b := range Buckets {
			t, _ := tx.Row(m, b)
			row.Cells = append(row.Cells, htmlCell{rate(t.Failed, t.Passed+t.Failed),
				fmt.Sprintf("%d failed of %d decided; %d invalid, %d skipped, %d missing", t.Failed, t.Passed+t.Failed, t.Invalid, t.Skipped, t.Missing)})
		}
		h.Rows = append(h.Rows, row)
		for _, f := range tx.Top {
			if f.Model == m {
				h.Top = append(h.Top, htmlTop{m, string(f.Tree), f.LeafID, string(f.Bucket), fmt.Sprintf("%d/%d", f.Failed, f.Decided), f.Example.String()})
			}
		}
	}
	for _, f := range r.taxonomyPanels() {
		h.Charts = append(h.Charts, f.Chart)
	}
	return h
}

func (r *Report) htmlRefine() htmlRefine {
	var h htmlRefine
	if len(r.Refinement) == 0 {
		return h
	}
	var buf strings.Builder
	r.WriteRefinementMarkdown(&buf)
	// Reuse the Markdown table's cells: header and rows between the pipes.
	var lines []string
	for _, l := range strings.Split(buf.String(), "\n") {
		if strings.HasPrefix(l, "|") {
			lines = append(lines, l)
		}
	}
	parse := func(l string) []string {
		l = strings.TrimSuffix(strings.TrimPrefix(l, "| "), " |")
		return strings.Split(l, " | ")
	}
	if len(lines) >= 2 {
		h.Header = parse(lines[0])
		for _, l := range lines[2:] {
			h.Rows = append(h.Rows, parse(l))
		}
	}
	c := r.refinementChart()
	h.Chart = &c
	return h
}

func round4(x float64) float64 { return math.Round(x*scoreDecimals) / scoreDecimals }

// truncRunes is textclip.Runes: it reads no further than the cut.
func truncRunes(s string, n int) string { return textclip.Runes(s, n) }

func (r *Report) htmlData() htmlData {
	d := htmlData{Mode: modeName(r.Mode), Other: modeName(r.Other()), Splits: r.Splits,
		Labels: hLabels{Sources: map[string]string{
			SourceRecorded: "recorded reference LLM judge", SourceJudge: "clinsql judge", SourceCode: "code check",
			SourceLLM: "LLM judge", SourceReplay: "replayed recorded decision"}}}
	keys := r.sortedKeys()
	tIndex := map[datasets.Key]int{}
	for i, k := range keys {
		t := r.Tasks[k]
		tIndex[k] = i
		gold := &hPreview{Total: -1}
		readPreview(gold, bytes.NewReader(t.GoldResult), r.PreviewRows)
		d.Tasks = append(d.Tasks, hTask{Key: k.String(), Scenario: k.Domain, Level: k.Difficulty, Question: t.Question,
			Trees:   [2][]hNode{flatten(t.SQLRubric.Root), flatten(t.ResultsRubric.Root)},
			GoldSQL: truncRunes(t.GoldSQL, maxSQLBytes), Gold: gold})
	}
	rank := map[string]int{}
	for i, name := range r.orderedModels() {
		rank[name] = i
	}
	mIndex := map[string]int{}
	for i, m := range r.Models {
		mIndex[m.Name] = i
	}
	d.Order = map[string][]int{}
	for _, rk := range r.Rankings {
		for _, name := range rk.Models {
			d.Order[rk.Split] = append(d.Order[rk.Split], mIndex[name])
		}
	}
	d.GoldSource = goldSource
	for _, m := range r.Models {
		hm := hModel{Name: m.Name, Rank: rank[m.Name]}
		var shown []string
		for _, g := range m.Gradings {
			shown = append(shown, shownPath(g, 3))
		}
		hm.Grading = strings.Join(shown, ", ")
		if m.Run != "" {
			hm.Run = shownPath(m.Run, 2)
		}
		if m.Database != nil {
			hm.Badge, hm.Caveat = m.Database.Badge, m.Database.Caveat
		}
		var rows []hSumRow
		for _, split := range r.Splits {
			for _, mode := range r.Modes() {
				b := r.Board(mode, m.Name)
				c := b.Cell(split, All, All)
				if c == nil {
					continue
				}
				row := hSumRow{Split: split, Mode: modeName(mode), N: c.N, SQL: pct(c.SQL.Mean), Exec: pct(c.Exec.Mean),
					SQLCI: ci(c.SQL), ExCI: ci(c.Exec), Inv: c.InvalidLeaves}
				for _, f := range []func(*Cell) Interval{func(c *Cell) Interval { return c.SQL }, func(c *Cell) Interval { return c.Exec }} {
					for _, dd := range datasets.Difficulties {
						if x := b.Cell(split, All, dd); x != nil {
							row.Cells = append(row.Cells, pct(f(x).Mean))
						} else {
							row.Cells = append(row.Cells, "–")
						}
					}
				}
				rows = append(rows, row)
			}
		}
		d.Boards = append(d.Boards, rows)
		systems := map[string]int{}
		var sysOrder []string
		calls := &hCalls{}
		for _, k := range keys {
			st := m.strict[k]
			if st == nil {
				continue // not among the model's splits
			}
			hm.Tasks = append(hm.Tasks, r.htmlModelTask(m, k, tIndex[k]))
			calls.Tasks = append(calls.Tasks, m.calls(k, systems, &sysOrder))
		}
		if len(sysOrder) > 0 || len(m.Exchanges) > 0 {
			calls.Systems = sysOrder
			hm.Calls = calls
		}
		hm.NTasks = len(hm.Tasks)
		d.Models = append(d.Models, hm)
	}
	return d
}

func flatten(root *rubric.Node) []hNode {
	var out []hNode
	var walk func(n *rubric.Node, depth int)
	walk = func(n *rubric.Node, depth int) {
		out = append(out, hNode{ID: n.ID, Req: n.Requirements, Depth: depth, W: n.Weight, Seq: n.Sequential, Crit: n.Critical, Leaf: n.IsLeaf()})
		for _, c := range n.Children {
			walk(c, depth+1)
		}
	}
	walk(root, 0)
	return out
}

func scorePair(t *scoring.TaskScore) [2]*float64 {
	if t == nil {
		return [2]*float64{}
	}
	a, b := round4(t.SQL.Value), round4(t.Results.Value)
	return [2]*float64{&a, &b}
}

func (r *Report) htmlModelTask(m *Model, k datasets.Key, ti int) hMTask {
	main, other := m.TaskScore(r.Mode, k), m.TaskScore(r.Other(), k)
	st := m.strict[k]
	mt := hMTask{T: ti, Scores: [2][2]*float64{scorePair(main), scorePair(other)}, Invalid: st.Invalid(), Graded: st.Graded}
	if o := m.Outputs[k]; o != nil {
		mt.SQL = clipSQL(o.Summary.FinalSQL)
		mt.Attempts, mt.Detailed = attempts(o)
		if n := len(mt.Attempts); n > 0 && !o.Summary.ExecutionSuccess {
			mt.Class = mt.Attempts[n-1].Class
			if mt.Class == "" {
				mt.Class = "unclassified"
			}
		}
		mt.Preview = preview(o, r.PreviewRows)
	}
	mt.Status = m.taskStatus(k)
	dec := m.Decisions[k]
	// The trees show the main mode's scores; a task that mode does not
	// score (ungraded, reference mode) shows the strict ones.
	sc := main
	if sc == nil {
		sc = st
	}
	for i, tree := range []Tree{TreeSQL, TreeResults} {
		root := sc.SQL
		if tree == TreeResults {
			root = sc.Results
		}
		var walk func(s *rubric.Score)
		walk = func(s *rubric.Score) {
			ns := hNodeScore{V: round4(s.Value), Counted: s.Counted, Reason: s.Reason}
			if s.Node.IsLeaf() {
				ns.Status = rubric.Missing.String()
				if dc := dec[LeafKey{tree, s.Node.ID}]; dc != nil {
					ns.Status = dc.Status.String()
					ns.Source = dc.Source
					ns.Expl = truncRunes(dc.Explanation, maxExplanation)
					rec := dc.Score
					ns.Rec = &rec
					switch {
					case dc.Group != "" && (dc.PromptTokens > 0 || dc.CostUSD > 0):
						// A group's call is on its first record; each leaf
						// carries its share of the tokens.
						ns.Use = fmt.Sprintf("decided in a call with other leaves; this leaf's share: %d + %d tokens, $%.4f", dc.PromptTokens, dc.CompletionTokens, dc.CostUSD)
					case dc.Calls > 0 || dc.PromptTokens > 0 || dc.CostUSD > 0:
						ns.Use = fmt.Sprintf("%d %s, %d + %d tokens, $%.4f", dc.Calls, plural(dc.Calls, "call", "calls"), dc.PromptTokens, dc.CompletionTokens, dc.CostUSD)
					}
					if dc.ErrorKind != "" {
						ns.Use = strings.TrimPrefix(ns.Use+"; error: "+dc.ErrorKind, "; ")
					}
					ns.Judge, ns.Group = judgeLabel(dc.Judge, m.backend(dc.Judge)), dc.Group
				}
			}
			mt.Nodes[i] = append(mt.Nodes[i], ns)
			for _, c := range s.Children {
				walk(c)
			}
		}
		walk(root)
	}
	return mt
}

// preview reads the first rows of a task's result CSV.
func preview(o *runfolder.Output, rows int) *hPreview {
	p := &hPreview{Total: int(o.Summary.RowCount)}
	if o.ResultCSV == "" {
		p.Note = "no result CSV in the run"
		return p
	}
	f, err := os.Open(o.ResultCSV)
	if err != nil {
		p.Note = "result CSV unreadable: " + err.Error()
		return p
	}
	defer f.Close()
	readPreview(p, f, rows)
	return p
}

// readPreview reads a result CSV's header and first rows into p; with
// p.Total -1 it also counts the rows (a gold result has no recorded count).
func readPreview(p *hPreview, r io.Reader, rows int) {
	count := p.Total < 0
	if count {
		p.Total = 0
	}
	// Cells are cut while read: a result file may hold a huge cell, and
	// the preview shows maxCellRunes of it.
	cr := csv.NewReader(executor.ClipCells(r, 4*maxCellRunes))
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	header, err := cr.Read()
	if err != nil {
		if err == io.EOF {
			p.Note = "empty result CSV"
		} else {
			p.Note = "result CSV unreadable: " + err.Error()
		}
		return
	}
	cut := func(rec []string) []string {
		if len(rec) > maxPreviewCols {
			rec = rec[:maxPreviewCols]
		}
		out := make([]string, len(rec))
		for i, c := range rec {
			out[i] = truncRunes(c, maxCellRunes)
		}
		return out
	}
	p.Cols = cut(header)
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			p.Note = "result CSV unreadable after row " + fmt.Sprint(len(p.Rows)) + ": " + err.Error()
			break
		}
		if count {
			p.Total++
		}
		if len(p.Rows) == rows {
			p.More = true
			if count {
				continue
			}
			break
		}
		p.Rows = append(p.Rows, cut(rec))
	}
	if len(header) == 1 && header[0] == "result" && len(p.Rows) == 1 && len(p.Rows[0]) == 1 && p.Rows[0][0] == "" && !p.More {
		p.Note = placeholderNote
	}
}
