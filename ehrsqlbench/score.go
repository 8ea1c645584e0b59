package ehrsqlbench

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/clinsql/clinsql/datasets/ehrsql"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/sqlite"
	"github.com/clinsql/clinsql/internal/buildinfo"
	"github.com/clinsql/clinsql/reliability"
	"github.com/clinsql/clinsql/runfolder"
)

// MaxDatabaseBytes bounds the EHRSQL database file hashed for the record
// (the released one is 35 MB).
const MaxDatabaseBytes = 16 << 30

// DatabaseFile is the database's path under an EHRSQL data folder.
var DatabaseFile = filepath.Join("mimic_iv", "mimic_iv.sqlite")

// ScoreOptions say what clinsql ehrsql score scores: a prediction file
// (or a baseline) against a split of an EHRSQL 2024 data folder.
type ScoreOptions struct {
	DataDir, Split string
	// Predictions is a prediction file, or a folder holding one
	// prediction.json; Baseline is "gold" or "abstain-all" instead.
	Predictions, Baseline string
	// GoldFromAnswers takes gold results from answer.json (scoring_v2.py)
	// instead of executing label.json (scoring.py).
	GoldFromAnswers bool
	Abstention      reliability.Abstention
	Timeout         time.Duration
	MaxRows         int
	Workers         int
	// Items, if set, is told how many items will be scored, before the
	// first; Progress, if set, is called once per item scored.
	Items    func(n int)
	Progress func(reliability.ItemResult)
}

// ScoreOutput is what a scoring writes: the settings, the scores (rs0,
// rs5, rs10, rsN x 100 and the outcome counts) and every item.
type ScoreOutput struct {
	Split       string  `json:"split"`
	Predictions string  `json:"predictions"` // file, or "baseline:gold" / "baseline:abstain-all"
	GoldSource  string  `json:"gold_source"` // "labels" (official) or "answers"
	Abstention  string  `json:"abstention_marker"`
	Lenient     bool    `json:"lenient_abstention"`
	TimeoutSec  float64 `json:"timeout_seconds"`
	MaxRows     int     `json:"max_rows"`
	SQLite      string  `json:"sqlite_version"`
	// Subset says the prediction file answers part of the split (a run
	// made with --limit): the scores are over those items only, and not
	// comparable with a whole split's. "" for the whole split.
	Subset string `json:"subset,omitempty"`
	// What the scores are traced to: the split's files, the predictions'
	// bytes, the database file, and the build that scored them.
	SplitSHA256       string          `json:"split_sha256"`
	PredictionsSHA256 string          `json:"predictions_sha256,omitempty"`
	DatabaseSHA256    string          `json:"database_sha256"`
	Producer          buildinfo.Stamp `json:"producer"`
	*reliability.Report
}

// ScoreFile scores predictions against a split. A prediction file that
// answers only some of the split's items (none it lacks, none extra) is
// scored over those, and the output says "subset"; ids the split does not
// have are refused by name.
func ScoreFile(ctx context.Context, o ScoreOptions) (*ScoreOutput, error) {
	dir, err := ehrsql.SplitDir(o.DataDir, o.Split)
	if err != nil {
		return nil, err
	}
	s, err := ehrsql.LoadSplit(dir)
	if err != nil {
		return nil, err
	}
	if o.GoldFromAnswers && s.Answers == nil {
		return nil, fmt.Errorf("%s: no answer.json for --gold-source answers", s.Dir)
	}
	out := &ScoreOutput{Split: s.Name, GoldSource: "labels", Abstention: o.Abstention.Marker, Lenient: o.Abstention.Lenient,
		TimeoutSec: o.Timeout.Seconds(), MaxRows: o.MaxRows, SQLite: sqlite.LibraryVersion(), SplitSHA256: s.SHA256(), Producer: buildinfo.Current()}
	if o.GoldFromAnswers {
		out.GoldSource = "answers"
	}
	ids, preds, err := out.predictions(s, o)
	if err != nil {
		return nil, err
	}
	items := make([]reliability.Item, len(ids))
	for i, id := range ids {
		items[i] = reliability.Item{ID: id, Gold: s.Labels.Values[id], Pred: preds[id]}
		if s.Answers != nil {
			items[i].GoldAnswer = s.Answers.Values[id]
		}
	}
	dbPath := filepath.Join(o.DataDir, DatabaseFile)
	if out.DatabaseSHA256, err = runfolder.FileSHA256(dbPath, MaxDatabaseBytes); err != nil {
		return nil, err
	}
	db, err := sqlite.Open(dbPath, sqlite.Options{Limits: executor.Limits{Timeout: o.Timeout, MaxRows: o.MaxRows}, MaxIdle: o.Workers})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if o.Items != nil {
		o.Items(len(items))
	}
	out.Report, err = reliability.Score(ctx, db, items, reliability.Options{Progress: o.Progress, Workers: o.Workers,
		Abstention: o.Abstention, GoldFromAnswers: o.GoldFromAnswers})
	if err != nil {
		return nil, fmt.Errorf("scoring %s: %w", s.Dir, err)
	}
	return out, nil
}

