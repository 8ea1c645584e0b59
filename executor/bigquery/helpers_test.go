package bigquery

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"google.golang.org/api/option"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/internal/bqfake"
)

const testProject = "clinsql-test"

// fixture is an engine wired to a fresh fake.
type fixture struct {
	t   *testing.T
	srv *bqfake.Server
	eng *Engine
	log *syncBuffer
}

// newFixture starts a fake and opens an engine on it through
// option.WithEndpoint and option.WithoutAuthentication. mutate adjusts the
// configuration before Open. The fake's violations fail the test at the end.
func newFixture(t *testing.T, mutate func(*Config), opts ...Option) *fixture {
	t.Helper()
	srv, err := bqfake.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	cfg := testConfig()
	if mutate != nil {
		mutate(&cfg)
	}
	logs := &syncBuffer{}
	all := append([]Option{
		WithClientOptions(option.WithEndpoint(srv.Endpoint()), option.WithoutAuthentication()),
		WithLogger(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))),
		withPolling(2*time.Millisecond, 20*time.Millisecond, 20*time.Millisecond, 50*time.Millisecond, 100*time.Millisecond),
	}, opts...)
	eng, err := Open(context.Background(), cfg, all...)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, srv: srv, eng: eng, log: logs}
	t.Cleanup(func() {
		eng.Close()
		for _, v := range srv.Violations() {
			t.Errorf("request the real API would reject: %s", v)
		}
	})
	return f
}

func testConfig() Config {
	cfg := DefaultConfig()
	cfg.Project = testProject
	cfg.Credentials = CredentialsNone
	cfg.Retry = RetryConfig{Attempts: 4, Initial: time.Millisecond, Max: 8 * time.Millisecond, Budget: time.Second}
	return cfg
}

// xerr asserts err is an *executor.Error of class want and returns it with
// its Failure.
func xerr(t *testing.T, err error, want executor.Class) (*executor.Error, *Failure) {
	t.Helper()
	var xe *executor.Error
	if !errors.As(err, &xe) {
		t.Fatalf("error %v (%T) is not an *executor.Error", err, err)
	}
	if xe.Class != want {
		t.Fatalf("class %s, want %s (message %q)", xe.Class, want, xe.Message)
	}
	var f *Failure
	if !errors.As(xe.Err, &f) {
		t.Fatalf("Err %T is not a *Failure", xe.Err)
	}
	return xe, f
}

// jobInserts returns the non-dry-run jobs.insert requests.
func jobInserts(srv *bqfake.Server) []bqfake.Request {
	var out []bqfake.Request
	for _, r := range srv.Calls("jobs.insert") {
		if !isDryRun(r) {
			out = append(out, r)
		}
	}
	return out
}

func dryRuns(srv *bqfake.Server) []bqfake.Request {
	var out []bqfake.Request
	for _, r := range srv.Calls("jobs.insert") {
		if isDryRun(r) {
			out = append(out, r)
		}
	}
	return out
}

func isDryRun(r bqfake.Request) bool {
	cfg, _ := r.Body["configuration"].(map[string]any)
	return cfg["dryRun"] == true
}

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
