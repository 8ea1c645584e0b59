package mock

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/clinsql/clinsql/llm"
)

// Mix is the share of each kind of answer; the shares need not add up to
// 1 (they are normalised), and none may be negative.
type Mix struct {
	Gold, Wrong, Broken, Abstain float64
}

// DefaultMix answers most questions right and shows every other outcome.
var DefaultMix = Mix{Gold: 0.55, Wrong: 0.2, Broken: 0.15, Abstain: 0.1}

// ParseMix reads "gold=0.6,wrong=0.2,broken=0.1,abstain=0.1"; kinds left
// out have share 0.
func ParseMix(s string) (Mix, error) {
	var m Mix
	for _, part := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return Mix{}, fmt.Errorf("mock mix %q: %q is not kind=share (kinds: gold, wrong, broken, abstain)", s, part)
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil || x < 0 || math.IsInf(x, 0) || math.IsNaN(x) {
			return Mix{}, fmt.Errorf("mock mix %q: share of %s is %q, want a number >= 0", s, name, val)
		}
		switch strings.TrimSpace(name) {
		case "gold":
			m.Gold = x
		case "wrong":
			m.Wrong = x
		case "broken":
			m.Broken = x
		case "abstain":
			m.Abstain = x
		default:
			return Mix{}, fmt.Errorf("mock mix %q: unknown kind %q (kinds: gold, wrong, broken, abstain)", s, name)
		}
	}
	if m.total() == 0 {
		return Mix{}, fmt.Errorf("mock mix %q: every share is 0", s)
	}
	return m, nil
}

func (m Mix) total() float64 { return m.Gold + m.Wrong + m.Broken + m.Abstain }

// String is the mix as ParseMix reads it, normalised.
func (m Mix) String() string {
	t := m.total()
	return fmt.Sprintf("gold=%.2g,wrong=%.2g,broken=%.2g,abstain=%.2g", m.Gold/t, m.Wrong/t, m.Broken/t, m.Abstain/t)
}

// Kind is what the mock answers a question with.
type Kind string

const (
	KindGold    Kind = "gold"
	KindWrong   Kind = "wrong"
	KindBroken  Kind = "broken"
	KindAbstain Kind = "abstain"
)

// Options configure the mock.
type Options struct {
	// Seed makes the draws reproducible.
	Seed uint64
	// Mix is the share of each kind of answer (zero: DefaultMix).
	Mix Mix
	// Gold maps each question the mock knows to its gold SQL.
	Gold map[string]string
	// JudgePass is the chance that a judge passes a leaf of an answer that
	// is not the gold SQL (default 0.5; the gold SQL passes every leaf).
	JudgePass float64
}

// maxBody bounds a request body: a prompt with a schema reference and a
// result preview is well under it.
const maxBody = 32 << 20

// Server is the mock's chat-completions server, listening on the loopback
// interface.
type Server struct {
	// URL is the server's root, e.g. http://127.0.0.1:40123.
	URL   string
	opts  Options
	srv   *http.Server
	calls atomic.Int64
	// quoted maps each known question, as a generation prompt quotes it,
	// to its plain text.
	quoted map[string]string
}

