package mimic_test

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clinsql/clinsql/executor/mimic"
	"github.com/clinsql/clinsql/executor/mimic/synth"
)

// The kill test runs builds in a child process (this test binary again)
// and kills them with SIGKILL.
const childEnv = "CLINSQL_TEST_BUILD_CHILD"

func TestMain(m *testing.M) {
	if spec := os.Getenv(childEnv); spec != "" {
		os.Exit(buildChild(spec))
	}
	os.Exit(m.Run())
}

// buildChild builds "<mimic dir>|<out>", printing one line per table as it
// is committed: "TABLE <name> <resumed> <attempt> <rows>".
func buildChild(spec string) int {
	dir, out, _ := strings.Cut(spec, "|")
	_, err := mimic.Build(context.Background(), mimic.BuildOptions{MimicDir: dir, Out: out, Threads: 2,
		Table: func(tr mimic.TableReport) {
			kind := "loaded"
			switch {
			case tr.Resumed:
				kind = "resumed"
			case tr.Missing:
				kind = "missing"
			case tr.Derived:
				kind = "derived"
			}
			fmt.Printf("TABLE %s %s %d %d\n", tr.Table, kind, tr.Attempt, tr.Rows)
		}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func digests(t *testing.T, path string) map[string]string {
	t.Helper()
	db, err := sql.Open("duckdb", path+"?access_mode=READ_ONLY")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	out := map[string]string{}
	for _, tb := range mimic.V31.Tables {
		d, err := mimic.TableDigest(context.Background(), db, tb)
		if err != nil {
			t.Fatal(err)
		}
		out[tb.FullName()] = d
	}
	return out
}

// TestBuildSurvivesKill: a build killed with SIGKILL at random points and
// run again until it completes gives the same database as an uninterrupted
// build (every table's content digest), and no table is loaded twice: a
// table committed by one attempt is kept by the next ones, never loaded
// again. The kill points are random (seed logged; CLINSQL_KILL_SEED
// replays one); where they land does not decide the outcome.
func TestBuildSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds several times in child processes")
	}
	src := t.TempDir()
	// 40 patients give every table rows, enough for kills to land inside
	// tables as well as between them; 150 took three times the CPU
	// (minutes under -race on a loaded machine) and proved no more.
	if _, err := synth.Write(context.Background(), synth.Options{Patients: 40, Seed: 11, Out: src}); err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join(t.TempDir(), "ref.duckdb")
	if _, err := mimic.Build(context.Background(), mimic.BuildOptions{MimicDir: src, Out: ref}); err != nil {
		t.Fatal(err)
	}
	want := digests(t, ref)

	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("CLINSQL_KILL_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("kill seed %d (CLINSQL_KILL_SEED replays it)", seed)
	r := rand.New(rand.NewPCG(seed, 1))

	out := filepath.Join(t.TempDir(), "killed.duckdb")
	loadedIn := map[string]int{} // table -> attempt that reported loading it
	kills := 0
	for run := 1; ; run++ {
		if run > 20 {
			t.Fatal("build did not complete in 20 runs")
		}
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+src+"|"+out)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill after a random number of committed tables (the first
		// runs only), a random moment later.
		killAfter := -1
		if kills < 4 {
			killAfter = r.IntN(12)
		}
		delay := time.Duration(r.IntN(100)) * time.Millisecond // within a table of 40 patients' build
		sc := bufio.NewScanner(stdout)
		seen := 0
		killed := false
		if killAfter == 0 {
			time.Sleep(delay)
			cmd.Process.Signal(syscall.SIGKILL)
			killed = true
		}
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) != 5 || f[0] != "TABLE" {
				continue
			}
			table, kind := f[1], f[2]
			attempt, _ := strconv.Atoi(f[3])
			if kind == "loaded" {
				if prev, ok := loadedIn[table]; ok {
					t.Errorf("%s loaded again by attempt %d (first by attempt %d)", table, attempt, prev)
				}
				loadedIn[table] = attempt
			}
			seen++
			if !killed && seen == killAfter {
				time.Sleep(delay)
				cmd.Process.Signal(syscall.SIGKILL)
				killed = true
			}
		}
		err = cmd.Wait()
		if killed && err != nil {
			kills++
			t.Logf("run %d killed after %d tables + %v", run, killAfter, delay)
			continue
		}
		if err != nil {
			t.Fatalf("run %d failed: %v\n%s", run, err, stderr.String())
		}
		t.Logf("run %d completed (%d kills before)", run, kills)
		break
	}
	got := digests(t, out)
	for table, d := range want {
		if got[table] != d {
			t.Errorf("%s: digest %s after kills, %s uninterrupted", table, got[table], d)
		}
	}
	// The attempt each table was loaded by, as the database records it,
	// is the attempt that reported loading it.
	rep, err := mimic.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range rep.Tables {
		if tr.Missing || tr.Derived {
			continue
		}
		if a, ok := loadedIn[tr.Table]; ok && a != tr.Attempt {
			t.Errorf("%s: reported loaded by attempt %d, recorded as attempt %d", tr.Table, a, tr.Attempt)
		}
	}
	if kills == 0 {
		t.Error("no run was killed")
	}
}
