package refine

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clinsql/clinsql/llm/llmtest"
)

// schedule is a scripted model for whole runs. For each task it knows the
// right query (the gold SQL, or a query of the test's choosing) and how many
// of its first answers are broken: errs(question) = k means answers 1..k
// reference a column that does not exist and answer k+1 onwards is right.
// It is stateless: every answer carries "-- answer N" and the round of a
// fix request is one more than the highest N the prompt shows, so cached
// and resumed runs get the same answers.
type schedule struct {
	right map[string]string // question -> right query
	errs  func(question string) int
	// hold, if set, is slept inside the handler, to make calls overlap.
	hold time.Duration

	inFlight, maxInFlight atomic.Int64
	mu                    sync.Mutex
	asked                 map[string]int // question -> calls
}

var answerMark = regexp.MustCompile(`-- answer (\d+)\n`)

func (s *schedule) handler() llmtest.Handler {
	return func(c *llmtest.Call) llmtest.Reply {
		n := s.inFlight.Add(1)
		defer s.inFlight.Add(-1)
		for {
			m := s.maxInFlight.Load()
			if n <= m || s.maxInFlight.CompareAndSwap(m, n) {
				break
			}
		}
		if s.hold > 0 {
			time.Sleep(s.hold)
		}
		p := c.Prompt()
		q := questionOf(p)
		right, ok := s.right[q]
		if !ok {
			return llmtest.Text("I do not know this question.")
		}
		s.mu.Lock()
		if s.asked == nil {
			s.asked = map[string]int{}
		}
		s.asked[q]++
		s.mu.Unlock()
		round := 1
		for _, m := range answerMark.FindAllStringSubmatch(p, -1) {
			k, _ := strconv.Atoi(m[1])
			round = max(round, k+1)
		}
		sql := right
		if round <= s.errs(q) {
			sql = broken(right, round)
		}
		return llmtest.Reply{
			Content:      fmt.Sprintf("Reasoning: answer %d.\n\nSQL:\n```sql\n-- answer %d\n%s\n```\n", round, round, sql),
			PromptTokens: len(p) / 4, CompletionTokens: 50 + len(sql)/4,
		}
	}
}

func (s *schedule) calls(question string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.asked[question]
}

// broken wraps a query so that it fails on any engine with an unknown
// column (a model's error: the binder rejects it).
func broken(sql string, round int) string {
	sql = strings.TrimRight(sql, " \t\r\n")
	sql = strings.TrimSuffix(sql, ";")
	return fmt.Sprintf("SELECT no_such_column_%d FROM (\n%s\n) AS draft", round, sql)
}

// errsByIndex is the deterministic schedule of the acceptance run: task i
// (in key order) gets i%10 in 0..5 -> 0 broken answers (60%), 6..7 -> 1
// (20%), 8 -> 2 (10%), 9 -> 3, never right within 2 rounds (10%).
func errsByIndex(i int) int {
	switch r := i % 10; {
	case r <= 5:
		return 0
	case r <= 7:
		return 1
	case r == 8:
		return 2
	}
	return 3
}