// Start starts a mock server on a free loopback port. Close it when done.
func Start(opts Options) (*Server, error) {
	if opts.Mix == (Mix{}) {
		opts.Mix = DefaultMix
	}
	if m := opts.Mix; m.Gold < 0 || m.Wrong < 0 || m.Broken < 0 || m.Abstain < 0 || m.total() == 0 {
		return nil, fmt.Errorf("mock: mix %+v: shares must be >= 0, not all 0", m)
	}
	if opts.JudgePass == 0 {
		opts.JudgePass = 0.5
	}
	if opts.JudgePass < 0 || opts.JudgePass > 1 {
		return nil, fmt.Errorf("mock: judge pass rate %v outside [0, 1]", opts.JudgePass)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("mock: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), opts: opts, quoted: map[string]string{}}
	for q := range opts.Gold {
		s.quoted[strconv.Quote(q)] = q
	}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

// Close stops the server.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return s.srv.Shutdown(ctx)
}

// Calls counts the chat completions answered.
func (s *Server) Calls() int { return int(s.calls.Load()) }

// Endpoint is an endpoint of kind openai that reaches the mock: no key,
// JSON-schema replies and log-probabilities supported. Its model id names
// the mix and the seed, so that cached replies of another mix are not
// mistaken for this one's.
func (s *Server) Endpoint(name string) llm.Endpoint {
	return llm.Endpoint{
		Name:         name,
		Kind:         llm.KindOpenAI,
		BaseURL:      s.URL + "/v1",
		Model:        fmt.Sprintf("mock-%s-seed%d", s.opts.Mix, s.opts.Seed),
		Capabilities: llm.Capabilities{JSONSchema: true, Logprobs: true},
		Limits:       llm.Limits{Concurrency: 8},
	}
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		apiError(w, http.StatusNotFound, "not_found", "the mock serves POST /v1/chat/completions only")
		return
	}
	var req openai.ChatCompletionRequest
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "request body: "+err.Error())
		return
	}
	var prompt strings.Builder
	for _, m := range req.Messages {
		prompt.WriteString(m.Content)
		prompt.WriteByte('\n')
	}
	text, k := s.reply(prompt.String(), req.ResponseFormat)
	s.calls.Add(1)
	msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: text}
	choice := openai.ChatCompletionChoice{Message: msg, FinishReason: openai.FinishReasonStop}
	if req.LogProbs {
		choice.LogProbs = s.logprobs(text, k)
	}
	in, out := tokens(prompt.String()), tokens(text)
	resp := openai.ChatCompletionResponse{ID: fmt.Sprintf("mock-%d", s.calls.Load()), Object: "chat.completion", Created: time.Now().Unix(),
		Model: req.Model, Choices: []openai.ChatCompletionChoice{choice},
		Usage: openai.Usage{PromptTokens: in, CompletionTokens: out, TotalTokens: in + out}}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}

func apiError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": typ}})
}

// tokens counts a text's tokens as a quarter of its characters.
func tokens(s string) int { return max(1, len([]rune(s))/4) }

// draw is a number in [0, 1) fixed by the seed and the parts.
// (SHA-256: every bit of it depends on every input byte, so questions
// that differ in one character draw independently.)
func (s *Server) draw(parts ...string) float64 {
	h := sha256.New()
	fmt.Fprintf(h, "%d", s.opts.Seed)
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return float64(binary.BigEndian.Uint64(h.Sum(nil))>>11) / (1 << 53)
}

// KindOf is the kind of answer the mock gives question q first.
func (s *Server) KindOf(q string) Kind {
	m := s.opts.Mix
	u := s.draw("kind", q) * m.total()
	switch {
	case u < m.Gold:
		return KindGold
	case u < m.Gold+m.Wrong:
		return KindWrong
	case u < m.Gold+m.Wrong+m.Broken:
		return KindBroken
	}
	return KindAbstain
}

// question finds the known question a prompt is about: a line that is the
// question, or "Question: " and the question quoted; the last such line
// (few-shot examples come before the question asked). "" when none.
func (s *Server) question(prompt string) string {
	found := ""
	for _, line := range strings.Split(prompt, "\n") {
		line = strings.TrimSpace(line)
		if _, ok := s.opts.Gold[line]; ok {
			found = line
			continue
		}
		if rest, ok := strings.CutPrefix(line, "Question: "); ok {
			if q, ok := s.quoted[rest]; ok {
				found = q
			}
		}
	}
	return found
}

