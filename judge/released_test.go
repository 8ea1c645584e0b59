package judge

import (
	"testing"

	"github.com/clinsql/clinsql/internal/testrace"
	"github.com/clinsql/clinsql/judge/internal/released"
)

// replayedModels is the released models a replay test runs: all of them,
// or under the race detector three (the replays are single-threaded
// scoring code; the full set runs without the detector in `make test`).
func replayedModels(t testing.TB, models []*released.Model) []*released.Model {
	if !testrace.Enabled {
		return models
	}
	t.Logf("race detector on: replaying 3 of the %d models (make test replays all of them without it)", len(models))
	return models[:3]
}
