//go:build race

package judge

// raceEnabled: the race detector makes the replays of all 16 released
// models about eight times slower (400 s for TestReplayGrouping); under it
// they replay a subset (replayedModels), and `make test` replays all of
// them in a second pass without it.
const raceEnabled = true
