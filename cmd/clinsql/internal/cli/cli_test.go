package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	goldenfile "github.com/clinsql/clinsql/internal/golden"
	"github.com/clinsql/clinsql/scoring"

	"github.com/clinsql/clinsql/internal/fixtures"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

// runCLI runs the command line and returns its exit code and outputs, with
// dir replaced by $DIR so that goldens do not depend on temp paths.
func runCLI(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }}
	code := run(context.Background(), env, args)
	clean := func(s string) string {
		if dir == "" {
			return s
		}
		return strings.ReplaceAll(s, dir, "$DIR")
	}
	return code, clean(stdout.String()), clean(stderr.String())
}

// golden compares got with testdata/<name>, rewriting it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got, *update)
}

// fixtureRun writes the fixture tasks and a grading in which a leaf fails
// when its id has an odd length, one leaf is a recorded API error scored 1
// and one is missing.
func fixtureRun(t *testing.T) (dir, grading string) {
	dir = t.TempDir()
	if _, err := fixtures.WriteClinSQL(dir); err != nil {
		t.Fatal(err)
	}
	grading = filepath.Join(dir, "detailed_grading.json")
	err := fixtures.WriteGrading(grading, "fixture-model", "validation", func(task fixtures.Task, leaf string, sql bool) (fixtures.Decision, bool) {
		switch {
		case task.Domain == "Diagnostic_Procedures" && leaf == "acceptable-range":
			return fixtures.Decision{Score: 1, Explanation: "Error: Error code: 429 - rate limit"}, true
		case task.Domain == "Laboratory_Results_Analysis" && leaf == "median":
			return fixtures.Decision{}, false
		case len(leaf)%2 == 1:
			return fixtures.Decision{Score: 0, Explanation: "not met"}, true
		}
		return fixtures.Decision{Score: 1, Explanation: "met"}, true
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir, grading
}

func TestRescore(t *testing.T) {
	dir, grading := fixtureRun(t)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"rescore-reference", []string{"--mode", "reference"}},
		{"rescore-strict", nil}, // the default
		{"rescore-brief", []string{"--mode", "strict", "--brief"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, tc.name)
			args := append([]string{"rescore", "--grading", grading, "--tasks", dir, "--out", out}, tc.args...)
			code, stdout, stderr := runCLI(t, dir, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			golden(t, tc.name+".stdout", stdout)
			for _, f := range []string{"scoring_results.json", "difficulty_scoring_results.json", "scenario_scoring_results.json"} {
				if _, err := os.Stat(filepath.Join(out, f)); err != nil {
					t.Error(err)
				}
			}
			// The mode the three files are in is stated beside them.
			var sum scoring.RescoreSummary
			b, err := os.ReadFile(filepath.Join(out, scoring.RescoreSummaryFile))
			if err == nil {
				err = json.Unmarshal(b, &sum)
			}
			want := "strict"
			if slices.Contains(tc.args, "reference") {
				want = "reference"
			}
			if err != nil || string(sum.Mode) != want || sum.Tasks != 3 || sum.Producer.Version == "" {
				t.Errorf("%s: %+v (%v); want mode %s, 3 tasks, a clinsql version", scoring.RescoreSummaryFile, sum, err, want)
			}
		})
	}
}

func TestUsageErrors(t *testing.T) {
	dir, grading := fixtureRun(t)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{}, 2, ""},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"rescore", "--grading", grading}, 2, "--grading, --tasks and --out are required"},
		{[]string{"rescore", "--grading", grading, "--tasks", dir, "--out", dir, "--mode", "lenient"}, 2, `unknown mode "lenient"`},
		{[]string{"rescore", "--grading", grading, "--tasks", dir, "--out", dir, "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"rescore", "--grading", filepath.Join(dir, "nope.json"), "--tasks", dir, "--out", dir}, 1, "$DIR/nope.json: no such file"},
		{[]string{"rescore", "--grading", grading, "--tasks", filepath.Join(dir, "data", "splits", "test"), "--out", dir}, 1, "no task validation/Diagnostic_Procedures/easy_level_queries/001"},
		{[]string{"datasets", "fetch", "kaggle"}, 2, "want: clinsql datasets fetch clinsql|ehrsql"},
		{[]string{"rescore", "-h"}, 0, "usage: clinsql rescore"},
	} {
		code, _, stderr := runCLI(t, dir, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}
