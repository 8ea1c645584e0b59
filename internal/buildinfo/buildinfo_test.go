package buildinfo

import (
	"bytes"
	"encoding/json"
	"runtime/debug"
	"testing"

	"github.com/clinsql/clinsql/internal/pyjson"
)

func TestFromBuildInfo(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		bi       *debug.BuildInfo
		ok       bool
		want     Stamp
		wantText string
		wantJSON string
	}{
		{"no build info", nil, false, Stamp{Version: Devel}, "(devel), revision unknown",
			`{"version":"(devel)","modified":false}`},
		{"go test: empty main version, no vcs", &debug.BuildInfo{}, true, Stamp{Version: Devel}, "(devel), revision unknown",
			`{"version":"(devel)","modified":false}`},
		{"checkout with changes", &debug.BuildInfo{Main: debug.Module{Version: Devel},
			Settings: vcs("vcs", "git", "vcs.revision", "bee8546aa", "vcs.time", "2026-12-01T14:00:00Z", "vcs.modified", "true")}, true,
			Stamp{Version: Devel, Revision: "bee8546aa", Time: "2026-12-01T14:00:00Z", Modified: true},
			"(devel) revision bee8546aa (modified), 2026-12-01T14:00:00Z",
			`{"version":"(devel)","revision":"bee8546aa","revision_time":"2026-12-01T14:00:00Z","modified":true}`},
		{"tagged module, clean", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"},
			Settings: vcs("vcs.revision", "0123", "vcs.modified", "false")}, true,
			Stamp{Version: "v1.2.0", Revision: "0123"}, "v1.2.0 revision 0123",
			`{"version":"v1.2.0","revision":"0123","modified":false}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := FromBuildInfo(tc.bi, tc.ok)
			if got != tc.want {
				t.Fatalf("FromBuildInfo = %+v, want %+v", got, tc.want)
			}
			if s := got.String(); s != tc.wantText {
				t.Errorf("String() = %q, want %q", s, tc.wantText)
			}
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.wantJSON {
				t.Errorf("JSON %s, want %s", b, tc.wantJSON)
			}
			// The pyjson form holds the same members in the same order.
			pb, err := pyjson.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, pb); err != nil {
				t.Fatal(err)
			}
			if compact.String() != tc.wantJSON {
				t.Errorf("pyjson %s, want %s", compact.String(), tc.wantJSON)
			}
		})
	}
}

func TestWithLinked(t *testing.T) {
	recorded := Stamp{Version: Devel, Revision: "aaa", Time: "t1"}
	for _, tc := range []struct {
		name string
		in   Stamp
		rev  string
		mod  string
		want Stamp
	}{
		{"nothing linked", Stamp{Version: Devel}, "", "", Stamp{Version: Devel}},
		{"worktree build: the linked revision", Stamp{Version: Devel}, "bbb", "true", Stamp{Version: Devel, Revision: "bbb", Time: "t2", Modified: true}},
		{"clean", Stamp{Version: Devel}, "bbb", "false", Stamp{Version: Devel, Revision: "bbb", Time: "t2"}},
		{"the binary's own record wins", recorded, "bbb", "true", recorded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := withLinked(tc.in, tc.rev, "t2", tc.mod); got != tc.want {
				t.Errorf("withLinked = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestCurrent: the test binary's own stamp is well formed (go test records
// no VCS revision; a version is always there).
func TestCurrent(t *testing.T) {
	s := Current()
	if s.Version == "" {
		t.Fatalf("Current() = %+v: empty version", s)
	}
	if s != Current() {
		t.Fatal("Current() is not stable")
	}
}
