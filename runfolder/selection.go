package runfolder

import (
	"fmt"

	"github.com/clinsql/clinsql/datasets"
)

// RecordedSubset is the subset a run was made on, as its manifest records
// it: Keys are its tasks, Label says how they were chosen.
type RecordedSubset struct {
	Keys  []datasets.Key
	Label string
}

// SubsetTasks returns the subset m's run (in dir) was made on, nil for a
// whole run or no manifest. The keys are checked: a manifest from elsewhere naming a
// task that is no key is refused by name.
func (m *Manifest) SubsetTasks(dir string) (*RecordedSubset, error) {
	if m == nil || !m.Subset || len(m.Tasks) == 0 {
		return nil, nil
	}
	keys := make([]datasets.Key, 0, len(m.Tasks))
	for i, s := range m.Tasks {
		k, err := datasets.ParseKey(s)
		if err != nil {
			return nil, fmt.Errorf("%s/%s: tasks[%d]: %v", dir, ManifestFile, i, err)
		}
		keys = append(keys, k)
	}
	label := m.Selection.String()
	if label == "" {
		label = "several subset calls"
	}
	return &RecordedSubset{Keys: keys, Label: label}, nil
}

// RunSubset reads the subset the run in dir was generated on (nil, "" for
// a whole run): its tasks' keys and a label for outputs ("the run's
// subset: --limit 6").
func RunSubset(dir string) ([]datasets.Key, string, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, "", err
	}
	sub, err := m.SubsetTasks(dir)
	if err != nil || sub == nil {
		return nil, "", err
	}
	return sub.Keys, "the run's subset: " + sub.Label, nil
}
