package conformance

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
)

var (
	unsupportedMsg = regexp.MustCompile(`unsupported in the embedded engine: (.*?)(?: at \[\d+:\d+\])?$`)
	paramName      = regexp.MustCompile(` \(@\w+\)`)
	quotedValue    = regexp.MustCompile(`'[^']*'`)
)

// constructOf shortens an unsupported message to the construct it names:
// "function JSON_QUERY is not supported" is JSON_QUERY, and the literal of
// "INTERVAL '6.789' SECOND" is elided.
func constructOf(msg string) string {
	msg = paramName.ReplaceAllString(msg, "")
	msg = quotedValue.ReplaceAllString(msg, "'…'")
	msg = strings.TrimSuffix(strings.TrimSuffix(msg, " is not supported"), " are not supported")
	return strings.TrimPrefix(msg, "function ")
}

// TestReadmeListsUnsupported: every construct the conformance run reports
// unsupported (cases.golden) is named in the README, in backticks, so the
// README's list of what the embedded engine cannot run stays complete.
func TestReadmeListsUnsupported(t *testing.T) {
	cases, err := os.ReadFile("testdata/cases.golden")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	missing := map[string]bool{}
	for _, line := range strings.Split(string(cases), "\n") {
		if !strings.HasPrefix(line, string(Unsupported)+" ") {
			continue
		}
		m := unsupportedMsg.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("cases.golden: unsupported case without the engine's message: %s", line)
			continue
		}
		if c := constructOf(m[1]); !strings.Contains(string(readme), "`"+c+"`") {
			missing[c] = true
		}
	}
	if len(missing) > 0 {
		var list []string
		for c := range missing {
			list = append(list, "`"+c+"`")
		}
		sort.Strings(list)
		t.Errorf("README.md does not list %d unsupported constructs: %s", len(list), strings.Join(list, ", "))
	}
}