// reply is the text answering a prompt, and the kind of answer it is.
func (s *Server) reply(prompt string, format *openai.ChatCompletionResponseFormat) (string, Kind) {
	q := s.question(prompt)
	if format != nil && format.JSONSchema != nil {
		return s.verdicts(prompt, q, format.JSONSchema.Schema), KindGold
	}
	gold, ok := s.opts.Gold[q]
	if !ok {
		return cot("The question is not one I know; this query returns a constant.", "SELECT 1 AS mock_unknown_question"), KindBroken
	}
	k := s.KindOf(q)
	if k == KindBroken && (strings.Contains(prompt, broken(gold)) || strings.Contains(prompt, gold) || strings.Contains(prompt, s.wrong(q, gold))) {
		// A fix request (the prompt shows one of the mock's queries for
		// the question): gold or wrong, in their proportion, every time.
		m := s.opts.Mix
		k = KindWrong
		if m.Gold+m.Wrong == 0 || s.draw("fix", q)*(m.Gold+m.Wrong) < m.Gold {
			k = KindGold
		}
	}
	switch k {
	case KindAbstain:
		return "```sql\nnull\n```", k
	case KindWrong:
		return cot("I read the question as asking for a slightly different figure and adjusted the query to it.", s.wrong(q, gold)), k
	case KindBroken:
		return cot("I select the rows the question names and compute what it asks for.", broken(gold)), k
	}
	return cot("I select the rows the question names and compute what it asks for.", gold), k
}

func cot(reasoning, sql string) string {
	return "Reasoning: " + reasoning + "\n\nSQL:\n```sql\n" + strings.TrimSpace(sql) + "\n```"
}

var (
	firstSelect = regexp.MustCompile(`(?i)\bselect\b`)
	wrongEdits  = []struct {
		re  *regexp.Regexp
		new func(string) string
	}{
		{regexp.MustCompile(`(?i)\bdesc\b`), func(string) string { return "ASC" }},
		{regexp.MustCompile(`(?i)\bmax\(`), func(string) string { return "MIN(" }},
		{regexp.MustCompile(`(?i)\bmin\(`), func(string) string { return "MAX(" }},
		{regexp.MustCompile(`>=`), func(string) string { return ">" }},
		{regexp.MustCompile(`<=`), func(string) string { return "<" }},
		{regexp.MustCompile(`\b\d+\b`), func(n string) string { x, _ := strconv.Atoi(n); return strconv.Itoa(x + 1) }},
	}
)

// broken is the gold SQL with its first SELECT misspelled: it fails to
// parse on every engine.
func broken(gold string) string {
	if loc := firstSelect.FindStringIndex(gold); loc != nil {
		return gold[:loc[0]] + "SELEC" + gold[loc[1]:]
	}
	return "SELEC " + gold
}

// wrong changes the gold SQL so that it still runs but answers another
// question: one of the edits that applies (seeded), else a LIMIT 1 added.
func (s *Server) wrong(q, gold string) string {
	var apply []int
	for i, e := range wrongEdits {
		if e.re.MatchString(gold) {
			apply = append(apply, i)
		}
	}
	if len(apply) == 0 {
		return strings.TrimRight(strings.TrimSpace(gold), ";") + "\nLIMIT 1"
	}
	e := wrongEdits[apply[int(s.draw("wrong", q)*float64(len(apply)))]]
	loc := e.re.FindStringIndex(gold)
	return gold[:loc[0]] + e.new(gold[loc[0]:loc[1]]) + gold[loc[1]:]
}

// logprobs are a reply's token log-probabilities: a mean by kind (gold
// surest, then abstention, wrong, broken) with seeded noise.
func (s *Server) logprobs(text string, k Kind) *openai.LogProbs {
	base := map[Kind]float64{KindGold: -0.08, KindAbstain: -0.15, KindWrong: -0.35, KindBroken: -0.7}[k]
	words := strings.Fields(text)
	if len(words) > 400 {
		words = words[:400]
	}
	shift := (s.draw("logprob", text) - 0.5) * 0.3
	out := &openai.LogProbs{}
	for i, w := range words {
		lp := base + shift + (s.draw("token", text, strconv.Itoa(i))-0.5)*0.1
		out.Content = append(out.Content, openai.LogProb{Token: w, LogProb: math.Min(0, lp), TopLogProbs: []openai.TopLogProbs{}})
	}
	return out
}

