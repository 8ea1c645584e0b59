package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestLinksNoClient guards what the reports and the format packages they
// read link (issue 28): no LLM client (go-openai, or the packages llm,
// refine and judge that use it) and no cgo package outside the standard
// library (the embedded DuckDB engine), so that reading a run folder or a
// judge output folder never needs them. It asks the go tool, as a build
// with cgo on would resolve the imports; the standard library's own cgo
// packages (net, os/user, runtime/cgo) have pure-Go builds and are allowed.
func TestLinksNoClient(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("the go tool is not on PATH (%v): cannot list the packages' dependencies", err)
	}
	const mod = "github.com/clinsql/clinsql/"
	// The client packages themselves, and every package of go-openai.
	linksClient := func(dep string) bool {
		switch dep {
		case mod + "llm", mod + "refine", mod + "judge":
			return true
		}
		const openai = "github.com/sashabaranov/go-openai"
		return dep == openai || strings.HasPrefix(dep, openai+"/")
	}
	cases := []struct {
		pkg string
		// stdOnly: the package imports nothing outside the standard library.
		stdOnly bool
	}{
		{pkg: mod + "reports"},
		{pkg: mod + "refine/refinefmt"},
		{pkg: mod + "judge/judgefmt"},
		{pkg: mod + "llm/llmfmt", stdOnly: true},
	}
	args := []string{"list", "-deps", "-json=ImportPath,Standard,CgoFiles,Deps"}
	for _, c := range cases {
		args = append(args, c.pkg)
	}
	cmd := exec.Command(goTool, args...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	type pkgInfo struct {
		ImportPath string
		Standard   bool
		CgoFiles   []string
		Deps       []string
	}
	pkgs := map[string]pkgInfo{}
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p pkgInfo
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs[p.ImportPath] = p
	}
	for _, c := range cases {
		t.Run(strings.TrimPrefix(c.pkg, mod), func(t *testing.T) {
			p, ok := pkgs[c.pkg]
			if !ok {
				t.Fatalf("go list did not list %s", c.pkg)
			}
			for _, d := range p.Deps {
				dep := pkgs[d]
				if linksClient(d) {
					t.Errorf("%s links %s", c.pkg, d)
				}
				if !dep.Standard && len(dep.CgoFiles) > 0 {
					t.Errorf("%s links cgo package %s", c.pkg, d)
				}
				if c.stdOnly && !dep.Standard {
					t.Errorf("%s imports %s, outside the standard library", c.pkg, d)
				}
			}
		})
	}
}
