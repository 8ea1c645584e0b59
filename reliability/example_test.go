package reliability_test

import (
	"fmt"

	"github.com/clinsql/clinsql/reliability"
)

// ExampleScoreTasks shows how a report turns a ClinSQL run into reliability
// scores: one Task per task with the model's final SQL and the execution
// score the judge gave it.
func ExampleScoreTasks() {
	tasks := []reliability.Task{
		{Key: "diagnostic_procedures/easy_level_queries/001", FinalSQL: "SELECT ...", Exec: 1},
		{Key: "diagnostic_procedures/easy_level_queries/002", FinalSQL: "SELECT ...", Exec: 0.5},
		{Key: "diagnostic_procedures/easy_level_queries/003", FinalSQL: "null"},
		{Key: "diagnostic_procedures/easy_level_queries/004", FinalSQL: "SELECT ...", ExecFailed: true},
	}
	rep, err := reliability.ScoreTasks(tasks, reliability.TaskOptions{}) // marker "null", threshold 1.0
	if err != nil {
		panic(err)
	}
	fmt.Printf("RS(0) %.2f  RS(10) %.2f  RS(N) %.2f\n", rep.RS0, rep.RS10, rep.RSN)
	fmt.Printf("correct %d, wrong %d, error %d, abstained %d\n", rep.Correct, rep.Wrong, rep.Error, rep.AbstainedAnswerable)
	for _, t := range rep.Tasks {
		fmt.Println(t.Key, t.Outcome, t.Score)
	}
	// Output:
	// RS(0) 25.00  RS(10) -475.00  RS(N) -175.00
	// correct 1, wrong 1, error 1, abstained 1
	// diagnostic_procedures/easy_level_queries/001 correct 1
	// diagnostic_procedures/easy_level_queries/002 wrong -1
	// diagnostic_procedures/easy_level_queries/003 abstained_answerable 0
	// diagnostic_procedures/easy_level_queries/004 error -1
}
