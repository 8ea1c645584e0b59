package reports

import (
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestScreenshots saves a PNG of each view of the fixture report into
// $CLINSQL_SCREENSHOTS, for a person to look at; without it the test
// skips. They are not golden files: fonts and Chromium versions change
// pixels. The views: the leaderboard with its charts, a model's tasks, a
// task page (released format), a task page with the transcript of a run
// clinsql generated and judged (a diff open, a judge call open), the
// search, a task across all models (3 and 17 models), the EHRSQL section
// and a strategy's questions (one opened).
//
//	CLINSQL_SCREENSHOTS=/tmp/shots go test ./reports -run TestScreenshots
func TestScreenshots(t *testing.T) {
	dir := os.Getenv("CLINSQL_SCREENSHOTS")
	if dir == "" {
		t.Skip("set CLINSQL_SCREENSHOTS to a folder to save the report's views as PNG")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, jsErrors := browse(t)
	page := judgedFixturePage(t)
	many := fixturePage(t, manyModels(t, 17))
	ehr, _ := ehrsqlPage(t, false)
	lab := url.PathEscape("validation/Laboratory_Results_Analysis/medium_level_queries/001")
	for _, v := range []struct {
		name, page, hash, wait string
		then                   []chromedp.Action[chromedp.Void]
		// crop, when set, shoots that element alone, at full size.
		crop string
	}{
		{"leaderboard", page, "", "#board-validation", nil, ""},
		{"model", page, "#model/alpha-sql", "#drill table.tasks", nil, ""},
		{"task", page, "#task/alpha-sql/" + lab, "#drill .side-gold", nil, ""},
		{"task-transcript", page, "#task/" + judgedModel + "/" + lab, "#drill section.transcript", []chromedp.Action[chromedp.Void]{
			chromedp.Click(chromedp.CSS(`#drill .attempt:nth-of-type(2) button.diff-button`), chromedp.NodeVisible),
			chromedp.Click(chromedp.CSS(`#drill .attempt:nth-of-type(3) details.reply summary`), chromedp.NodeVisible),
			chromedp.Click(chromedp.CSS(`#drill .tree-results a.call-link`), chromedp.NodeVisible),
			chromedp.Click(chromedp.CSS(`#drill details.call#call-1 details.prompt summary`), chromedp.NodeVisible),
		}, ""},
		{"task-transcript-attempts", page, "#task/" + judgedModel + "/" + lab, "#drill section.transcript", []chromedp.Action[chromedp.Void]{
			chromedp.Click(chromedp.CSS(`#drill .attempt:nth-of-type(2) button.diff-button`), chromedp.NodeVisible),
			chromedp.Click(chromedp.CSS(`#drill .attempt:nth-of-type(3) details.reply summary`), chromedp.NodeVisible),
		}, "#drill section.transcript"},
		{"task-judge-call", page, "#task/" + judgedModel + "/" + lab, "#drill section.judge-calls", []chromedp.Action[chromedp.Void]{
			chromedp.Click(chromedp.CSS(`#drill .tree-results a.call-link`), chromedp.NodeVisible),
			chromedp.Click(chromedp.CSS(`#drill details.call#call-1 details.prompt summary`), chromedp.NodeVisible),
		}, "#drill section.judge-calls"},
		{"search", page, "#search/" + url.PathEscape("median"), "#drill table.search-hits", nil, ""},
		{"task-all-models", page, "#all/" + lab, "#drill table.leaf-grid", nil, ""},
		{"ehrsql", ehr, "#ehrsql", "#ehrsql table.ehrsql", nil, ""},
		{"ehrsql-questions", ehr, "#ehrsql/gpt-4.1/" + url.PathEscape("model+logprob"), "#drill table.ehrsql-items", []chromedp.Action[chromedp.Void]{
			chromedp.Click(chromedp.CSS(`#drill tr.ehrsql-item:nth-of-type(3)`), chromedp.NodeVisible),
		}, ""},
		{"task-all-17-models", many, "#all/" + lab, "#drill table.leaf-grid", nil, ""},
	} {
		steps := []chromedp.Action[chromedp.Void]{
			chromedp.EmulateViewport(1280, 900),
			chromedp.Navigate(v.page + v.hash),
			chromedp.Reload(),
			chromedp.WaitVisible(chromedp.CSS(v.wait)),
		}
		if err := chromedp.Do(ctx, append(steps, v.then...)...); err != nil {
			t.Fatalf("%s: %v (JS errors %v)", v.name, err, *jsErrors)
		}
		shot := chromedp.FullScreenshot(100)
		if v.crop != "" {
			shot = chromedp.Screenshot(chromedp.CSS(v.crop), chromedp.NodeVisible)
		}
		png, err := chromedp.Run(ctx, shot)
		if err != nil {
			t.Fatalf("%s: screenshot: %v", v.name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, v.name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
