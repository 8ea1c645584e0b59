package judge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmfmt"
	"github.com/clinsql/clinsql/rubric"
)

// GroupPromptVersion names the grouped prompt's wording (see
// PromptVersion).
const GroupPromptVersion = "g1"

const groupSystemPrompt = `You grade several requirements of a rubric for a clinical text-to-SQL answer. The answer is a BigQuery SQL query over MIMIC-IV v3.1 and, when it ran, its result.

Decide for each requirement, on its own, whether the answer meets it. Another requirement's verdict never decides it; the enclosing requirements are context that says what a requirement refers to. Do not reward or penalise anything else. If a requirement cannot be met because the query failed or returned nothing, it is not met.

Reply with one JSON object and nothing else. It has exactly one member per requirement id, in the order given, each an object with "reasoning" (one to three sentences) and "verdict" ("pass" or "fail"):
{"<id>": {"reasoning": "<one to three sentences>", "verdict": "pass"}, "<next id>": {"reasoning": "<...>", "verdict": "fail"}}`

// verdictObject is the JSON schema of one leaf's verdict.
const verdictObject = `{"type":"object","properties":{"reasoning":{"type":"string"},"verdict":{"type":"string","enum":["pass","fail"]}},"required":["reasoning","verdict"],"additionalProperties":false}`

// groupSchema is the structured reply of a group: an object with exactly
// the requested ids as members, each a verdict object. Where the endpoint
// honours strict JSON schemas this rules out missing, unknown and
// duplicated ids; ParseGroupVerdicts enforces it in every case.
func groupSchema(ids []string) *llm.Schema {
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":{`)
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(id))
		b.WriteByte(':')
		b.WriteString(verdictObject)
	}
	b.WriteString(`},"required":[`)
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(id))
	}
	b.WriteString(`],"additionalProperties":false}`)
	return &llm.Schema{Name: "rubric_verdicts", Strict: true, Schema: json.RawMessage(b.Bytes())}
}

// BuildGroupPrompt renders the judge prompt for a group of leaves of one
// task's tree. The shared context comes once and first: the question, the
// candidate SQL, the execution status and error, the bounded result
// preview (and, reference-guided, the gold SQL and result), so that the
// calls of one task share a long prefix (which providers cache). Then the
// evaluation target and the requirements to grade as an outline of the
// tree: each enclosing requirement once, each leaf to grade under it with
// its id in square brackets.
func BuildGroupPrompt(req *GroupRequest, o PromptOptions) []llm.Message {
	o = o.withDefaults()
	sys := groupSystemPrompt
	if req.ReferenceGuided {
		sys += "\n\n" + referencePrompt
	}
	var b strings.Builder
	writeAnswer(&b, req.Task, req.Answer, req.Tree, req.ReferenceGuided, o)
	target := "the query result"
	if req.Tree == judgefmt.TreeSQL {
		target = "the SQL query"
	}
	fmt.Fprintf(&b, "\n## Evaluation target\n%s\n", target)
	b.WriteString("\n## Requirements to grade\n")
	b.WriteString("Each requirement to grade starts with its id in square brackets. The unmarked lines are enclosing requirements: context for the requirements indented under them, not requirements to grade.\n")
	writeOutline(&b, req.Leaves)
	ids := req.IDs()
	quoted := make([]string, len(ids))
	for i, id := range ids {
		quoted[i] = strconv.Quote(id)
	}
	fmt.Fprintf(&b, "\nReply with the JSON object only, with exactly these %d member(s): %s.", len(ids), strings.Join(quoted, ", "))
	return []llm.Message{{Role: llmfmt.RoleSystem, Content: sys}, {Role: llmfmt.RoleUser, Content: strings.TrimPrefix(b.String(), "\n")}}
}

// writeOutline writes the leaves and their ancestors as an indented
// outline in file order, each ancestor once.
func writeOutline(b *strings.Builder, leaves []*rubric.Node) {
	if len(leaves) == 0 {
		return
	}
	root := leaves[0]
	for root.Parent != nil {
		root = root.Parent
	}
	want := map[*rubric.Node]bool{}
	keep := map[*rubric.Node]bool{}
	for _, l := range leaves {
		want[l] = true
		for n := l; n != nil; n = n.Parent {
			keep[n] = true
		}
	}
	var walk func(n *rubric.Node, depth int)
	walk = func(n *rubric.Node, depth int) {
		if !keep[n] {
			return
		}
		indent := strings.Repeat("  ", depth)
		lines := strings.Split(strings.TrimSpace(n.Requirements), "\n")
		head := "- "
		if want[n] {
			head += "[" + n.ID + "] "
		}
		b.WriteString(indent + head + strings.TrimSpace(lines[0]) + "\n")
		for _, ln := range lines[1:] {
			if ln = strings.TrimSpace(ln); ln != "" {
				b.WriteString(indent + "  " + ln + "\n")
			}
		}
		for _, c := range n.Children {
			walk(c, depth+1)
		}
	}
	walk(root, 0)
}

// ParseGroupVerdicts reads a group reply strictly: exactly one JSON object
// whose members are exactly the requested ids, each once, each a verdict
// object that ParseVerdict accepts, and nothing after it. A missing leaf,
// an unknown or duplicated id, a verdict other than "pass" or "fail",
// prose, fenced or truncated JSON are errors: the client retries such
// replies and the group's leaves are finally recorded as invalid. A
// partial reply gives no leaf a verdict.
func ParseGroupVerdicts(text string, ids []string) (map[string]Reply, error) {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "{") {
		return nil, fmt.Errorf("reply is not a JSON object: %q", clipRunes(t, 60))
	}
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	dec := json.NewDecoder(strings.NewReader(t))
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("reply is not the verdicts object: %v", err)
	}
	out := make(map[string]Reply, len(ids))
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("reply is not the verdicts object: %v", err)
		}
		id, _ := tok.(string)
		if _, dup := out[id]; dup {
			return nil, fmt.Errorf("reply gives the id %q twice", id)
		}
		if !want[id] {
			return nil, fmt.Errorf("reply has the unknown id %q", clipRunes(id, 60))
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("reply is not the verdicts object: at %q: %v", id, err)
		}
		r, err := ParseVerdict(string(raw))
		if err != nil {
			return nil, fmt.Errorf("%q: %v", id, err)
		}
		out[id] = r
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("reply is not the verdicts object: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("reply has data after the JSON object")
	}
	var missing []string
	for _, id := range ids {
		if _, ok := out[id]; !ok {
			missing = append(missing, strconv.Quote(id))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("reply lacks %d of %d ids: %s", len(missing), len(ids), clipRunes(strings.Join(missing, ", "), 200))
	}
	return out, nil
}
