package reports

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/clinsql/clinsql/reliability"
)

// ehrsqlPage writes a report with the EHRSQL fixture section (beside the
// ClinSQL fixture models, or alone) and returns report.html's URL.
func ehrsqlPage(t *testing.T, alone bool) (string, *EHRSQL) {
	t.Helper()
	sec := fixtureEHRSQL()
	var r *Report
	if alone {
		r = NewEHRSQLReport(sec)
	} else {
		r = buildFixtureReport(t, writeFixtureSet(t), Options{})
		r.EHRSQL = sec
	}
	out := t.TempDir()
	if _, err := r.Write(out); err != nil {
		t.Fatal(err)
	}
	return "file://" + filepath.ToSlash(filepath.Join(out, ReportHTML)), sec
}

// TestEHRSQLInChromium: report.html's EHRSQL section shows the RS table
// with intervals, the risk-coverage and calibration charts, and each
// strategy's questions: filtered by outcome, a row opening the prediction
// beside the gold label.
func TestEHRSQLInChromium(t *testing.T) {
	for _, alone := range []bool{false, true} {
		t.Run(fmt.Sprintf("alone=%v", alone), func(t *testing.T) {
			ctx, jsErrors := browse(t)
			page, sec := ehrsqlPage(t, alone)
			str := func(js string) string { t.Helper(); return evalJS[string](t, ctx, jsErrors, js) }
			num := func(js string) int { t.Helper(); return evalJS[int](t, ctx, jsErrors, js) }
			if err := chromedp.Do(ctx, chromedp.Navigate(page+"#ehrsql"), chromedp.WaitVisible(chromedp.CSS(`#ehrsql table.ehrsql`))); err != nil {
				t.Fatalf("%v (JS errors %v)", err, *jsErrors)
			}
			if n := num(`document.querySelectorAll("#ehrsql table.ehrsql tbody tr").length`); n != len(sec.Results) {
				t.Errorf("%d rows, want %d", n, len(sec.Results))
			}
			r := sec.Results[2] // gpt-4.1 model+logprob
			row := str(`document.querySelectorAll("#ehrsql table.ehrsql tbody tr")[2].textContent`)
			iv := r.Intervals["rs10"]
			want := fmt.Sprintf("%.2f[%.2f, %.2f]", r.Scores.RS10, iv[0], iv[1])
			if !strings.Contains(row, want) || !strings.Contains(row, "chosen on train") {
				t.Errorf("row %q lacks RS(10) %q with its interval and the calibration split", row, want)
			}
			charts := str(`Array.prototype.map.call(document.querySelectorAll("#ehrsql figure.chart figcaption"), function (c) { return c.textContent; }).join("\n")`)
			for _, w := range []string{"gpt-4.1: risk and RS(10) against coverage", "qwen-coder: risk and RS(10) against coverage", "gpt-4.1: calibration on train", "RS(10) x100 per model and strategy"} {
				if !strings.Contains(charts, w) {
					t.Errorf("charts lack %q:\n%s", w, charts)
				}
			}
			if !alone != (num(`document.querySelectorAll("#board-validation").length`) == 1) {
				t.Errorf("ClinSQL leaderboard shown: %v, alone %v", !alone, alone)
			}
			// The strategy's questions.
			if err := chromedp.Do(ctx,
				chromedp.Click(chromedp.CSS(`#ehrsql a.ehrsql-link[href="#ehrsql/gpt-4.1/model+logprob"]`), chromedp.NodeVisible),
				chromedp.WaitVisible(chromedp.CSS(`#drill table.ehrsql-items`)),
			); err != nil {
				t.Fatalf("%v (JS errors %v)", err, *jsErrors)
			}
			rows := `document.querySelectorAll("#drill table.ehrsql-items tbody tr.ehrsql-item").length`
			if n := num(rows); n != len(r.Items) {
				t.Errorf("%d questions shown, want %d", n, len(r.Items))
			}
			// A penalised outcome the strategy has.
			pick, count := reliability.Wrong, r.Scores.Wrong
			for _, o := range []struct {
				o reliability.Outcome
				n int
			}{{reliability.Error, r.Scores.Error}, {reliability.AnsweredUnanswerable, r.Scores.AnsweredUnanswerable}} {
				if count == 0 {
					pick, count = o.o, o.n
				}
			}
			if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`(function () {
				var s = document.querySelector('#drill select[data-filter="outcome"]');
				s.value = "`+string(pick)+`";
				s.dispatchEvent(new Event("change"));
			})()`)); err != nil {
				t.Fatal(err)
			}
			if n := num(rows); n != count || n == 0 {
				t.Errorf("outcome %s: %d rows, want %d", pick, n, count)
			}
			if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#drill tr.ehrsql-item`), chromedp.NodeVisible),
				chromedp.WaitVisible(chromedp.CSS(`#drill tr.ehrsql-detail`))); err != nil {
				t.Fatal(err)
			}
			id := str(`document.querySelector("#drill tr.ehrsql-item").getAttribute("data-id")`)
			var it EHRSQLItem
			for _, x := range r.Items {
				if x.ID == id {
					it = x
				}
			}
			if it.Outcome != pick {
				t.Fatalf("row %s is %s, want %s", id, it.Outcome, pick)
			}
			pred, gold := str(`document.querySelector("#drill tr.ehrsql-detail .side-model pre").textContent`), str(`document.querySelector("#drill tr.ehrsql-detail .side-gold pre").textContent`)
			if pred != it.Prediction || gold != it.Gold {
				t.Errorf("detail: prediction %q gold %q, want %q %q", pred, gold, it.Prediction, it.Gold)
			}
			// A permalink opens the page again; abstentions say why.
			if err := chromedp.Do(ctx, chromedp.Navigate(page+"#ehrsql/"+url.PathEscape("gpt-4.1")+"/"+url.PathEscape("model+logprob")), chromedp.Reload(),
				chromedp.WaitVisible(chromedp.CSS(`#drill table.ehrsql-items`))); err != nil {
				t.Fatal(err)
			}
			if got := str(`document.querySelector("#drill table.ehrsql-items").textContent`); !strings.Contains(got, "abstained (logprob): mean token log-probability") {
				t.Errorf("no abstention reason shown")
			}
			if len(*jsErrors) > 0 {
				t.Errorf("JS errors: %v", *jsErrors)
			}
		})
	}
}
