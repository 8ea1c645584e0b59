// Package refinetest is a scripted model for testing generation runs end to
// end: a handler for the llmtest fake server that answers each task with a
// known right query, broken on purpose in a known number of first answers.
//
// A Schedule is stateless across calls: every answer carries a marker
// comment "-- answer N", and the round of a request is one more than the
// highest N its prompt shows (1 for a first request). Cached, resumed and
// concurrent runs therefore get the same answers, and the attempt-wise
// success of a run is known in advance: a task with Errs = k succeeds at
// attempt k+1 when its right query runs and k+1 is within the rounds.
package refinetest

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

// Schedule answers the questions it knows.
type Schedule struct {
	// Right maps a question to its right query.
	Right map[string]string
	// Errs returns how many first answers to the question are broken.
	Errs func(question string) int
	// Hold, if set, is slept inside the handler, to make calls overlap.
	Hold time.Duration

	inFlight, maxInFlight atomic.Int64
	mu                    sync.Mutex
	asked                 map[string]int
}

var answerMark = regexp.MustCompile(`-- answer (\d+)\n`)

// Handler is the fake server's handler.
func (s *Schedule) Handler() llmtest.Handler {
	return func(c *llmtest.Call) llmtest.Reply {
		n := s.inFlight.Add(1)
		defer s.inFlight.Add(-1)
		for {
			m := s.maxInFlight.Load()
			if n <= m || s.maxInFlight.CompareAndSwap(m, n) {
				break
			}
		}
		if s.Hold > 0 {
			time.Sleep(s.Hold)
		}
		p := c.Prompt()
		q := s.question(p)
		if q == "" {
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
		sql := s.Right[q]
		if round <= s.Errs(q) {
			sql = Broken(sql, round)
		}
		return llmtest.Reply{
			Content:      fmt.Sprintf("Reasoning: answer %d.\n\nSQL:\n```sql\n-- answer %d\n%s\n```\n", round, round, sql),
			PromptTokens: len(p) / 4, CompletionTokens: 50 + len(sql)/4,
		}
	}
}

// question finds the known question a prompt asks: the longest one it holds.
func (s *Schedule) question(prompt string) string {
	best := ""
	for q := range s.Right {
		if len(q) > len(best) && strings.Contains(prompt, q) {
			best = q
		}
	}
	return best
}

// Calls returns how many requests asked the question.
func (s *Schedule) Calls(question string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.asked[question]
}

// MaxInFlight is the largest number of calls the handler ran at once.
func (s *Schedule) MaxInFlight() int64 { return s.maxInFlight.Load() }

// Broken wraps a query so that it fails on any engine with an unknown
// column (the model's error: rejected at analysis).
func Broken(sql string, round int) string {
	sql = strings.TrimRight(sql, " \t\r\n")
	sql = strings.TrimSuffix(sql, ";")
	return fmt.Sprintf("SELECT no_such_column_%d FROM (\n%s\n) AS draft", round, sql)
}

// ErrsByIndex is the schedule of the acceptance runs: task i (in key
// order) gets i%10 in 0..5 -> 0 broken answers (60%), 6..7 -> 1 (20%),
// 8 -> 2 (10%), 9 -> 3, never right within two rounds (10%).
func ErrsByIndex(i int) int {
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