// predictions reads the predictions (or makes the baseline's) and returns
// the ids scored, in the split's order.
func (out *ScoreOutput) predictions(s *ehrsql.Split, o ScoreOptions) ([]string, map[string]string, error) {
	ids := s.Data.IDs()
	switch o.Baseline {
	case "gold":
		out.Predictions = "baseline:gold"
		return ids, s.Labels.Values, nil
	case "abstain-all":
		out.Predictions = "baseline:abstain-all"
		preds := map[string]string{}
		for _, id := range ids {
			preds[id] = o.Abstention.Marker
		}
		return ids, preds, nil
	}
	path, err := PredictionPath(o.Predictions)
	if err != nil {
		return nil, nil, err
	}
	out.Predictions = path
	opt := ehrsql.PredictionOptions{}
	if o.Abstention.Lenient {
		opt.JSONNullAs = o.Abstention.Marker
	}
	m, err := ehrsql.LoadPredictions(path, opt)
	if err != nil {
		return nil, nil, err
	}
	out.PredictionsSHA256 = m.SHA256
	err = ehrsql.CheckIDs(s.Labels.Path, s.Labels.IDs, m.Path, m.IDs)
	var ide *ehrsql.IDError
	switch {
	case err == nil:
		return ids, m.Values, nil
	case !errors.As(err, &ide) || len(ide.Extra) > 0 || len(m.IDs) == 0:
		return nil, nil, err
	}
	// A subset: the split's ids the file answers, in the split's order.
	var kept []string
	for _, id := range ids {
		if _, ok := m.Values[id]; ok {
			kept = append(kept, id)
		}
	}
	out.Subset = fmt.Sprintf("%d of the %d questions of split %s (the prediction file answers only these)", len(kept), len(ids), s.Name)
	return kept, m.Values, nil
}

// PredictionPath is the prediction file a path names: the file itself, or
// the prediction.json in a strategy's folder of a run
// (OUT/<model>/<split>/<strategy>/).
func PredictionPath(path string) (string, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", predictionsNear(path, err)
	}
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		return path, nil
	}
	p := filepath.Join(path, predictionFile)
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	matches, _ := filepath.Glob(filepath.Join(path, "*", "*", predictionFile))
	matches2, _ := filepath.Glob(filepath.Join(path, "*", predictionFile))
	matches = append(matches, matches2...)
	if len(matches) == 0 {
		return "", fmt.Errorf("%s holds no %s: give a prediction file, or a strategy folder of an EHRSQL run (OUT/<model>/<split>/<strategy>)", path, predictionFile)
	}
	return "", fmt.Errorf("%s holds %d prediction files; give one: %s", path, len(matches), clipList(matches, 6))
}

// predictionsNear is the error for a prediction path that does not exist:
// the prediction files below its nearest existing folder (up to three
// levels up), since a run files a split under its data folder's name
// (valid for --split validation), which a path typed from the command line
// misses.
func predictionsNear(path string, err error) error {
	dir := filepath.Dir(path)
	for range 3 {
		if st, e := os.Stat(dir); e == nil && st.IsDir() {
			var found []string
			for _, pattern := range []string{"*", "*/*", "*/*/*", "*/*/*/*"} {
				m, _ := filepath.Glob(filepath.Join(dir, pattern, predictionFile))
				found = append(found, m...)
			}
			if len(found) > 0 {
				return fmt.Errorf("%w; prediction files under %s: %s (a run files each split under its data folder's name: valid for validation)", err, dir, clipList(found, 6))
			}
			break
		}
		dir = filepath.Dir(dir)
	}
	return err
}

func clipList(xs []string, n int) string {
	if len(xs) <= n {
		return fmt.Sprint(xs)
	}
	return fmt.Sprintf("%v ... (%d more)", xs[:n], len(xs)-n)
}

// predictionFile is a strategy's official submission in a run folder.
const predictionFile = "prediction.json"
