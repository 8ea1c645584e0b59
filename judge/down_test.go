package judge

import (
	"errors"
	"testing"

	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmtest"
	"github.com/clinsql/clinsql/rubric"
)

// TestEndpointDown: an endpoint that fails every call (503 after the
// client's retries) stops the run after DefaultMaxConsecutiveFailures calls
// instead of recording every leaf as invalid; once it is back, a resumed run
// with RetryInvalid judges those leaves again and finishes with none
// invalid.
func TestEndpointDown(t *testing.T) {
	for _, g := range []GroupMode{GroupLeaf, GroupTree} {
		t.Run(string(g), func(t *testing.T) {
			_, _, items := fixtureRun(t)
			down := llmtest.Start(t, llmtest.Fixed(llmtest.ServerError(503)), llmtest.Options{})
			sl := &llmtest.Sleeper{}
			dir := t.TempDir()
			j := newTestJudge(t, down, nil, llm.Options{Sleep: sl.Sleep}, 1)
			opts := Options{Mode: rubric.Strict, Backend: j, CodeChecks: true, Skipping: true, Tasks: 2, Leaves: 2, Group: g}
			l := openLedger(t, dir, opts)
			o := mustRun(t, items, l, opts)
			var de *EndpointDownError
			if !errors.As(o.Stopped, &de) || o.Complete() {
				t.Fatalf("stopped = %v, complete %v; want an EndpointDownError", o.Stopped, o.Complete())
			}
			if llm.KindOf(o.Stopped) != llm.KindServer {
				t.Errorf("kind of %v = %s, want the last failure's (server)", o.Stopped, llm.KindOf(o.Stopped))
			}
			// Each failed call is one leaf (or one group) recorded invalid;
			// at most the calls in flight when the breaker opened add to
			// the calls that tripped it.
			invalid := 0
			for _, it := range o.Items {
				for _, r := range it.Records {
					if r.Verdict == rubric.Invalid {
						invalid++
					}
					if r.Verdict == rubric.Pass && r.Source == judgefmt.SourceLLM {
						t.Errorf("a down endpoint passed a leaf: %s", describe(r))
					}
				}
			}
			calls := o.This.LLMCalls
			if calls < DefaultMaxConsecutiveFailures || calls > DefaultMaxConsecutiveFailures+opts.Tasks*opts.Leaves {
				t.Errorf("%d calls before stopping, want %d to %d", calls, DefaultMaxConsecutiveFailures, DefaultMaxConsecutiveFailures+opts.Tasks*opts.Leaves)
			}
			if invalid == 0 || invalid >= leafCount(items)/2 {
				t.Errorf("%d leaves recorded invalid of %d", invalid, leafCount(items))
			}
			l.Close()

			up := llmtest.Start(t, verdictReply(hashVerdict), llmtest.Options{})
			opts.Backend = newTestJudge(t, up, nil, llm.Options{}, 1)
			opts.RetryInvalid = true
			l2 := openLedger(t, dir, opts)
			defer l2.Close()
			o2 := mustRun(t, items, l2, opts)
			if !o2.Complete() || o2.Stopped != nil {
				t.Fatalf("resumed: complete %v, stopped %v", o2.Complete(), o2.Stopped)
			}
			for _, it := range o2.Items {
				for _, r := range it.Records {
					if r.Verdict == rubric.Invalid {
						t.Errorf("still invalid after the endpoint came back: %s", describe(r))
					}
				}
			}
		})
	}
}

// TestEndpointGarbageDown: transport-level garbage on every call (a body
// cut off mid-way, a truncated body, a 200 that is not JSON) stops the run
// as a down endpoint does, instead of recording every leaf invalid.
func TestEndpointGarbageDown(t *testing.T) {
	for _, c := range []struct {
		name  string
		fault llmtest.Fault
	}{{"cut off", llmtest.CutOff}, {"truncated", llmtest.Truncated}, {"not json", llmtest.Malformed}} {
		t.Run(c.name, func(t *testing.T) {
			_, _, items := fixtureRun(t)
			srv := llmtest.Start(t, llmtest.Fixed(llmtest.Reply{Fault: c.fault}), llmtest.Options{})
			sl := &llmtest.Sleeper{}
			j := newTestJudge(t, srv, nil, llm.Options{Sleep: sl.Sleep}, 1)
			opts := Options{Mode: rubric.Strict, Backend: j, CodeChecks: true, Skipping: true, Tasks: 2, Leaves: 2, Group: GroupTree}
			l := openLedger(t, t.TempDir(), opts)
			defer l.Close()
			o := mustRun(t, items, l, opts)
			var de *EndpointDownError
			if !errors.As(o.Stopped, &de) || o.Complete() {
				t.Fatalf("stopped = %v, complete %v; want an EndpointDownError", o.Stopped, o.Complete())
			}
			if calls := o.This.LLMCalls; calls > DefaultMaxConsecutiveFailures+opts.Tasks*opts.Leaves {
				t.Errorf("%d calls before stopping", calls)
			}
		})
	}
}
