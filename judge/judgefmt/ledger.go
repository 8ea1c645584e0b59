package judgefmt

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/clinsql/clinsql/internal/buildinfo"
	"github.com/clinsql/clinsql/internal/localkey"
	"github.com/clinsql/clinsql/internal/safefile"
	"github.com/clinsql/clinsql/rubric"
	"github.com/clinsql/clinsql/runfolder"
)

// LedgerFile is the ledger's name in a judge output folder.
const LedgerFile = "ledger.jsonl"

// LedgerVersion is written in the header; readers refuse newer versions.
// Version 2 binds the ledger to the run, task set and backend it judged
// (LedgerHeader.Run, TasksSHA256, Backend); a version 1 ledger can be read
// but not resumed.
const LedgerVersion = 2

// Tree names the rubric a leaf belongs to.
type Tree string

const (
	TreeSQL     Tree = "sql"
	TreeResults Tree = "results"
)

// Source says who decided a leaf.
type Source string

const (
	// SourceCode: a code check (see Check).
	SourceCode Source = "code"
	// SourceLLM: a model through the judge endpoint.
	SourceLLM Source = "llm"
	// SourceReplay: a recorded decision (detailed_grading.json) replayed.
	SourceReplay Source = "replay"
	// SourceSkip: not judged; its verdict could not change the score.
	SourceSkip Source = "skip"
)

// Usage is one call's tokens (llm.Usage, as recorded).
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Votes counts the samples of a k-sample majority vote.
type Votes struct {
	Pass    int `json:"pass"`
	Fail    int `json:"fail"`
	Invalid int `json:"invalid"`
}

// Record is one leaf decision: one line of ledger.jsonl. It is the judge's
// durable output and the input of reports; field names are stable.
//
// A leaf is decided once: a record is appended after its decision and
// never rewritten. A resumed run skips leaves that have a record. With
// RetryInvalid an invalid leaf is judged again and a second record
// appended; the last record of a leaf wins ([ReadLedger] resolves this).
type Record struct {
	// Task is the task key, "validation/Diagnostic_Procedures/easy_level_queries/001".
	Task string `json:"task"`
	// Tree is "sql" or "results"; Leaf is the rubric node id.
	Tree Tree   `json:"tree"`
	Leaf string `json:"leaf"`
	// Verdict is pass, fail, invalid (the judge failed or its reply could
	// not be read: never a pass or a fail) or skipped.
	Verdict rubric.Status `json:"verdict"`
	// Score is the leaf's score: 1 or 0 for pass and fail, 0 for invalid
	// and skipped, or a replayed recorded score as published (which may be
	// neither).
	Score float64 `json:"score"`
	// Source is code, llm, replay or skip.
	Source Source `json:"source"`
	// Kind is the leaf's check kind (csv_exists, column_exists, no_null,
	// band, other, sql), whoever decided it.
	Kind LeafKind `json:"kind"`
	// Explanation is the decision's reason: the code check's evidence in
	// words, the judge's reasoning, the recorded explanation, the reason a
	// leaf was skipped, or the error that made it invalid.
	Explanation string `json:"explanation"`
	// Evidence is a code decision's column, values and band.
	Evidence *Evidence `json:"evidence,omitempty"`
	// BlockedBy names the failed gate a skipped leaf sits behind.
	BlockedBy string `json:"blocked_by,omitempty"`
	// ErrorKind classifies an invalid verdict: an llm error kind
	// (rate_limited, server, timeout, malformed_reply, context_length, ...),
	// "no_majority" for a vote without a majority, "not_recorded" for a
	// replayed leaf the recording lacks, or "other_result" for a replayed
	// results leaf of a re-executed run whose result is not the recorded one.
	ErrorKind string `json:"error_kind,omitempty"`
	// Judge identifies the backend: "llm:<endpoint>/<model>",
	// "replay:<file>", or "code".
	Judge string `json:"judge"`
	// ReferenceGuided marks a decision made with the gold SQL and gold
	// result in the prompt.
	ReferenceGuided bool `json:"reference_guided"`
	// Samples is the number of judge samples drawn; Votes their verdicts
	// (LLM leaves only).
	Samples int    `json:"samples,omitempty"`
	Votes   *Votes `json:"votes,omitempty"`
	// Calls counts chat completions requested for this leaf, CacheHits
	// those served from the cache, Attempts the HTTP requests sent. For a
	// group they are the group's, on its first record (see Group).
	Calls     int `json:"calls"`
	CacheHits int `json:"cache_hits"`
	Attempts  int `json:"attempts"`
	// Tokens and dollars this leaf consumed in the run that decided it
	// (zero when served from the cache); for a group, the leaf's share.
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	CostUSD          float64 `json:"cost_usd"`
	// ReplyCostUSD is what the reply (or replies) deciding the leaf cost
	// when bought, by this run or an earlier one: CostUSD for a call made
	// now, the recorded price for one read from the cache (for a group,
	// the leaf's share). Absent in records written before it existed.
	ReplyCostUSD float64 `json:"reply_cost_usd,omitempty"`
	// PerCall is each call's tokens when the leaf took more than one
	// (k-sample votes).
	PerCall []Usage `json:"per_call,omitempty"`
	// LatencyMS is the wall time of the backend call(s).
	LatencyMS int64 `json:"latency_ms"`
	// Group identifies the grouped call that decided this leaf together
	// with others (see GroupMode); GroupSize is the number of leaves it
	// decided. Both are empty for a leaf judged alone. The group's calls,
	// cache hits, attempts and PerCall are on its first record, its tokens
	// and dollars shared among its records (see groupRecords): summing the
	// records of one group rebuilds the call.
	Group     string `json:"group,omitempty"`
	GroupSize int    `json:"group_size,omitempty"`
	// Time is when the decision was recorded (UTC).
	Time time.Time `json:"time"`
	// Mac authenticates the record with this machine's key (see
	// OpenLedger): written last on the line, over the line without it and
	// the header's Mac.
	Mac string `json:"mac,omitempty"`
}

