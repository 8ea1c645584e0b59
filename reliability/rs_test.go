package reliability

import (
	"strings"
	"testing"
)

func outcomes(spec map[Outcome]int) []Outcome {
	var out []Outcome
	for _, o := range []Outcome{Correct, Wrong, Error, AbstainedAnswerable, AnsweredUnanswerable, AbstainedUnanswerable} {
		for range spec[o] {
			out = append(out, o)
		}
	}
	return out
}

// rs is sum/n × 100 in float64 arithmetic, as numpy and the scorer compute
// it (a Go constant expression would be computed exactly instead).
func rs(sum, n float64) float64 { return sum / n * 100 }

func TestSummarize(t *testing.T) {
	for _, tc := range []struct {
		name                string
		spec                map[Outcome]int
		rs0, rs5, rs10, rsN float64
	}{
		{
			// Abstain on every valid item: 232 unanswerable score +1, 931
			// answerable score 0, nothing is penalised, so every RS is
			// 232/1163 × 100 (CPython: 19.948409286328463).
			"abstain-all valid",
			map[Outcome]int{AbstainedUnanswerable: 232, AbstainedAnswerable: 931},
			19.948409286328463, 19.948409286328463, 19.948409286328463, 19.948409286328463,
		},
		{
			// Train: 450 of 5124 (CPython 450/5124*100).
			"abstain-all train",
			map[Outcome]int{AbstainedUnanswerable: 450, AbstainedAnswerable: 4674},
			8.782201405152225, 8.782201405152225, 8.782201405152225, 8.782201405152225,
		},
		{
			// Perfect: every item +1.
			"gold", map[Outcome]int{Correct: 931, AbstainedUnanswerable: 232}, 100, 100, 100, 100,
		},
		{
			// 3 correct, 1 wrong: sums 3, 3−5, 3−10, 3−4 over 4 items.
			"one wrong of four", map[Outcome]int{Correct: 3, Wrong: 1}, 75, -50, -175, -25,
		},
		{
			// 1 of each outcome: +1 +1 0 and three −c over 6 items:
			// RS(0) = 2/6, RS(5) = −13/6, RS(10) = −28/6, RS(6) = −16/6.
			"one of each",
			map[Outcome]int{Correct: 1, Wrong: 1, Error: 1, AbstainedAnswerable: 1, AnsweredUnanswerable: 1, AbstainedUnanswerable: 1},
			rs(2, 6), rs(-13, 6), rs(-28, 6), rs(-16, 6),
		},
		{"empty", nil, 0, 0, 0, 0},
	} {
		s := Summarize(outcomes(tc.spec))
		if s.RS0 != tc.rs0 || s.RS5 != tc.rs5 || s.RS10 != tc.rs10 || s.RSN != tc.rsN {
			t.Errorf("%s: RS = %v %v %v %v, want %v %v %v %v", tc.name, s.RS0, s.RS5, s.RS10, s.RSN, tc.rs0, tc.rs5, tc.rs10, tc.rsN)
		}
		if s.N != len(outcomes(tc.spec)) || s.Correct != tc.spec[Correct] || s.AbstainedUnanswerable != tc.spec[AbstainedUnanswerable] {
			t.Errorf("%s: counts %+v", tc.name, s)
		}
	}
}

func TestOutcomeScore(t *testing.T) {
	want := map[Outcome]int{Correct: 1, AbstainedUnanswerable: 1, AbstainedAnswerable: 0, Wrong: -1, Error: -1, AnsweredUnanswerable: -1}
	for o, s := range want {
		if o.Score() != s {
			t.Errorf("%s.Score() = %d, want %d", o, o.Score(), s)
		}
	}
}

func TestScoreTasks(t *testing.T) {
	tasks := []Task{
		{Key: "a/easy/001", FinalSQL: "SELECT 1", Exec: 1},                   // correct
		{Key: "a/easy/002", FinalSQL: "SELECT 2", Exec: 0.99},                // wrong at threshold 1.0
		{Key: "a/easy/003", FinalSQL: "null", Exec: 0},                       // abstained
		{Key: "a/easy/004", FinalSQL: "  null\n", Exec: 1},                   // abstained: the score is ignored
		{Key: "a/easy/005", FinalSQL: "SELECT x", Exec: 0, ExecFailed: true}, // error
		{Key: "a/easy/006", FinalSQL: "NULL", Exec: 0},                       // answered: "NULL" is not the marker
	}
	rep, err := ScoreTasks(tasks, TaskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// +1, −c, 0, 0, −c, −c over 6: RS(0) = 1/6, RS(10) = (1 − 30)/6.
	want := []Outcome{Correct, Wrong, AbstainedAnswerable, AbstainedAnswerable, Error, Wrong}
	for i, r := range rep.Tasks {
		if r.Outcome != want[i] || r.Key != tasks[i].Key {
			t.Errorf("task %s: %s, want %s", r.Key, r.Outcome, want[i])
		}
	}
	if rep.Threshold != 1 || rep.RS0 != rs(1, 6) || rep.RS10 != rs(-29, 6) || rep.RSN != rs(-17, 6) || rep.Wrong != 2 {
		t.Errorf("report %+v", rep.Scores)
	}

	// A lower threshold and a lenient marker.
	rep, err = ScoreTasks(tasks, TaskOptions{Threshold: 0.9, Abstention: Abstention{Lenient: true}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Correct != 2 || rep.AbstainedAnswerable != 3 || rep.Error != 1 || rep.Wrong != 0 || rep.RS10 != rs(-8, 6) {
		t.Errorf("threshold 0.9, lenient: %+v", rep.Scores)
	}

	// Unanswerable tasks reward abstention.
	rep, err = ScoreTasks([]Task{
		{Key: "u1", FinalSQL: "null", Unanswerable: true},
		{Key: "u2", FinalSQL: "SELECT 1", Exec: 1, Unanswerable: true},
	}, TaskOptions{Abstention: Abstention{Marker: "null"}})
	if err != nil || rep.AbstainedUnanswerable != 1 || rep.AnsweredUnanswerable != 1 || rep.RS0 != 50 {
		t.Errorf("unanswerable: %+v %v", rep, err)
	}
}

func TestScoreTasksErrors(t *testing.T) {
	for _, tc := range []struct {
		tasks []Task
		opt   TaskOptions
		want  string
	}{
		{[]Task{{Key: "a"}, {Key: "a"}}, TaskOptions{}, `"a": duplicate key`},
		{[]Task{{Key: ""}}, TaskOptions{}, "empty key"},
		{[]Task{{Key: "a", Exec: 1.5}}, TaskOptions{}, "outside [0, 1]"},
		{[]Task{{Key: "a", Exec: -0.1}}, TaskOptions{}, "outside [0, 1]"},
		{[]Task{{Key: "a"}}, TaskOptions{Threshold: 1.2}, "threshold"},
		{[]Task{{Key: "a"}}, TaskOptions{Threshold: -1}, "threshold"},
	} {
		if _, err := ScoreTasks(tc.tasks, tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.tasks, err, tc.want)
		}
	}
}
