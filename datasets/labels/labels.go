package labels

import (
	"bytes"
	"embed"

	"github.com/clinsql/clinsql/agreement/labelset"
)

// The files, as named in the repository (datasets/labels/...).
const (
	ValidationFile       = "validation.jsonl"
	ValidationSecondFile = "validation-second.jsonl"
)

//go:embed validation.jsonl validation-second.jsonl
var files embed.FS

// Validation returns the adjudicated label set of the validation split,
// in the draw's card order.
func Validation() ([]labelset.Label, error) { return read(ValidationFile, false) }

// ValidationSecond returns the second labeller's labels (blind: no draw
// fields), in card order.
func ValidationSecond() ([]labelset.Label, error) { return read(ValidationSecondFile, true) }

func read(name string, template bool) ([]labelset.Label, error) {
	b, err := files.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return labelset.Read(bytes.NewReader(b), "datasets/labels/"+name, labelset.ReadOptions{Template: template})
}