// Key identifies a leaf within a run.
func (r *Record) Key() LeafKey { return LeafKey{Task: r.Task, Tree: r.Tree, Leaf: r.Leaf} }

// LeafKey identifies a leaf within a run.
type LeafKey struct {
	Task string
	Tree Tree
	Leaf string
}

// LedgerHeader is the ledger's first line. A ledger can only be resumed
// with the settings that started it: skipped leaves depend on the mode,
// and decisions on the judge.
type LedgerHeader struct {
	Ledger          int         `json:"ledger_version"`
	Mode            rubric.Mode `json:"mode"`
	Judge           string      `json:"judge"`
	ReferenceGuided bool        `json:"reference_guided"`
	CodeChecks      bool        `json:"code_checks"`
	Skipping        bool        `json:"skipping"`
	Samples         int         `json:"samples"`
	// Group and GroupGated are the grouping (the judge's Options.Group
	// and GroupGated: "leaf", "category" or "tree"); a ledger without
	// them was judged leaf by leaf.
	Group      string    `json:"group,omitempty"`
	GroupGated bool      `json:"group_gated,omitempty"`
	Created    time.Time `json:"created"`
	// Run is the identity of the run judged: its model and a fingerprint
	// of its answers. A ledger is never resumed for other answers.
	Run *runfolder.Identity `json:"run,omitempty"`
	// TasksSHA256 fingerprints the tasks and rubrics judged against
	// (runfolder.TaskFingerprint).
	TasksSHA256 string `json:"tasks_sha256,omitempty"`
	// Backend identifies the deciding backend beyond its name: for a
	// replay the grading file's digest and model (not its path), for an
	// LLM its endpoint, model and prompt version.
	Backend string `json:"backend,omitempty"`
	// Partial marks a ledger of a run judged with tasks missing
	// (--allow-partial): its scores cover the answered tasks only.
	Partial bool `json:"partial,omitempty"`
	// Producer is the clinsql build that created the ledger.
	Producer *buildinfo.Stamp `json:"producer,omitempty"`
	// Nonce makes every ledger's header, and so its Mac, unique: records
	// are bound to the ledger that wrote them.
	Nonce string `json:"nonce,omitempty"`
	// Mac authenticates the header with the key of the machine that wrote
	// it (see OpenLedger).
	Mac string `json:"mac,omitempty"`
}

