package scoring

import (
	"encoding/json"
	"path/filepath"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/atomicfile"
	"github.com/clinsql/clinsql/internal/buildinfo"
	"github.com/clinsql/clinsql/rubric"
)

// SplitScores are a split's averages, as judge_summary.json gives them per
// split and rescore_summary.json for the split rescored.
type SplitScores struct {
	Tasks               int     `json:"tasks"`
	AverageSQLScore     float64 `json:"average_sql_score"`
	AverageResultsScore float64 `json:"average_results_score"`
	TasksWithInvalid    int     `json:"tasks_with_invalid_leaves"`
}

// Scores are the average's split scores, rounded as published.
func (a Average) Scores() SplitScores {
	return SplitScores{Tasks: a.N, AverageSQLScore: Round6(a.SQL), AverageResultsScore: Round6(a.Results), TasksWithInvalid: a.InvalidTasks}
}

// RescoreSummaryFile names what the three summary files beside it are: in
// reference mode they equal the published files byte for byte and so can
// hold no field of clinsql's own, not even their mode.
const RescoreSummaryFile = "rescore_summary.json"

// RescoreSummary is rescore_summary.json.
type RescoreSummary struct {
	Mode     rubric.Mode     `json:"mode"`
	Producer buildinfo.Stamp `json:"producer"`
	Grading  string          `json:"grading"`
	// Subset describes the task filter of a rescore over part of the
	// tasks (--task, --domain, a domain folder, ...); the scores are then
	// the subset's, not the split's.
	Subset string `json:"subset,omitempty"`
	Model  string `json:"model"`
	Split  string `json:"split"`
	// The split's averages, as judge_summary.json gives them per split.
	SplitScores
	Files []string `json:"files"`
}

// RescoreJob is a recorded grading scored again (clinsql rescore).
type RescoreJob struct {
	// Grading is the recorded detailed_grading.json.
	Grading string
	Tasks   []*datasets.Task
	Mode    rubric.Mode
	// Subset describes the filter that chose Tasks ("" for a whole split):
	// the grading's decisions about those tasks only are scored, and the
	// files say "subset".
	Subset string
	// Out receives the three summary files and rescore_summary.json.
	Out string
	// Warn receives the problems that did not stop scoring, before any
	// file is written.
	Warn func(error)
}

// Run scores the grading in the job's mode and writes the files. It
// returns the scores and, beside them, the reference mode's (the same
// scores in reference mode), which the tables compare.
func (j RescoreJob) Run() (r, ref *Rescored, err error) {
	g, err := ReadGrading(j.Grading)
	if err != nil {
		return nil, nil, err
	}
	if err := g.RequireComplete(); err != nil {
		return nil, nil, err
	}
	// A subset is scored from the decisions about its tasks; the scores
	// say "subset" so that they are never taken for the split's.
	if j.Subset != "" {
		g = g.Only(j.Tasks)
	}
	if r, err = Rescore(g, j.Tasks, j.Mode); err != nil {
		return nil, nil, err
	}
	if j.Subset != "" {
		r.Completeness = "subset"
	}
	for _, w := range r.Warnings {
		if j.Warn != nil {
			j.Warn(w)
		}
	}
	if err := r.WriteFiles(j.Out); err != nil {
		return nil, nil, err
	}
	if err := r.writeSummary(j.Out, j.Grading, j.Subset); err != nil {
		return nil, nil, err
	}
	ref = r
	if j.Mode != rubric.Reference {
		if ref, err = Rescore(g, j.Tasks, rubric.Reference); err != nil {
			return nil, nil, err
		}
	}
	return r, ref, nil
}

func (r *Rescored) writeSummary(dir, grading, subset string) error {
	s := RescoreSummary{Mode: r.Mode, Producer: buildinfo.Current(), Grading: grading, Subset: subset, Model: r.Model, Split: r.Split,
		SplitScores: Summarise(r.Tasks).All.Scores(), Files: []string{ScoringFile, DifficultyFile, ScenarioFile}}
	j, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, RescoreSummaryFile), append(j, '\n'))
}
