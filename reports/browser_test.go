package reports

import (
	"context"
	"github.com/clinsql/clinsql/datasets"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/clinsql/clinsql/internal/shared"
)

// chromium finds the browser: $CLINSQL_CHROMIUM, else the Debian package's
// chromium on PATH. Without one the test skips, unless
// $CLINSQL_REQUIRE_SHARED is set (CI), where a missing browser is a failure.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{os.Getenv("CLINSQL_CHROMIUM"), "chromium", "chromium-browser"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no chromium on PATH (apt-get install chromium; .ci/run installs it)"
	if os.Getenv(shared.EnvRequire) != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// browse starts a headless Chromium with a fresh profile and no network
// chatter of its own, and returns a context driving one tab.
func browse(t *testing.T) (context.Context, *[]string) {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.UserDataDir(t.TempDir()),
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(alloc)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancelTab(); cancelAlloc() })
	var mu sync.Mutex
	var jsErrors []string
	err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*runtime.EventExceptionThrown); ok {
			msg := e.ExceptionDetails.Text
			if e.ExceptionDetails.Exception != nil {
				msg += " " + e.ExceptionDetails.Exception.Description
			}
			mu.Lock()
			jsErrors = append(jsErrors, msg)
			mu.Unlock()
		}
	})
	if err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return ctx, &jsErrors
}

// fixturePage writes the report of a fixture set and returns its
// report.html as a file URL.
func fixturePage(t *testing.T, fs *fixtureSet) string {
	t.Helper()
	r := buildFixtureReport(t, fs, Options{})
	out := t.TempDir()
	if _, err := r.Write(out); err != nil {
		t.Fatal(err)
	}
	return "file://" + filepath.ToSlash(filepath.Join(out, ReportHTML))
}