func (h LedgerHeader) compatible(o LedgerHeader) error {
	// The inputs first: decisions about other answers, tasks or recorded
	// decisions are not these decisions, whatever the settings.
	if o.Run != nil && (h.Ledger < 2 || h.Run == nil) {
		return fmt.Errorf("the ledger was written by an older clinsql that did not record which run it judged, so it cannot be resumed safely; judge into a new output folder (--out)")
	}
	if o.Run != nil && !h.Run.Same(*o.Run) {
		what := "another run"
		if h.Run.Model == o.Run.Model {
			what = "the same model's run with other answers (the run changed since it was judged: tasks added, re-executed or regenerated)"
		}
		return fmt.Errorf("this output folder holds the decisions for %s: %s; --run is %s; judge into a new output folder (--out), or delete this one to start over", what, h.Run, o.Run)
	}
	if o.TasksSHA256 != "" && h.TasksSHA256 != o.TasksSHA256 {
		return fmt.Errorf("the ledger was judged against other tasks or rubrics (tasks sha256 %s, now %s); judge into a new output folder (--out)", short(h.TasksSHA256), short(o.TasksSHA256))
	}
	if h.Partial != o.Partial {
		return fmt.Errorf("the ledger was written with partial %v, now %v; judge into a new output folder (--out)", h.Partial, o.Partial)
	}
	var diffs []string
	if h.Backend != "" && o.Backend != "" && h.Backend != o.Backend {
		diffs = append(diffs, fmt.Sprintf("judge %q, not %q", h.Backend, o.Backend))
	} else if h.Backend == "" && h.Judge != o.Judge {
		diffs = append(diffs, fmt.Sprintf("judge %q, not %q", h.Judge, o.Judge))
	}
	if h.Mode != o.Mode {
		diffs = append(diffs, fmt.Sprintf("mode %s, not %s", h.Mode, o.Mode))
	}
	if h.ReferenceGuided != o.ReferenceGuided {
		diffs = append(diffs, fmt.Sprintf("reference_guided %v, not %v", h.ReferenceGuided, o.ReferenceGuided))
	}
	if h.CodeChecks != o.CodeChecks {
		diffs = append(diffs, fmt.Sprintf("code_checks %v, not %v", h.CodeChecks, o.CodeChecks))
	}
	if h.Skipping != o.Skipping {
		diffs = append(diffs, fmt.Sprintf("skipping %v, not %v", h.Skipping, o.Skipping))
	}
	if grouping(h.Group, h.GroupGated) != grouping(o.Group, o.GroupGated) {
		diffs = append(diffs, fmt.Sprintf("grouping %s, not %s", grouping(h.Group, h.GroupGated), grouping(o.Group, o.GroupGated)))
	}
	if h.Samples != o.Samples {
		diffs = append(diffs, fmt.Sprintf("samples %d, not %d", h.Samples, o.Samples))
	}
	if len(diffs) > 0 {
		return fmt.Errorf("the ledger was written with %s; resume with those settings, or judge into a new output folder (--out) to change them", joinAnd(diffs))
	}
	return nil
}

// grouping names a grouping as the judge does: "tree", "tree+gated"; no
// grouping is "leaf".
func grouping(g string, gated bool) string {
	if g == "" {
		g = "leaf"
	}
	if gated {
		return g + "+gated"
	}
	return g
}

// short is a digest's first 12 characters.
func short(s string) string {
	if len(s) > 12 {
		return s[:12] + "…"
	}
	return s
}

func joinAnd(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	return fmt.Sprintf("%s and %s", joinComma(s[:len(s)-1]), s[len(s)-1])
}

