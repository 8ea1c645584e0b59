package reports

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/clinsql/clinsql/internal/fixtures"
)

// judgedFixturePage is the fixture report with gamma-judged's run beside
// the two graded models.
func judgedFixturePage(t *testing.T) string {
	t.Helper()
	fs := writeFixtureSet(t)
	fs.runs = append(fs.runs, writeJudgedRun(t, t.TempDir(), fs.tasks))
	return fixturePage(t, fs)
}

// TestTranscriptInChromium: a task page of a run clinsql generated and
// judged shows the whole transcript: each attempt with what it was asked
// and the error fed back, its SQL (diffable against the previous attempt
// and gold), the reply folded, tokens, cost and latency; every judge call
// with its prompt and raw reply, reached from the leaves it decided.
func TestTranscriptInChromium(t *testing.T) {
	ctx, jsErrors := browse(t)
	page := judgedFixturePage(t)
	str := func(js string) string { t.Helper(); return evalJS[string](t, ctx, jsErrors, js) }
	num := func(js string) int { t.Helper(); return evalJS[int](t, ctx, jsErrors, js) }
	texts := func(sel string) string {
		return str(`Array.prototype.map.call(document.querySelectorAll(` + "`" + sel + "`" + `), function (e) { return e.textContent; }).join("\n")`)
	}
	if err := chromedp.Do(ctx,
		chromedp.Navigate(page+"#task/"+judgedModel+"/"+url.PathEscape(judgedTask)),
		chromedp.Reload(),
		chromedp.WaitVisible(chromedp.CSS(`#drill section.transcript`)),
	); err != nil {
		t.Fatalf("opening the task: %v (JS errors %v)", err, *jsErrors)
	}
	if n := num(`document.querySelectorAll("#drill .attempt").length`); n != 3 {
		t.Fatalf("%d attempts shown, want 3", n)
	}
	heads := texts(`#drill .attempt-head`)
	for _, want := range []string{"Attempt 1", "asked for a query", "5,120 + 410 tokens", "model 1.8 s",
		"Attempt 2", "asked to fix the error", "ran, no rows", "Attempt 3", "asked to fix a query that returned no rows", "ran, 1 row"} {
		if !strings.Contains(heads, want) {
			t.Errorf("attempt heads lack %q:\n%s", want, heads)
		}
	}
	fed := texts(`#drill .fed-back`)
	if !strings.Contains(fed, `syntax_error: Syntax error: Unexpected identifier "SELEC"`) || !strings.Contains(fed, "the query returned no rows") {
		t.Errorf("errors fed back:\n%s", fed)
	}
	if got := texts(`#drill .attempt-error`); !strings.Contains(got, "syntax_error") {
		t.Errorf("attempt errors: %q", got)
	}
	// Replies are folded, and hold the reasoning.
	if n := num(`document.querySelectorAll("#drill details.reply[open]").length`); n != 0 {
		t.Errorf("%d replies unfolded at first", n)
	}
	if got := texts(`#drill details.reply pre.reply-text`); !strings.Contains(got, "Reasoning: The year filter removed every row") {
		t.Errorf("replies: %q", got)
	}
	// The model's text stays text, even opened.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#drill .attempt:nth-of-type(1) details.reply summary`), chromedp.NodeVisible)); err != nil {
		t.Fatal(err)
	}
	if got := texts(`#drill .attempt:nth-of-type(1) pre.reply-text`); !strings.Contains(got, hostileReply) ||
		num(`(window.__pwned === undefined ? 0 : 1) + document.querySelectorAll("#drill img, #drill script").length`) != 0 {
		t.Errorf("a reply became markup or ran: %q", got)
	}
	// Attempt 2's SQL against attempt 1: the keyword fixed, a line added.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#drill .attempt:nth-of-type(2) button.diff-button`), chromedp.NodeVisible)); err != nil {
		t.Fatalf("diff: %v", err)
	}
	del, ins := texts(`#drill .attempt:nth-of-type(2) pre.diff span.del`), texts(`#drill .attempt:nth-of-type(2) pre.diff span.ins`)
	if !strings.Contains(del, "SELEC le.subject_id") || !strings.Contains(ins, "SELECT le.subject_id") || !strings.Contains(ins, "+ -- restricted to 2101") {
		t.Errorf("diff against attempt 1: removed %q, added %q", del, ins)
	}
	// The final SQL against gold: the same query, nothing removed.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#drill .side-model button.diff-button`), chromedp.NodeVisible)); err != nil {
		t.Fatalf("diff against gold: %v", err)
	}
	if got := texts(`#drill .side-model pre.diff .diff-head`); !strings.HasPrefix(got, "-0 +0 lines against gold") {
		t.Errorf("final SQL against gold: %q", got)
	}
	// The judge: one call per tree; a leaf's link opens its call.
	if n := num(`document.querySelectorAll("#drill details.call").length`); n != 2 {
		t.Errorf("%d judge calls, want 2", n)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#drill .tree-results a.call-link`), chromedp.NodeVisible)); err != nil {
		t.Fatalf("call link: %v", err)
	}
	if got := str(`document.querySelector("#drill details.call[open]").id`); got != "call-1" {
		t.Errorf("the results leaf opened %q, want call-1", got)
	}
	prompt := texts(`#drill details.call#call-1 pre.prompt-text`)
	reply := texts(`#drill details.call#call-1 pre.reply-text`)
	if !strings.Contains(prompt, "You grade several requirements") || !strings.Contains(prompt, "## Question") || !strings.Contains(reply, `"verdict":`) {
		t.Errorf("call 2: prompt %q, reply %q", prompt, reply)
	}
	if got := texts(`#drill details.call#call-1 .call-use`); !strings.Contains(got, "1 call") || !strings.Contains(got, "$0.") {
		t.Errorf("call use %q", got)
	}
	// Every verdict names its source; the judge on hover.
	if got := str(`document.querySelector("#drill .tree-results li.leaf .src").getAttribute("title")`); got != "llm:judge/gpt-judge@v1+g1" {
		t.Errorf("verdict source title %q", got)
	}
	// A gold result is said to come from BigQuery; gamma ran there too (no
	// sample-database warning).
	if got := texts(`#drill .side-gold .db-note`); !strings.Contains(got, "MIMIC-IV v3.1 on BigQuery") {
		t.Errorf("gold note %q", got)
	}
	if n := num(`document.querySelectorAll("#drill .side-model .db-other").length`); n != 0 {
		t.Errorf("a BigQuery run warned about its database")
	}
	// alpha-sql ran on a sample database: its result says so beside gold.
	if err := chromedp.Do(ctx,
		chromedp.Navigate(page+"#task/alpha-sql/"+url.PathEscape(judgedTask)),
		chromedp.Reload(),
		chromedp.WaitVisible(chromedp.CSS(`#drill .side-model`)),
	); err != nil {
		t.Fatal(err)
	}
	if got := texts(`#drill .side-model .db-other`); !strings.Contains(got, "sample DB: duckdb, 100 patients") || !strings.Contains(got, "not on the gold result's database") {
		t.Errorf("sample-database note beside the result: %q", got)
	}
	// A released-format run: the outcomes, and a note why no SQL.
	if got := texts(`#drill section.transcript p.note`); !strings.Contains(got, "reference format") {
		t.Errorf("reference-format note %q", got)
	}
	if len(*jsErrors) > 0 {
		t.Errorf("JS errors: %v", *jsErrors)
	}
}

