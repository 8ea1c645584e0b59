package llmtest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/llm/llmtest"
)

// batchAPI speaks the batch wire protocol by hand, so that the fake is
// checked independently of package llm's client.
type batchAPI struct {
	t    *testing.T
	base string // .../v1
}

func (a batchAPI) do(method, path, contentType string, body io.Reader) (int, []byte) {
	a.t.Helper()
	req, _ := http.NewRequest(method, a.base+path, body)
	req.Header.Set("Authorization", "Bearer k")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func (a batchAPI) upload(jsonl string) (int, map[string]any) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	w.WriteField("purpose", "batch")
	fw, _ := w.CreateFormFile("file", "in.jsonl")
	fw.Write([]byte(jsonl))
	w.Close()
	code, b := a.do(http.MethodPost, "/files", w.FormDataContentType(), &buf)
	var v map[string]any
	json.Unmarshal(b, &v)
	return code, v
}

func (a batchAPI) json(method, path, body string) map[string]any {
	a.t.Helper()
	code, b := a.do(method, path, "application/json", strings.NewReader(body))
	if code != http.StatusOK {
		a.t.Fatalf("%s %s: HTTP %d: %s", method, path, code, b)
	}
	var v map[string]any
	json.Unmarshal(b, &v)
	return v
}

func lines(n int) string {
	var sb strings.Builder
	for i := range n {
		fmt.Fprintf(&sb, `{"custom_id":"r%d","method":"POST","url":"/v1/chat/completions","body":{"model":"m","messages":[{"role":"user","content":"q%d"}],"temperature":0}}`+"\n", i, i)
	}
	return sb.String()
}

// TestBatchWire: the fake's batch API goes through its scripted states,
// counts requests, writes the output and error files in the API's line
// formats (a partial error file for an expired batch), and cancels.
func TestBatchWire(t *testing.T) {
	h := func(c *llmtest.Call) llmtest.Reply {
		if c.LastUser() == "q1" {
			return llmtest.RateLimited("")
		}
		return llmtest.Text("a " + c.LastUser())
	}
	scripts := []llmtest.BatchScript{
		{Steps: []string{"in_progress", "finalizing", "completed"}},
		{Steps: []string{"in_progress", "expired"}, Answered: 2},
		{Steps: []string{"in_progress"}},
		{Steps: []string{"failed"}},
	}
	srv := llmtest.Start(t, h, llmtest.Options{Batches: func(i, n int) llmtest.BatchScript { return scripts[i] }})
	api := batchAPI{t: t, base: srv.OpenAIBaseURL()}
	create := func() string {
		code, f := api.upload(lines(3))
		if code != http.StatusOK || f["purpose"] != "batch" {
			t.Fatalf("upload: %d %v", code, f)
		}
		b := api.json(http.MethodPost, "/batches", fmt.Sprintf(`{"input_file_id":%q,"endpoint":"/v1/chat/completions","completion_window":"24h","metadata":{"k":"v"}}`, f["id"]))
		if b["status"] != "validating" || b["object"] != "batch" {
			t.Fatalf("create: %v", b)
		}
		return b["id"].(string)
	}
	retrieve := func(id string) map[string]any { return api.json(http.MethodGet, "/batches/"+id, "") }
	content := func(id any) []map[string]any {
		_, b := api.do(http.MethodGet, fmt.Sprintf("/files/%s/content", id), "", nil)
		var out []map[string]any
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var v map[string]any
			if err := json.Unmarshal([]byte(l), &v); err != nil {
				t.Fatalf("result line %q: %v", l, err)
			}
			out = append(out, v)
		}
		return out
	}

	// completed: the 429 of q1 is a per-request error in the error file.
	id := create()
	var states []string
	var last map[string]any
	for range 4 {
		last = retrieve(id)
		states = append(states, last["status"].(string))
	}
	if got := strings.Join(states, " "); got != "in_progress finalizing completed completed" {
		t.Errorf("states %s", got)
	}
	if rc := last["request_counts"].(map[string]any); rc["total"] != 3.0 || rc["completed"] != 2.0 || rc["failed"] != 1.0 {
		t.Errorf("request_counts %v", rc)
	}
	out, errs := content(last["output_file_id"]), content(last["error_file_id"])
	if len(out) != 2 || len(errs) != 1 {
		t.Fatalf("%d output lines, %d error lines", len(out), len(errs))
	}
	resp := out[0]["response"].(map[string]any)
	body := resp["body"].(map[string]any)
	if out[0]["custom_id"] != "r0" || resp["status_code"] != 200.0 || body["object"] != "chat.completion" || out[0]["error"] != nil {
		t.Errorf("output line %v", out[0])
	}
	if e := errs[0]["response"].(map[string]any); errs[0]["custom_id"] != "r1" || e["status_code"] != 429.0 {
		t.Errorf("error line %v", errs[0])
	}

	// expired after 2 answered: r2 gets batch_expired.
	id = create()
	retrieve(id)
	last = retrieve(id)
	errs = content(last["error_file_id"])
	if last["status"] != "expired" || len(errs) != 2 || errs[1]["custom_id"] != "r2" || errs[1]["response"] != nil ||
		errs[1]["error"].(map[string]any)["code"] != "batch_expired" {
		t.Errorf("expired: %v, errors %v", last["status"], errs)
	}

	// cancel: cancelling, then cancelled, nothing answered.
	id = create()
	retrieve(id)
	if b := api.json(http.MethodPost, "/batches/"+id+"/cancel", ""); b["status"] != "cancelling" {
		t.Errorf("cancel: %v", b["status"])
	}
	last = retrieve(id)
	if errs := content(last["error_file_id"]); last["status"] != "cancelled" || len(errs) != 3 || errs[0]["error"].(map[string]any)["code"] != "batch_cancelled" {
		t.Errorf("cancelled: %v %v", last["status"], errs)
	}

	// failed: errors.data, no files.
	id = create()
	last = retrieve(id)
	if last["status"] != "failed" || last["output_file_id"] != nil || last["errors"] == nil {
		t.Errorf("failed: %v", last)
	}

	// list, newest first, finds a batch by its metadata.
	list := api.json(http.MethodGet, "/batches?limit=2", "")
	if data := list["data"].([]any); len(data) != 2 || data[0].(map[string]any)["id"] != id || list["has_more"] != true {
		t.Errorf("list: %v", list)
	}
	if got := srv.Submitted(); len(got) != 3 || got["r0"] != 4 {
		t.Errorf("submitted %v", got)
	}
}

// TestBatchWireRejects: input files the API would refuse are refused and
// reported as protocol problems (client bugs).
func TestBatchWireRejects(t *testing.T) {
	for _, tc := range []struct{ name, jsonl, want string }{
		{"url", strings.Replace(lines(1), "/v1/chat/completions", "/chat/completions", 1), "url"},
		{"duplicate custom_id", lines(1) + lines(1), "used twice"},
		{"bad body", `{"custom_id":"x","method":"POST","url":"/v1/chat/completions","body":{"model":"m","messages":[]}}`, "too short"},
		{"method", strings.Replace(lines(1), `"POST"`, `"GET"`, 1), "method"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(llmtest.Fixed(llmtest.Text("x")), llmtest.Options{})
			defer srv.Close()
			code, v := batchAPI{t: t, base: srv.OpenAIBaseURL()}.upload(tc.jsonl)
			if code != http.StatusBadRequest || !strings.Contains(fmt.Sprint(v), tc.want) || len(srv.Problems()) != 1 {
				t.Errorf("HTTP %d %v; problems %v", code, v, srv.Problems())
			}
		})
	}
}