func TestHTMLReportInChromium(t *testing.T) {
	ctx, jsErrors := browse(t)
	fs := writeFixtureSet(t)
	fs.gradings = append(fs.gradings, writeHostileGrading(t, t.TempDir()))
	page := fixturePage(t, fs)
	modelLink := `a.model-link[data-model="beta-coder"]`
	taskLink := `a.task-link[data-task="` + hostileTask + `"]`
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	fail := func(what string, err error) {
		t.Helper()
		t.Fatalf("%s on %s: %v (JS errors: %v)", what, page, err, *jsErrors)
	}
	// Leaderboard -> model -> task.
	if err := chromedp.Do(ctx,
		chromedp.Navigate(page),
		chromedp.WaitVisible(css(`#board-validation`)),
		chromedp.Click(css(modelLink), chromedp.NodeVisible),
		chromedp.WaitVisible(css(taskLink)),
		chromedp.Click(css(taskLink), chromedp.NodeVisible),
		chromedp.WaitVisible(css(`#drill .leaf-expl`)),
	); err != nil {
		fail("clicking from the leaderboard to a task", err)
	}
	// The overview shows the hostile model name as text.
	names, err := chromedp.Run(ctx, chromedp.Evaluate[string](`Array.prototype.map.call(document.querySelectorAll("#board-validation a.model-link"), function (a) { return a.textContent; }).join("\n")`))
	if err != nil {
		fail("reading the leaderboard", err)
	}
	if !strings.Contains(names, hostileModel) {
		t.Errorf("leaderboard names %q lack %q as text", names, hostileModel)
	}
	title, err := chromedp.Run(ctx, chromedp.Title())
	if err != nil {
		fail("title", err)
	}
	evalBool := func(js string) bool {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js))
		if err != nil {
			fail(js, err)
		}
		return v
	}
	evalString := func(js string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			fail(js, err)
		}
		return v
	}
	overviewHidden := evalBool(`document.getElementById("overview").hidden`)
	explanations := evalString(`Array.prototype.map.call(document.querySelectorAll("#drill .leaf-expl"), function (e) { return e.textContent; }).join("\n")`)
	leaves, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#drill li.leaf").length`))
	if err != nil {
		fail("counting leaves", err)
	}
	sqlText := evalString(`document.querySelector("#drill pre.sql").textContent`)
	// The gold SQL and result beside the model's, and a permalink by model
	// name and task key, not by index.
	goldSQL := evalString(`document.querySelector("#drill .side-gold pre.gold-sql").textContent`)
	goldRows := evalString(`document.querySelector("#drill .side-gold table.preview").textContent`)
	hash := evalString(`location.hash`)
	question := evalString(`document.querySelector("#drill .question").textContent`)
	// Nothing the model or the judge wrote became markup or ran.
	clean := evalBool(`window.__pwned === undefined && document.querySelectorAll("#drill script, #drill img, #drill b").length === 0 && document.scripts.length === 1`)
	// And back to the leaderboard.
	if err := chromedp.Do(ctx,
		chromedp.Click(css(`#drill .crumbs a[href="#"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(css(`#board-validation`)),
	); err != nil {
		fail("going back", err)
	}
	backOnBoard := evalBool(`document.getElementById("drill").hidden`)
	// The permalink opens the same task on a fresh load.
	if err := chromedp.Do(ctx,
		chromedp.Navigate(page+"#task/beta-coder/"+url.PathEscape(hostileTask)),
		chromedp.Reload(),
		chromedp.WaitVisible(css(`#drill .task-title`)),
	); err != nil {
		fail("opening a permalink", err)
	}
	permTitle := evalString(`document.querySelector("#drill .task-title").textContent`)
	if permTitle != "beta-coder: "+hostileTask {
		t.Errorf("permalink opened %q", permTitle)
	}
	// The task across all models: one grid row per leaf, a verdict per model.
	if err := chromedp.Do(ctx,
		chromedp.Click(css(`#drill a.all-models`), chromedp.NodeVisible),
		chromedp.WaitVisible(css(`#drill table.leaf-grid`)),
	); err != nil {
		fail("opening the task across all models", err)
	}
	gridRows, err := chromedp.Run(ctx, chromedp.Evaluate[int](`Array.prototype.reduce.call(document.querySelectorAll("#drill table.leaf-grid tbody"), function (n, b) { return n + b.rows.length; }, 0)`))
	if err != nil {
		fail("reading the grid", err)
	}
	gridCols := evalString(`Array.prototype.map.call(document.querySelectorAll("#drill table.leaf-grid")[0].tHead.rows[0].cells, function (c) { return c.textContent; }).join("|")`)
	verdicts := evalString(`Array.prototype.map.call(document.querySelectorAll("#drill table.leaf-grid span.badge"), function (b) { return b.textContent; }).join(" ")`)
	wantHash := "#task/beta-coder/" + strings.ReplaceAll(hostileTask, "/", "%2F")
	if hash != wantHash {
		t.Errorf("task link %q, want the permalink %q", hash, wantHash)
	}
	var goldTask *datasets.Task
	for _, task := range fs.tasks {
		if task.Key.String() == hostileTask {
			goldTask = task
		}
	}
	if goldTask != nil && gridRows != len(goldTask.SQLRubric.Root.Leaves())+len(goldTask.ResultsRubric.Root.Leaves()) {
		t.Errorf("all-models grid has %d leaf rows, want one per leaf", gridRows)
	}
	if !strings.Contains(gridCols, "alpha-sql") || !strings.Contains(gridCols, "beta-coder") || !strings.Contains(verdicts, "pass") {
		t.Errorf("all-models grid: columns %q, verdicts %q", gridCols, verdicts)
	}
	if goldTask == nil || goldSQL != goldTask.GoldSQL || goldRows == "" {
		t.Errorf("gold SQL %q (rows %q), want the task's gold SQL beside the model's", goldSQL, goldRows)
	}
	if title != "ClinSQL report" {
		t.Errorf("title %q", title)
	}
	if !overviewHidden || !backOnBoard {
		t.Errorf("drill-down did not replace the overview (hidden %v, back %v)", overviewHidden, backOnBoard)
	}
	// The hostile explanation shows as text, the other leaves' too.
	for _, want := range []string{hostileExpl, "beta-coder: gender-selection is", "Error: Error code: 429"} {
		if !strings.Contains(explanations, want) {
			t.Errorf("leaf explanations lack %q:\n%s", want, explanations)
		}
	}
	wantLeaves := 0
	for _, task := range fs.tasks {
		if task.Key.String() == hostileTask {
			wantLeaves = len(task.SQLRubric.Root.Leaves()) + len(task.ResultsRubric.Root.Leaves())
		}
	}
	if leaves != wantLeaves || leaves == 0 {
		t.Errorf("%d leaves shown, want %d", leaves, wantLeaves)
	}
	if sqlText != hostileSQL {
		t.Errorf("SQL shown as %q, want the text %q", sqlText, hostileSQL)
	}
	if !strings.Contains(question, "heart rate above 100") {
		t.Errorf("question %q", question)
	}
	if !clean {
		t.Errorf("a model or judge string became markup or ran")
	}
	if len(*jsErrors) > 0 {
		t.Errorf("JS errors: %v", *jsErrors)
	}
}

// evalJS evaluates js in the tab and fails the test on an error, naming
// the page's own JS errors.
func evalJS[T any](t *testing.T, ctx context.Context, jsErrors *[]string, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v (JS errors %v)", js, err, *jsErrors)
	}
	return v
}