func joinComma(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

// Ledger is an open, append-only ledger. Append is safe for concurrent use.
type Ledger struct {
	path string
	mu   sync.Mutex
	f    *os.File
	// tf is the transcript beside the ledger, opened on first use
	// (AppendExchange).
	tf     *os.File
	header LedgerHeader
	key    localkey.Key
	// last holds the last record of every leaf, from the file and from
	// this run.
	last map[LeafKey]*Record
	// Recovered reports that a torn last line (a process killed while
	// writing) was dropped when the ledger was opened.
	Recovered bool
	// SetAside is where a ledger this machine did not write (copied,
	// shipped in a run folder, written before ledgers were authenticated)
	// was moved when it was opened, with Foreign its records: none of
	// them is trusted, every leaf is decided again. "" when none.
	SetAside string
	Foreign  int
	// Untrusted counts records of this machine's ledger that failed
	// authentication (edited after they were written): ignored, their
	// leaves decided again.
	Untrusted int
}

// LedgerContents is a ledger read whole.
type LedgerContents struct {
	Header LedgerHeader
	// Records in file order, every line (a leaf judged again appears twice).
	Records []Record
	// Torn reports an incomplete last line, ignored.
	Torn bool
	// lines are the header's and each record's line as written (for
	// authentication).
	headerLine []byte
	lines      [][]byte
}

// Last returns the last record of every leaf.
func (c *LedgerContents) Last() map[LeafKey]*Record {
	m := make(map[LeafKey]*Record, len(c.Records))
	for i := range c.Records {
		m[c.Records[i].Key()] = &c.Records[i]
	}
	return m
}

// ReadLedger reads a ledger file (a regular file, not through a link,
// bounded). A torn last line (no trailing newline, or not JSON) is ignored
// and reported in Torn; a damaged line elsewhere is an error naming the
// line. Records are not authenticated: a reader of another's judge output
// takes it as given, as it takes a recorded grading.
func ReadLedger(path string) (*LedgerContents, error) {
	b, err := safefile.ReadFile(filepath.Dir(path), filepath.Base(path), runfolder.MaxJudgeFileBytes)
	if err != nil {
		return nil, err
	}
	c, _, err := parseLedger(path, b)
	return c, err
}

// parseLedger also returns the length of the well-formed prefix.
func parseLedger(path string, b []byte) (*LedgerContents, int, error) {
	c := &LedgerContents{}
	good := 0
	line := 0
	for len(b[good:]) > 0 {
		rest := b[good:]
		nl := bytes.IndexByte(rest, '\n')
		line++
		if nl < 0 {
			c.Torn = true // killed mid-write: the line never finished
			break
		}
		text := bytes.TrimSpace(rest[:nl])
		if len(text) > 0 {
			var err error
			if line == 1 {
				c.headerLine = text
				err = decodeStrict(text, &c.Header)
				if err == nil && c.Header.Ledger == 0 {
					err = errors.New("no ledger_version")
				}
				if err == nil && c.Header.Ledger > LedgerVersion {
					err = fmt.Errorf("ledger_version %d is newer than this program's %d", c.Header.Ledger, LedgerVersion)
				}
			} else {
				var r Record
				err = decodeStrict(text, &r)
				if err == nil && (r.Task == "" || r.Leaf == "" || (r.Tree != TreeSQL && r.Tree != TreeResults)) {
					err = errors.New("missing task, tree or leaf")
				}
				c.Records = append(c.Records, r)
				c.lines = append(c.lines, text)
			}
			if err != nil {
				if good+nl+1 == len(b) && line > 1 {
					// The last line is whole but garbled: torn too.
					c.Records = c.Records[:len(c.Records)-min(1, len(c.Records))]
					c.lines = c.lines[:len(c.Records)]
					c.Torn = true
					break
				}
				return nil, 0, fmt.Errorf("%s: line %d: %v", path, line, err)
			}
		}
		good += nl + 1
	}
	if line == 0 || (line == 1 && c.Torn) {
		c.Header = LedgerHeader{}
	}
	return c, good, nil
}

func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("data after the JSON object")
	}
	return nil
}

// OpenLedger opens (or creates) the ledger at path for appending. An
// existing ledger must have been written with the same settings (see
// LedgerHeader); its torn last line, if any, is cut off so that appends
// start on a fresh line. The ledger is opened without following a link,
// as a regular file only, and read bounded (package safefile).
//
// With a key (this machine's, package localkey) every line written is
// authenticated: the header with the key, each record with the key and
// the header's Mac, so that a record is bound to its ledger. A resumed
// ledger whose header fails (copied from another machine, shipped in a
// run folder, written before ledgers were authenticated) is moved aside
// (SetAside, Foreign) and every leaf is decided again: decisions are taken
// only from a ledger this machine wrote. A record that fails in a ledger
// whose header passes (edited since) is ignored (Untrusted). Without a key
// nothing is authenticated (tests, and callers that judge into a fresh
// folder only).
func OpenLedger(path string, h LedgerHeader, key localkey.Key) (*Ledger, error) {
	h.Ledger = LedgerVersion
	h.Mac, h.Nonce = "", ""
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	d, err := safefile.OpenDir(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	l := &Ledger{path: path, last: map[LeafKey]*Record{}, key: key}
	b, err := d.ReadFile(base, runfolder.MaxJudgeFileBytes)
	switch {
	case errors.Is(err, os.ErrNotExist):
		b = nil
	case err != nil:
		return nil, err
	}
	c, good, err := parseLedger(path, b)
	if err != nil {
		return nil, err
	}
	if key != nil && good > 0 && !c.sealedBy(key) {
		// Not this machine's ledger: nothing in it is trusted. It is
		// kept, renamed, for a person to read.
		n := len(c.Records)
		aside := base + ".foreign-" + time.Now().UTC().Format("20060102T150405.000000000Z")
		if err := d.Rename(base, aside); err != nil {
			return nil, fmt.Errorf("%s: moving aside a ledger this machine did not write: %w", path, err)
		}
		l.SetAside, l.Foreign = d.Join(aside), n
		b, c, good = nil, &LedgerContents{}, 0
	}
	// Append-only: every write lands at the end, whatever another handle
	// did (the folder lock keeps a second writer out; this keeps lines
	// whole even if one slipped past it).
	f, err := d.OpenFile(base, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	if good < len(b) {
		if err := f.Truncate(int64(good)); err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: cutting the torn last line: %w", path, err)
		}
		l.Recovered = true
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return nil, err
	}
	l.f = f
	if good == 0 {
		if h.Producer == nil {
			st := buildinfo.Current()
			h.Producer = &st
		}
		if h.Created.IsZero() {
			h.Created = time.Now().UTC().Truncate(time.Second)
		}
		if key != nil {
			var n [16]byte
			_, _ = rand.Read(n[:])
			h.Nonce = hex.EncodeToString(n[:])
		}
		line, err := l.seal(h, "")
		if err != nil {
			f.Close()
			return nil, err
		}
		l.header = h
		l.header.Mac = macOf(line)
		if _, err := l.f.Write(line); err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", l.path, err)
		}
		return l, nil
	}
	if err := c.Header.compatible(h); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	l.header = c.Header
	if key != nil {
		kept := c.Records[:0]
		for i, r := range c.Records {
			if verifyLine(key, recordDomain, c.lines[i], c.Header.Mac) {
				kept = append(kept, r)
			} else {
				l.Untrusted++
			}
		}
		c.Records = kept
	}
	l.last = c.Last()
	return l, nil
}

