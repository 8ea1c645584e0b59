package refinetest

import (
	"context"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmfmt"
	"github.com/clinsql/clinsql/llm/llmtest"
)

func TestScheduleRounds(t *testing.T) {
	s := &Schedule{Right: map[string]string{"How many?": "SELECT 1;", "How many men?": "SELECT 2"}, Errs: func(q string) int {
		if q == "How many men?" {
			return 2
		}
		return 0
	}}
	srv := llmtest.Start(t, s.Handler(), llmtest.Options{})
	c, err := llm.New(llm.Endpoint{Name: "f", Kind: llm.KindOpenAI, BaseURL: srv.OpenAIBaseURL(), Model: "f", APIKeyEnv: "K"}, llm.Options{Getenv: func(string) string { return "k" }})
	if err != nil {
		t.Fatal(err)
	}
	ask := func(prompt string) string {
		r, err := c.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: llmfmt.RoleUser, Content: prompt}}})
		if err != nil {
			t.Fatal(err)
		}
		return r.Text
	}
	first := ask(`Question: "How many men?"`)
	if !strings.Contains(first, "-- answer 1\n"+Broken("SELECT 2", 1)) {
		t.Errorf("first answer %q", first)
	}
	second := ask("Question: \"How many men?\"\n```sql\n-- answer 1\nSELECT no_such_column_1 ...\n```")
	if !strings.Contains(second, "-- answer 2\nSELECT no_such_column_2") {
		t.Errorf("second answer %q", second)
	}
	third := ask("Question: \"How many men?\"\n-- answer 1\n-- answer 2\n")
	if !strings.Contains(third, "-- answer 3\nSELECT 2\n") {
		t.Errorf("third answer %q", third)
	}
	if got := ask(`Question: "How many?"`); !strings.Contains(got, "-- answer 1\nSELECT 1;") {
		t.Errorf("right at once: %q", got)
	}
	if s.Calls("How many men?") != 3 {
		t.Errorf("calls %d", s.Calls("How many men?"))
	}
	if b := Broken("SELECT 1;\n", 4); b != "SELECT no_such_column_4 FROM (\nSELECT 1\n) AS draft" {
		t.Errorf("Broken: %q", b)
	}
	counts := map[int]int{}
	for i := range 190 {
		counts[ErrsByIndex(i)]++
	}
	if counts[0] != 114 || counts[1] != 38 || counts[2] != 19 || counts[3] != 19 {
		t.Errorf("schedule over 190: %v", counts)
	}
}
