// Package buildinfo says which clinsql produced an output: the module
// version and the VCS revision the binary was built from.
package buildinfo

import "runtime/debug"

// Stamp identifies a clinsql build.
type Stamp struct {
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"`
	Modified bool   `json:"modified,omitempty"`
}

// Current is this binary's stamp; Version is "(devel)" for a build from a
// checkout.
func Current() Stamp {
	s := Stamp{Version: "(devel)"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return s
	}
	if v := bi.Main.Version; v != "" {
		s.Version = v
	}
	for _, kv := range bi.Settings {
		switch kv.Key {
		case "vcs.revision":
			s.Revision = kv.Value
		case "vcs.modified":
			s.Modified = kv.Value == "true"
		}
	}
	return s
}