// Domains separate what a key authenticates.
const (
	headerDomain = "clinsql ledger header"
	recordDomain = "clinsql ledger record"
)

// sealedBy reports whether the ledger's header was written with key.
func (c *LedgerContents) sealedBy(key localkey.Key) bool {
	return c.headerLine != nil && c.Header.Mac != "" && verifyLine(key, headerDomain, c.headerLine, "")
}

// seal encodes v (a header, or a record of the ledger whose header Mac is
// bound) as one line: the JSON object, then, with a key, its Mac as the
// last member, over the object without it.
func (l *Ledger) seal(v any, bound string) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if l.key != nil {
		domain := recordDomain
		if _, ok := v.(LedgerHeader); ok {
			domain = headerDomain
		}
		mac := l.key.Sum([]byte(domain), []byte(bound), b)
		b = append(b[:len(b)-1], `,"mac":"`+mac+`"}`...)
	}
	return append(b, '\n'), nil
}

// macOf is the Mac a sealed line ends with.
func macOf(line []byte) string {
	line = bytes.TrimSpace(line)
	i := bytes.LastIndex(line, []byte(`,"mac":"`))
	if i < 0 || !bytes.HasSuffix(line, []byte(`"}`)) {
		return ""
	}
	return string(line[i+len(`,"mac":"`) : len(line)-2])
}

// verifyLine checks a sealed line's Mac: the line with its Mac member
// removed is the object the Mac was computed over.
func verifyLine(key localkey.Key, domain string, line []byte, bound string) bool {
	mac := macOf(line)
	if mac == "" {
		return false
	}
	i := bytes.LastIndex(line, []byte(`,"mac":"`))
	object := append(append([]byte(nil), line[:i]...), '}')
	return key.Verify(mac, []byte(domain), []byte(bound), object)
}

// Header returns the ledger's header.
func (l *Ledger) Header() LedgerHeader { return l.header }

// Path returns the ledger's file.
func (l *Ledger) Path() string { return l.path }

// Get returns the last record of a leaf, or nil.
func (l *Ledger) Get(k LeafKey) *Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last[k]
}

// Len is the number of leaves with a record.
func (l *Ledger) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.last)
}

// Append writes records, one line each, with a single write, so a
// process killed at any moment leaves whole lines and at most one torn
// last line: the records of a group are written together.
func (l *Ledger) Append(rs ...Record) error {
	now := time.Now().UTC()
	var buf []byte
	for i := range rs {
		if rs[i].Time.IsZero() {
			rs[i].Time = now
		}
		rs[i].Mac = ""
		b, err := l.seal(rs[i], l.header.Mac)
		if err != nil {
			return err
		}
		rs[i].Mac = macOf(b)
		buf = append(buf, b...)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.f.Write(buf); err != nil {
		return fmt.Errorf("%s: %w", l.path, err)
	}
	for i := range rs {
		r := rs[i]
		l.last[r.Key()] = &r
	}
	return nil
}

// Close syncs and closes the file.
func (l *Ledger) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Sync()
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	if l.tf != nil {
		if cerr := l.tf.Close(); err == nil {
			err = cerr
		}
		l.tf = nil
	}
	return err
}
