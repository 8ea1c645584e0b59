package testrace

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestSecondPassNamesEveryTest: every test that runs part of its data
// under the race detector, or is skipped there, must run whole in make
// test's second pass. It finds such tests by what they call (Part,
// SecondPassOnly or Enabled, directly or through a function of their
// package) and checks that a -run line of the Makefile's test target
// names each one with its package. A test added without a line in the
// Makefile would otherwise run only in part, and nobody would notice.
func TestSecondPassNamesEveryTest(t *testing.T) {
	root := moduleRoot(t)
	passes := secondPasses(t, filepath.Join(root, "Makefile"))
	if len(passes) == 0 {
		t.Fatal("the Makefile's test target has no -run line")
	}
	var found []string
	dirs := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, "_test.go") && !strings.Contains(path, "/testdata/") && !strings.Contains(path, "/.") {
			dirs[filepath.Dir(path)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	self, _ := os.Getwd()
	for dir := range dirs {
		if dir == self {
			continue
		}
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			t.Fatal(err)
		}
		pkg := "./" + filepath.ToSlash(rel)
		for _, name := range partialTests(t, dir) {
			found = append(found, pkg+"."+name)
			if !passes.names(pkg, name) {
				t.Errorf("%s.%s runs only part of its data (or nothing) under the race detector, and no -run line of the Makefile's test target runs it in %s", pkg, name, pkg)
			}
		}
	}
	if len(found) == 0 {
		t.Error("found no test that uses package testrace: the search is broken")
	}
	sort.Strings(found)
	t.Logf("%d tests run whole in the second pass: %s", len(found), strings.Join(found, " "))
}

type pass struct {
	run  *regexp.Regexp
	pkgs []string
}

type passList []pass

func (ps passList) names(pkg, test string) bool {
	for _, p := range ps {
		for _, q := range p.pkgs {
			if q == pkg && p.run.MatchString(test) {
				return true
			}
		}
	}
	return false
}

var (
	assignRE = regexp.MustCompile(`^([A-Z_]+)\s*:?=\s*(.*)$`)
	varRE    = regexp.MustCompile(`\$\(([A-Z_]+)\)`)
	runRE    = regexp.MustCompile(`-run\s+'([^']*)'`)
)

// secondPasses reads the recipe of the Makefile's test target: each line
// with -run, its variables expanded, gives a pattern and its packages.
func secondPasses(t *testing.T, makefile string) passList {
	f, err := os.Open(makefile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	vars := map[string]string{}
	var ps passList
	inTest := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if m := assignRE.FindStringSubmatch(line); m != nil {
			vars[m[1]] = m[2]
		}
		switch {
		case strings.HasPrefix(line, "test:"):
			inTest = true
			continue
		case !strings.HasPrefix(line, "\t"):
			inTest = false
		}
		if !inTest || !strings.Contains(line, "-run") {
			continue
		}
		line = varRE.ReplaceAllStringFunc(line, func(v string) string { return vars[varRE.FindStringSubmatch(v)[1]] })
		line = strings.ReplaceAll(line, "$$", "$")
		m := runRE.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("%s: cannot read the -run pattern of %q", makefile, line)
		}
		re, err := regexp.Compile(m[1])
		if err != nil {
			t.Fatalf("%s: -run %q: %v", makefile, m[1], err)
		}
		p := pass{run: re}
		for _, f := range strings.Fields(line) {
			if strings.HasPrefix(f, "./") {
				p.pkgs = append(p.pkgs, f)
			}
		}
		ps = append(ps, p)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return ps
}

// partialTests returns the tests of the package in dir that use package
// testrace, directly or through functions of their package.
func partialTests(t *testing.T, dir string) []string {
	fset := token.NewFileSet()
	paths, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, path := range paths {
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	calls := map[string][]string{} // function -> package functions it calls
	marked := map[string]bool{}
	{
		for _, f := range files {
			alias := ""
			for _, imp := range f.Imports {
				if strings.Trim(imp.Path.Value, `"`) == "github.com/clinsql/clinsql/internal/testrace" {
					alias = "testrace"
					if imp.Name != nil {
						alias = imp.Name.Name
					}
				}
			}
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Body == nil || fn.Recv != nil {
					continue
				}
				name := fn.Name.Name
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					switch n := n.(type) {
					case *ast.SelectorExpr:
						if id, ok := n.X.(*ast.Ident); ok && alias != "" && id.Name == alias {
							marked[name] = true
						}
					case *ast.CallExpr:
						if id, ok := n.Fun.(*ast.Ident); ok {
							calls[name] = append(calls[name], id.Name)
						} else if ix, ok := n.Fun.(*ast.IndexExpr); ok {
							if id, ok := ix.X.(*ast.Ident); ok {
								calls[name] = append(calls[name], id.Name)
							}
						}
					}
					return true
				})
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for fn, callees := range calls {
			for _, c := range callees {
				if marked[c] && !marked[fn] {
					marked[fn], changed = true, true
				}
			}
		}
	}
	var tests []string
	for fn := range marked {
		if strings.HasPrefix(fn, "Test") && fn != "TestMain" {
			tests = append(tests, fn)
		}
	}
	sort.Strings(tests)
	return tests
}

func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = parent
	}
}
