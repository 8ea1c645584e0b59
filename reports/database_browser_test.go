package reports

import (
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestSampleBadgeInChromium: in headless Chromium every view shows the
// badge of the run executed on a sample database (alpha-sql's fixture run:
// duckdb, 100 patients) and its caveat, and none on beta-coder's run, which
// has no manifest (a released BigQuery run).
func TestSampleBadgeInChromium(t *testing.T) {
	ctx, jsErrors := browse(t)
	page := fixturePage(t, writeFixtureSet(t))
	const badge = "sample DB: duckdb, 100 patients"
	const caveat = "alpha-sql ran on a sample database (duckdb, 100 patients, built from mimic-iv-demo): its scores are not comparable with runs on BigQuery"
	key := url.PathEscape("validation/Laboratory_Results_Analysis/medium_level_queries/001")
	// visible gives the text of the visible elements a selector matches.
	visible := func(sel string) string {
		return `Array.prototype.filter.call(document.querySelectorAll(` + "`" + sel + "`" + `), function (e) { var r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; })` +
			`.map(function (e) { return e.textContent + "|" + (e.getAttribute("title") || ""); }).join("\n")`
	}
	for _, v := range []struct {
		name, hash, wait string
		badges, caveats  string // selectors
		wantBadges       int
	}{
		{"leaderboard", "", "#board-validation", "#board-validation span.badge.sample", "#overview p.caveat", 1},
		{"model", "#model/alpha-sql", "#drill table.tasks", "#drill h2.model-title span.badge.sample", "#drill p.caveat", 1},
		{"task", "#task/alpha-sql/" + key, "#drill .side-gold", "#drill h2.task-title span.badge.sample", "#drill p.caveat", 1},
		{"task across all models", "#all/" + key, "#drill table.leaf-grid", "#drill table.all-scores span.badge.sample", "", 1},
		{"beta-coder's model page", "#model/beta-coder", "#drill table.tasks", "#drill span.badge.sample", "#drill p.caveat", 0},
	} {
		if err := chromedp.Do(ctx,
			chromedp.Navigate(page+v.hash),
			chromedp.Reload(),
			chromedp.WaitVisible(chromedp.CSS(v.wait)),
		); err != nil {
			t.Fatalf("%s: %v (JS errors %v)", v.name, err, *jsErrors)
		}
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](visible(v.badges)))
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		lines := strings.FieldsFunc(got, func(r rune) bool { return r == '\n' })
		if len(lines) != v.wantBadges {
			t.Errorf("%s: %d visible badges (%q), want %d", v.name, len(lines), got, v.wantBadges)
		}
		for _, l := range lines {
			if !strings.HasPrefix(l, badge+"|"+caveat) {
				t.Errorf("%s: badge %q, want %q with the caveat on hover", v.name, l, badge)
			}
		}
		if v.caveats == "" {
			continue
		}
		cav, err := chromedp.Run(ctx, chromedp.Evaluate[string](visible(v.caveats)))
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		if got := strings.Contains(cav, caveat); got != (v.wantBadges > 0) {
			t.Errorf("%s: caveat shown %v (%q)", v.name, got, cav)
		}
	}
	if len(*jsErrors) > 0 {
		t.Errorf("JS errors: %v", *jsErrors)
	}
}
