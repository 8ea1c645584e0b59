package testrace

import (
	"slices"
	"testing"
)

func TestPart(t *testing.T) {
	items := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	got := Part(t, items, 4)
	want := items
	if Enabled {
		want = []int{0, 4, 8}
	}
	if !slices.Equal(got, want) {
		t.Errorf("Part(10 items, 4) = %v, want %v (race %v)", got, want, Enabled)
	}
	if got := Part(t, items[:3], 4); !slices.Equal(got, items[:3]) {
		t.Errorf("Part of fewer items than n = %v, want all", got)
	}
}
