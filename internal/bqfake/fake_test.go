package bqfake

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, url, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	json.Unmarshal(b, &m)
	return resp.StatusCode, m
}

const okJob = `{"jobReference":{"projectId":"p-project","jobId":"j1","location":"US"},
 "configuration":{"query":{"query":"SELECT 1","useLegacySql":false,"maximumBytesBilled":"1000000000"},"labels":{"app":"clinsql"}}}`

// The fake refuses what the real API refuses, and records why; a
// well-formed request passes cleanly.
func TestFakeRejectsInvalidRequests(t *testing.T) {
	cases := []struct {
		name     string
		path     string
		body     string
		status   int
		violates string
	}{
		{"valid", "projects/p-project/jobs", okJob, 200, ""},
		{"unknown field", "projects/p-project/jobs", strings.Replace(okJob, `"useLegacySql"`, `"useLegacySQL"`, 1), 400, "unknown field"},
		{"int64 not a number", "projects/p-project/jobs", strings.Replace(okJob, `"1000000000"`, `"50GiB"`, 1), 400, "is not an int64"},
		{"boolean as string", "projects/p-project/jobs", strings.Replace(okJob, `"useLegacySql":false`, `"useLegacySql":"false"`, 1), 400, "want a boolean"},
		{"legacy SQL by default", "projects/p-project/jobs", strings.Replace(okJob, `"useLegacySql":false,`, ``, 1), 400, "useLegacySql"},
		{"bad label", "projects/p-project/jobs", strings.Replace(okJob, `"app"`, `"App Name"`, 1), 400, "invalid key"},
		{"project mismatch", "projects/other-project/jobs", okJob, 400, "differs from the project in the URL"},
		{"bad job id", "projects/p-project/jobs", strings.Replace(okJob, `"j1"`, `"j 1!"`, 1), 400, "jobId"},
		{"unknown query parameter", "projects/p-project/jobs?maxBytes=5", okJob, 400, "unknown name"},
		{"jobs.query", "projects/p-project/queries", `{"query":"SELECT 1"}`, 400, "jobs.query"},
		{"unknown method", "projects/p-project/datasets", `{}`, 404, "no such"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := New()
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			s.Script("SELECT 1", Query{Schema: []Field{{Name: "x", Type: "INTEGER"}}, Rows: [][]any{{"1"}}})
			status, _ := post(t, s.Endpoint()+c.path, c.body)
			if status != c.status {
				t.Errorf("status %d, want %d", status, c.status)
			}
			v := strings.Join(s.Violations(), "\n")
			if c.violates == "" && v != "" {
				t.Errorf("violations: %s", v)
			}
			if c.violates != "" && !strings.Contains(v, c.violates) {
				t.Errorf("violations %q lack %q", v, c.violates)
			}
		})
	}
}

// A duplicate job id is refused as the real service does, and the error
// envelope has Google's shape.
func TestFakeDuplicateJob(t *testing.T) {
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Script("SELECT 1", Query{Schema: []Field{{Name: "x", Type: "INTEGER"}}, Rows: [][]any{{"1"}}})
	if st, _ := post(t, s.Endpoint()+"projects/p-project/jobs", okJob); st != 200 {
		t.Fatalf("first insert %d", st)
	}
	st, body := post(t, s.Endpoint()+"projects/p-project/jobs", okJob)
	e, _ := body["error"].(map[string]any)
	errs, _ := e["errors"].([]any)
	if st != 409 || e["status"] != "ALREADY_EXISTS" || len(errs) != 1 || errs[0].(map[string]any)["reason"] != "duplicate" {
		t.Errorf("duplicate: %d %v", st, body)
	}
}

// With a service account required, calls without its token are refused.
func TestFakeRequiresToken(t *testing.T) {
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.RequireServiceAccount("p-project"); err != nil {
		t.Fatal(err)
	}
	s.Script("SELECT 1", Query{})
	if st, _ := post(t, s.Endpoint()+"projects/p-project/jobs", okJob); st != 401 {
		t.Errorf("unauthenticated insert: %d", st)
	}
	resp, err := http.PostForm(s.URL()+"/token", map[string][]string{
		"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "assertion": {"a.b.c"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 || len(s.IssuedTokens()) != 0 {
		t.Errorf("forged assertion: %d, tokens %v", resp.StatusCode, s.IssuedTokens())
	}
}