// TestSearchInChromium: the search page finds tasks of every model by
// text and narrows them by model, error class and verdict.
func TestSearchInChromium(t *testing.T) {
	ctx, jsErrors := browse(t)
	page := judgedFixturePage(t)
	num := func(js string) int { t.Helper(); return evalJS[int](t, ctx, jsErrors, js) }
	rows := `document.querySelectorAll("#drill table.search-hits tbody tr").length`
	// The header link opens the search over every model x task pair.
	if err := chromedp.Do(ctx,
		chromedp.Navigate(page),
		chromedp.Click(chromedp.CSS(`header a.search-link`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`#drill table.search-hits`)),
	); err != nil {
		t.Fatalf("opening the search: %v (JS errors %v)", err, *jsErrors)
	}
	all := 3 * len(fixtures.Tasks())
	if n := num(rows); n != all {
		t.Errorf("%d rows unfiltered, want %d", n, all)
	}
	// Words of an error message find the tasks whose attempts failed so.
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(`#drill input.search-box`), "unexpected identifier")); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Poll[chromedp.Void](`document.querySelectorAll("#drill table.search-hits tbody tr").length === 1`)); err != nil {
		t.Fatalf("text search: %d rows, want gamma's one task", num(rows))
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#drill table.search-hits tbody tr").textContent`))
	if err != nil || !strings.Contains(got, judgedModel) || !strings.Contains(got, judgedTask) {
		t.Errorf("hit %q, %v", got, err)
	}
	// The error class filter: beta-coder's failed task (its runs are in
	// the reference format: unclassified).
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`(function () {
		var box = document.querySelector("#drill input.search-box");
		box.value = "";
		box.dispatchEvent(new Event("input"));
		var sel = document.querySelector('#drill select[data-filter="cls"]');
		sel.value = "unclassified";
		sel.dispatchEvent(new Event("change"));
	})()`)); err != nil {
		t.Fatal(err)
	}
	if n := num(rows); n != 1 {
		t.Errorf("error class filter: %d rows, want 1", n)
	}
	// The permalink keeps the words.
	if err := chromedp.Do(ctx,
		chromedp.Navigate(page+"#search/"+url.PathEscape("Laboratory")),
		chromedp.Reload(),
		chromedp.WaitVisible(chromedp.CSS(`#drill table.search-hits`)),
	); err != nil {
		t.Fatal(err)
	}
	if n := num(rows); n != 3 {
		t.Errorf("#search/Laboratory: %d rows, want one task x 3 models", n)
	}
	if len(*jsErrors) > 0 {
		t.Errorf("JS errors: %v", *jsErrors)
	}
}

