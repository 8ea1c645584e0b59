package buildinfo

import (
	"runtime/debug"
	"strings"
	"sync"

	"github.com/clinsql/clinsql/internal/pyjson"
)

// Devel is the version of a build whose module version is unknown: built
// from a checkout rather than installed as a tagged module.
const Devel = "(devel)"

// Stamp identifies the build that produced an output file.
type Stamp struct {
	// Version is the module version ("v1.2.3"), or Devel.
	Version string `json:"version"`
	// Revision is the VCS revision (a git commit), "" when the build
	// recorded none (go test, go run, a build outside a checkout).
	Revision string `json:"revision,omitempty"`
	// Time is the revision's commit time (RFC 3339), "" when unknown.
	Time string `json:"revision_time,omitempty"`
	// Modified: the checkout had uncommitted changes, so Revision alone
	// does not reproduce the build.
	Modified bool `json:"modified"`
}

// Set by the linker (-ldflags -X, see the Makefile's build target): Go
// records no VCS information when building in a git worktree (its .git is
// a file) or with -buildvcs=false, so `make build` passes what git says.
// Used only when the binary itself records no revision.
var (
	linkedRevision string
	linkedTime     string
	linkedModified string // "true" or "false"
)

var current = sync.OnceValue(func() Stamp {
	return withLinked(FromBuildInfo(debug.ReadBuildInfo()), linkedRevision, linkedTime, linkedModified)
})

// withLinked fills a stamp without a revision from the linker-set values.
func withLinked(s Stamp, revision, time, modified string) Stamp {
	if s.Revision != "" || revision == "" {
		return s
	}
	s.Revision, s.Time, s.Modified = revision, time, modified == "true"
	return s
}

// Current is the running binary's stamp.
func Current() Stamp { return current() }

// FromBuildInfo reads a stamp from build information; ok false (no build
// information) gives Devel and no revision.
func FromBuildInfo(bi *debug.BuildInfo, ok bool) Stamp {
	s := Stamp{Version: Devel}
	if !ok || bi == nil {
		return s
	}
	if v := bi.Main.Version; v != "" {
		s.Version = v
	}
	for _, kv := range bi.Settings {
		switch kv.Key {
		case "vcs.revision":
			s.Revision = kv.Value
		case "vcs.time":
			s.Time = kv.Value
		case "vcs.modified":
			s.Modified = kv.Value == "true"
		}
	}
	return s
}

// String is one line for headers and `clinsql version`:
// "(devel) revision 0123abc... (modified), 2026-12-01T14:59:13Z", or
// "(devel), revision unknown".
func (s Stamp) String() string {
	var b strings.Builder
	b.WriteString(s.Version)
	if s.Revision == "" {
		b.WriteString(", revision unknown")
		return b.String()
	}
	b.WriteString(" revision ")
	b.WriteString(s.Revision)
	if s.Modified {
		b.WriteString(" (modified)")
	}
	if s.Time != "" {
		b.WriteString(", ")
		b.WriteString(s.Time)
	}
	return b.String()
}

// PyJSON is the stamp as an ordered object for the files clinsql writes in
// the reference scorer's JSON style (package pyjson): the members of its
// encoding/json form, in the same order.
func (s Stamp) PyJSON() any {
	o := pyjson.Object{{Key: "version", Value: s.Version}}
	if s.Revision != "" {
		o = append(o, pyjson.Member{Key: "revision", Value: s.Revision})
	}
	if s.Time != "" {
		o = append(o, pyjson.Member{Key: "revision_time", Value: s.Time})
	}
	return append(o, pyjson.Member{Key: "modified", Value: s.Modified})
}