// verdicts answers a judge: the object its schema asks for.
func (s *Server) verdicts(prompt, q string, schema json.Marshaler) string {
	var sc struct {
		Required []string `json:"required"`
	}
	if schema != nil {
		if b, err := schema.MarshalJSON(); err == nil {
			json.Unmarshal(b, &sc)
		}
	}
	cand := candidateSQL(prompt)
	gold, known := s.opts.Gold[q]
	isGold := known && cand != "" && normalize(cand) == normalize(gold)
	one := func(id string) map[string]string {
		pass := isGold || s.draw("judge", q, id, normalize(cand)) < s.opts.JudgePass
		switch {
		case isGold:
			return map[string]string{"reasoning": "The answer is the reference query: it meets " + id + ".", "verdict": "pass"}
		case pass:
			return map[string]string{"reasoning": "The query does what " + id + " asks.", "verdict": "pass"}
		}
		return map[string]string{"reasoning": "The query does not do what " + id + " asks.", "verdict": "fail"}
	}
	var out any
	if len(sc.Required) == 2 && sc.Required[0] == "reasoning" && sc.Required[1] == "verdict" || len(sc.Required) == 0 {
		out = one("the requirement")
	} else {
		m := map[string]map[string]string{}
		for _, id := range sc.Required {
			m[id] = one(id)
		}
		out = m
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// candidateSQL is the SQL a judge prompt shows as the answer: the fenced
// block under its "Candidate SQL" heading.
func candidateSQL(prompt string) string {
	_, rest, ok := strings.Cut(prompt, "## Candidate SQL\n")
	if !ok {
		return ""
	}
	fence := strings.Index(rest, "```")
	if fence < 0 {
		return ""
	}
	rest = rest[fence:]
	nl := strings.IndexByte(rest, '\n')
	if nl < 0 {
		return ""
	}
	opening := rest[:strings.IndexFunc(rest, func(r rune) bool { return r != '`' })]
	body := rest[nl+1:]
	end := strings.Index(body, "\n"+opening)
	if end < 0 {
		return ""
	}
	return body[:end]
}

var spaces = regexp.MustCompile(`\s+`)

func normalize(sql string) string {
	return spaces.ReplaceAllString(strings.TrimRight(strings.TrimSpace(sql), ";"), " ")
}

// placeholderURL marks an endpoint that stands for the mock until a
// command starts it (the .invalid domain never resolves, so an endpoint
// left unresolved fails rather than reaching anything).
const placeholderURL = "http://clinsql-mock.invalid/v1"

// Placeholder is the endpoint a command line's --model mock/NAME stands
// for before the command knows the questions and starts the server
// ([Resolve]); it has the model id and sampling an estimate needs.
func Placeholder(name string) llm.Endpoint {
	return llm.Endpoint{Name: name, Kind: llm.KindOpenAI, BaseURL: placeholderURL, Model: "mock-" + name,
		Capabilities: llm.Capabilities{JSONSchema: true, Logprobs: true}, Limits: llm.Limits{Concurrency: 8}}
}

// IsPlaceholder reports whether e is a [Placeholder].
func IsPlaceholder(e llm.Endpoint) bool { return e.BaseURL == placeholderURL }

// Resolve starts one mock server for the questions in gold (seeded by
// seed, in the default mix) if any of the endpoints is a placeholder, and
// points each placeholder at it. close stops the server (a no-op when none
// was started).
func Resolve(endpoints []*llm.Endpoint, gold map[string]string, seed uint64) (close func(), err error) {
	var srv *Server
	for _, e := range endpoints {
		if !IsPlaceholder(*e) {
			continue
		}
		if srv == nil {
			if srv, err = Start(Options{Seed: seed, Gold: gold}); err != nil {
				return nil, err
			}
		}
		*e = srv.Endpoint(e.Name)
	}
	if srv == nil {
		return func() {}, nil
	}
	return func() { srv.Close() }, nil
}
