package reports

import (
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestScreenshots saves a PNG of each view of the fixture report (the
// leaderboard with its charts, a model's tasks, a task page) into
// $CLINSQL_SCREENSHOTS, for a person to look at; without it the test skips.
// They are not golden files: fonts and Chromium versions change pixels.
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
	page := fixturePage(t, writeFixtureSet(t))
	for _, v := range []struct{ name, hash, wait string }{
		{"leaderboard", "", "#board-validation"},
		{"model", "#model/alpha-sql", "#drill table.tasks"},
		{"task", "#task/alpha-sql/" + url.PathEscape("validation/Laboratory_Results_Analysis/medium_level_queries/001"), "#drill .side-gold"},
		{"task-all-models", "#all/" + url.PathEscape("validation/Laboratory_Results_Analysis/medium_level_queries/001"), "#drill table.leaf-grid"},
	} {
		if err := chromedp.Do(ctx,
			chromedp.EmulateViewport(1280, 900),
			chromedp.Navigate(page+v.hash),
			chromedp.Reload(),
			chromedp.WaitVisible(chromedp.CSS(v.wait)),
		); err != nil {
			t.Fatalf("%s: %v (JS errors %v)", v.name, err, *jsErrors)
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("%s: screenshot: %v", v.name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, v.name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
