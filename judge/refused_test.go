package judge

import (
	"errors"
	"testing"

	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmtest"
	"github.com/clinsql/clinsql/rubric"
)

// TestEndpointRefusesEveryCall (issue 25 #3): an endpoint that refuses
// every request as bad (a 404 for a model it does not serve, the 400
// "Unsupported parameter: 'max_tokens'" of reasoning models) is a
// configuration error. The judge stops at the first refusal before any
// answer, records no leaf invalid, and its output is marked failed (never
// ranked), rather than completing with every leaf invalid and SQL 0.00.
func TestEndpointRefusesEveryCall(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply llmtest.Reply
	}{
		{"404 model not found", llmtest.HTTPError(404, "model_not_found", "The model `gpt-x` does not exist")},
		{"400 unsupported parameter", llmtest.HTTPError(400, "unsupported_parameter", "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, items := fixtureRun(t)
			srv := llmtest.Start(t, llmtest.Fixed(tc.reply), llmtest.Options{})
			j := newTestJudge(t, srv, nil, llm.Options{}, 1)
			opts := Options{Mode: rubric.Strict, Backend: j, CodeChecks: true, Skipping: true, Tasks: 1, Leaves: 1, Group: GroupTree}
			l := openLedger(t, t.TempDir(), opts)
			defer l.Close()
			o := mustRun(t, items, l, opts)
			var ce *ConfigError
			if !errors.As(o.Stopped, &ce) || o.Complete() {
				t.Fatalf("stopped = %v, complete %v; want a ConfigError", o.Stopped, o.Complete())
			}
			for _, it := range o.Items {
				for _, r := range it.Records {
					if r.Verdict == rubric.Invalid && r.Source == judgefmt.SourceLLM {
						t.Errorf("a refused call was recorded as an invalid leaf: %s", describe(r))
					}
				}
			}
			if s := Score(o, "m").Summary; s.Completeness != "failed" {
				t.Errorf("completeness %q, want failed (a report never ranks it)", s.Completeness)
			}
		})
	}
}
