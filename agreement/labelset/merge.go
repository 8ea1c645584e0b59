package labelset

import (
	"errors"
	"fmt"
)

// Merge completes labellers' filled templates with the draw of the sample
// they were made from. Each filled label must name a leaf of the sample
// (and the same card, when both name one); its label and rationale are
// kept, the draw is the sample's. A filled label that states a draw must
// state the sample's. merged is in the sample's order; blank holds the
// sample's leaves no template labels yet (unlabelled work, not an error).
// Every problem is reported, joined.
func Merge(sample []Label, filled ...[]Label) (merged, blank []Label, err error) {
	at := map[LeafKey]int{}
	for i := range sample {
		at[sample[i].LeafKey()] = i
	}
	got := make([]*Label, len(sample))
	var errs []error
	for _, labels := range filled {
		for i := range labels {
			f := &labels[i]
			k := f.LeafKey()
			j, ok := at[k]
			switch {
			case !ok:
				errs = append(errs, fmt.Errorf("%s (card %q) is not a leaf of the sample", k, f.Card))
				continue
			case f.Card != "" && sample[j].Card != "" && f.Card != sample[j].Card:
				errs = append(errs, fmt.Errorf("%s: card %q, the sample's is %q", k, f.Card, sample[j].Card))
				continue
			case !f.Blind() && !sameDraw(f, &sample[j]):
				errs = append(errs, fmt.Errorf("%s: the draw (%s, %s) is not the sample's (%s, %s)", k, f.Chosen, f.Stratum, sample[j].Chosen, sample[j].Stratum))
				continue
			case f.Label == "" && f.Rationale == "":
				continue
			case got[j] != nil:
				errs = append(errs, fmt.Errorf("%s (card %q) is labelled twice", k, sample[j].Card))
				continue
			}
			got[j] = f
		}
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	for i, f := range got {
		l := sample[i]
		if f == nil {
			blank = append(blank, l)
			continue
		}
		l.Label, l.Rationale = f.Label, f.Rationale
		if f, msg := l.Check(false); msg != "" {
			return nil, nil, fmt.Errorf("%s: field %q: %s", l.LeafKey(), f, msg)
		}
		merged = append(merged, l)
	}
	return merged, blank, nil
}

func sameDraw(a, b *Label) bool {
	return a.Chosen == b.Chosen && a.Seed == b.Seed && a.Stratum == b.Stratum && a.Population == b.Population && a.Drawn == b.Drawn
}
