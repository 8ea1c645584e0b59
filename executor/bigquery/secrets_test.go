package bigquery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/api/option"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/internal/bqfake"
)

// secretStrings returns what must never appear in anything the engine
// emits: the key file's path and name, its directory, its private key and
// key id, and every access token issued for it.
func secretStrings(keyPath string, key *bqfake.ServiceAccountKey, srv *bqfake.Server) []string {
	pemLines := strings.Split(strings.TrimSpace(key.PrivateKey), "\n")
	out := []string{
		keyPath,
		filepath.Base(filepath.Dir(keyPath)),
		strings.TrimSuffix(filepath.Base(keyPath), ".json"),
		key.PrivateKeyID,
		pemLines[1], pemLines[len(pemLines)-2], // key material, not the BEGIN/END lines
	}
	return append(out, srv.IssuedTokens()...)
}

// With a service-account key file, the engine authenticates for real (JWT
// grant at the token endpoint, bearer token on every call), and neither the
// key's path, its secrets nor the tokens appear in any error message, log
// line or anything it hands back to be written.
func TestNoCredentialLeaks(t *testing.T) {
	srv, err := bqfake.New()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	key, err := srv.RequireServiceAccount(testProject)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "sekrit-dir-4711")
	os.Mkdir(dir, 0o700)
	keyPath := filepath.Join(dir, "clinsql-runner-key-8842.json")
	if err := os.WriteFile(keyPath, key.JSON, 0o600); err != nil {
		t.Fatal(err)
	}

	cfg := testConfig()
	cfg.Credentials = CredentialsKeyFile
	cfg.KeyFile = keyPath
	cfg.Timeout = 200 * time.Millisecond
	logs := &syncBuffer{}
	eng, err := Open(context.Background(), cfg,
		WithClientOptions(option.WithEndpoint(srv.Endpoint())),
		WithLogger(slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))),
		withPolling(2*time.Millisecond, 20*time.Millisecond, 20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()

	var emitted []string // everything the engine produced
	record := func(v any) {
		b, _ := json.Marshal(v)
		emitted = append(emitted, string(b), fmt.Sprintf("%+v", v))
	}
	recordErr := func(err error) {
		if err == nil {
			return
		}
		emitted = append(emitted, err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err))
		var xe *executor.Error
		if errors.As(err, &xe) {
			emitted = append(emitted, xe.Message, fmt.Sprintf("%+v", xe.Err))
		}
	}

	srv.Script("SELECT ok", bqfake.Query{BytesProcessed: 1 << 20, Schema: numberedSchema, Rows: numberedRows(3)})
	srv.Script("SELECT bad", bqfake.Query{DryRunError: bqfake.InvalidQuery("Unrecognized name: nope at [1:8]")})
	srv.Script("SELECT hang", bqfake.Query{Hang: true, Schema: numberedSchema})
	srv.Script("SELECT denied", bqfake.Query{DryRunError: &bqfake.Fault{Reason: "accessDenied", Message: "Access Denied: Project physionet-data: User does not have bigquery.jobs.create permission"}})
	srv.Script("SELECT flaky", bqfake.Query{Schema: numberedSchema, Rows: numberedRows(1)})

	ctx := context.Background()
	// The token endpoint fails once: the first query cannot authenticate.
	srv.FailNext("token", bqfake.Fault{Code: 400, Raw: []byte(`{"error":"invalid_grant","error_description":"Invalid JWT Signature."}`)})
	_, err = eng.Query(ctx, "SELECT ok")
	if executor.ClassOf(err) != executor.ClassInfra {
		t.Errorf("token failure: %v", err)
	}
	recordErr(err)
	res, err := eng.Query(ctx, "SELECT ok")
	if err != nil {
		t.Fatalf("authenticated query failed: %v", err)
	}
	record(res)
	for _, sql := range []string{"SELECT bad", "SELECT hang", "SELECT denied"} {
		_, err := eng.Query(ctx, sql)
		if err == nil {
			t.Fatalf("%s succeeded", sql)
		}
		recordErr(err)
	}
	srv.FailNext("jobs.insert/job", bqfake.RateLimited(), bqfake.Fault{Reason: "quotaExceeded", Message: "Quota exceeded"})
	res, err = eng.Query(ctx, "SELECT flaky")
	recordErr(err)
	record(res)
	// A server that echoes what it was sent: the bearer token, and a message
	// naming the key file.
	srv.FailNext("jobs.insert/dryrun",
		bqfake.Fault{Code: 400, Reason: "invalidQuery", Message: "Syntax error", EchoAuth: true},
		bqfake.Fault{Code: 403, Reason: "accessDenied", Message: "cannot read " + keyPath + " for " + key.PrivateKeyID})
	for range 2 {
		_, err = eng.Query(ctx, "SELECT ok")
		if err == nil {
			t.Fatal("echo fault not delivered")
		}
		recordErr(err)
	}
	est, err := eng.DryRun(ctx, "SELECT ok")
	recordErr(err)
	record(est)
	record(eng.Totals())
	record(cfg.Describe())
	record(eng.Config().Describe())

	// Opening with a key file that is not a key.
	badKey := filepath.Join(dir, "clinsql-runner-key-8842-broken.json")
	os.WriteFile(badKey, []byte("not json "+key.PrivateKeyID), 0o600)
	bad := cfg
	bad.KeyFile = badKey
	if e2, err := Open(ctx, bad, WithClientOptions(option.WithEndpoint(srv.Endpoint()))); err == nil {
		_, err = e2.Query(ctx, "SELECT ok")
		recordErr(err)
		e2.Close()
	} else {
		recordErr(err)
	}
	// A key path that does not exist.
	bad.KeyFile = filepath.Join(dir, "clinsql-runner-key-8842-missing.json")
	_, err = Open(ctx, bad)
	if err == nil {
		t.Error("missing key file accepted")
	}
	recordErr(err)

	emitted = append(emitted, logs.String())
	if !strings.Contains(logs.String(), "retrying") || !strings.Contains(logs.String(), "job cancelled") {
		t.Errorf("log lacks the retry and the cancellation:\n%s", logs.String())
	}

	// Authentication really happened.
	if len(srv.IssuedTokens()) == 0 {
		t.Fatal("no token issued")
	}
	for _, r := range srv.Calls("jobs.insert") {
		if r.Status == 401 {
			t.Errorf("unauthenticated insert")
		}
	}
	all := strings.Join(emitted, "\n")
	for _, secret := range secretStrings(keyPath, key, srv) {
		if strings.Contains(all, secret) {
			i := strings.Index(all, secret)
			t.Errorf("secret %q leaked in: ...%s...", secret, all[max(0, i-120):min(len(all), i+len(secret)+40)])
		}
	}
	for _, v := range srv.Violations() {
		t.Errorf("violation: %s", v)
	}
}

func TestRedactor(t *testing.T) {
	r := &redactor{literals: []string{"/home/me/key.json"}}
	cases := map[string]string{
		"open /home/me/key.json: permission denied":                       "open [redacted]: permission denied",
		"Authorization: Bearer ya29.a0AfB_byC-123":                        "Authorization: [redacted]",
		`{"access_token":"abc","expires_in":3599}`:                        `{[redacted],"expires_in":3599}`,
		"token ya29.c.b0AXv0zTP":                                          "token [redacted]",
		"-----BEGIN PRIVATE KEY-----\nMIIEv\n-----END PRIVATE KEY-----\n": "[redacted]\n",
		"assertion=eyJhbGciOi.eyJpc3Mi.sig&grant_type=x":                  "[redacted]&grant_type=x",
		"Syntax error: Unexpected keyword BEARER at [1:8]":                "Syntax error: Unexpected keyword BEARER at [1:8]",
		"Unrecognized name: token; Did you mean tokens? at [2:3]":         "Unrecognized name: token; Did you mean tokens? at [2:3]",
	}
	for in, want := range cases {
		if got := r.apply(in); got != want {
			t.Errorf("apply(%q) = %q, want %q", in, got, want)
		}
	}
}