// manyModels writes n graded models with long names and falling pass
// rates, so that their rank order is not their name order. Every fifth
// name is as long as a hub id with an organisation and a version
// ("Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8" and longer), without a space
// where a line could break.
func manyModels(t *testing.T, n int) *fixtureSet {
	t.Helper()
	fs := writeFixtureSet(t)
	fs.runs = nil
	fs.gradings = nil
	dir := t.TempDir()
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("%c-model-with-a-long-name-%02d", 'a'+(i*7)%n, i)
		if i%5 == 2 {
			name = fmt.Sprintf("%c-org/Qwen3-Coder-480B-A35B-Instruct-FP8-2507-preview-%02d", 'a'+(i*7)%n, i)
		}
		rate := uint32(95 - 4*i)
		for _, split := range []string{"validation", "test"} {
			p := filepath.Join(dir, name, split, "detailed_grading.json")
			must(t, os.MkdirAll(filepath.Dir(p), 0o755))
			must(t, fixtures.WriteGrading(p, name, split, func(task fixtures.Task, leaf string, sql bool) (fixtures.Decision, bool) {
				return fixtures.Decision{Score: map[bool]float64{true: 1}[passes(name, filepath.ToSlash(task.Path()), leaf, rate)], Explanation: leaf}, true
			}))
			fs.gradings = append(fs.gradings, p)
		}
	}
	return fs
}

// TestGridOfManyModelsInChromium: the task across 17 models puts the
// models in the leaderboard's order and stays within the page's width.
func TestGridOfManyModelsInChromium(t *testing.T) {
	ctx, jsErrors := browse(t)
	fs := manyModels(t, 17)
	r := buildFixtureReport(t, fs, Options{})
	page := fixturePage(t, fs)
	key := "validation/Laboratory_Results_Analysis/medium_level_queries/001"
	if err := chromedp.Do(ctx,
		chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(page+"#all/"+url.PathEscape(key)),
		chromedp.Reload(),
		chromedp.WaitVisible(chromedp.CSS(`#drill table.leaf-grid`)),
	); err != nil {
		t.Fatalf("%v (JS errors %v)", err, *jsErrors)
	}
	cols, err := chromedp.Run(ctx, chromedp.Evaluate[string](`Array.prototype.slice.call(document.querySelector("#drill table.leaf-grid").tHead.rows[0].cells, 1).map(function (c) { return c.textContent.replace(/^[0-9]+\. /, ""); }).join("|")`))
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(r.Ranking("validation").Models, "|"); cols != want {
		t.Errorf("grid columns\n%s\nwant the ranking\n%s", cols, want)
	}
	overflow, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`))
	if err != nil || overflow {
		t.Errorf("the page overflows its width with 17 models (%v)", err)
	}
	// A model name written upwards either fits its column head or is cut
	// there with an ellipsis, the whole name on hover; it never runs out
	// of the head over what is above the grid.
	spill, err := chromedp.Run(ctx, chromedp.Evaluate[string](`Array.prototype.filter.call(document.querySelectorAll("#drill table.leaf-grid th.vertical"), function (c) {
		var s = getComputedStyle(c);
		var fits = c.scrollHeight <= c.clientHeight + 1;
		var cut = s.overflow === "hidden" && s.textOverflow === "ellipsis" && c.title === c.textContent;
		return !(fits || cut);
	}).map(function (c) { return c.textContent; }).join("|")`))
	if err != nil || spill != "" {
		t.Errorf("column heads spill out of the grid's head: %q (%v)", spill, err)
	}
	long, err := chromedp.Run(ctx, chromedp.Evaluate[int](`Array.prototype.filter.call(document.querySelectorAll("#drill table.leaf-grid th.vertical"), function (c) { return c.scrollHeight > c.clientHeight + 1; }).length`))
	if err != nil || long == 0 {
		t.Errorf("no model name is cut: the fixture's long names do not test the cut (%v)", err)
	}
	// The leaderboard and the judge-health table of 17 long-named models
	// stay within a smaller screen's page too: a wide table scrolls inside
	// its box.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1024, 768), chromedp.Navigate(page+"#"), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`#health table`))); err != nil {
		t.Fatal(err)
	}
	wide, err := chromedp.Run(ctx, chromedp.Evaluate[string](`Array.prototype.filter.call(document.querySelectorAll("#overview table"), function (e) {
		var r = e.getBoundingClientRect(); return r.right > document.documentElement.clientWidth + 1 && e.closest(".table-wrap, .grid-wrap") === null;
	}).map(function (e) { return e.className; }).join("|") + " " + (document.documentElement.scrollWidth > window.innerWidth)`))
	if err != nil || wide != " false" {
		t.Errorf("the overview overflows the page's width: tables %q (%v)", wide, err)
	}
	if len(*jsErrors) > 0 {
		t.Errorf("JS errors: %v", *jsErrors)
	}
}
