package ehrsqlbench

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/datasets/ehrsql"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/refine"
)

// PromptVersion changes whenever the wording of the prompts changes; it is
// part of the run settings, so a run folder never mixes two wordings.
const PromptVersion = "1"

// SchemaText is the database's own DDL (sqlite_master), one CREATE TABLE
// per table in name order: the schema the models are shown.
func SchemaText(ctx context.Context, db executor.Executor) (string, error) {
	res, err := db.Query(ctx, "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
	if err != nil {
		return "", fmt.Errorf("read the schema: %w", err)
	}
	var b strings.Builder
	for _, r := range res.Rows {
		sql, _ := r[1].(string)
		b.WriteString(strings.TrimSpace(sql))
		b.WriteString(";\n")
	}
	if b.Len() == 0 {
		return "", fmt.Errorf("read the schema: the database has no tables")
	}
	return b.String(), nil
}

// Example is a train question with its SQL, shown as a few-shot example.
type Example struct {
	Question, SQL string
}

// Retriever finds the train examples nearest a question by TF-IDF cosine
// similarity over lowercase word tokens: no external service, and the same
// examples every run (ties go to the earlier train item).
type Retriever struct {
	examples []Example
	vecs     []map[string]float64
	idf      map[string]float64
}

// NewRetriever indexes the answerable items of a train split (an
// unanswerable item has no SQL to show).
func NewRetriever(train *ehrsql.Split) *Retriever {
	r := &Retriever{idf: map[string]float64{}}
	var docs [][]string
	for _, q := range train.Data.Questions {
		label := train.Labels.Values[q.ID]
		if label == ehrsql.Null || label == "" {
			continue
		}
		r.examples = append(r.examples, Example{Question: q.Question, SQL: label})
		docs = append(docs, words(q.Question))
	}
	df := map[string]int{}
	for _, d := range docs {
		seen := map[string]bool{}
		for _, w := range d {
			if !seen[w] {
				seen[w] = true
				df[w]++
			}
		}
	}
	for w, n := range df {
		r.idf[w] = math.Log(float64(1+len(docs)) / float64(1+n))
	}
	for _, d := range docs {
		r.vecs = append(r.vecs, r.vector(d))
	}
	return r
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) })
}

func (r *Retriever) vector(ws []string) map[string]float64 {
	v := map[string]float64{}
	for _, w := range ws {
		v[w] += r.idf[w]
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	norm = math.Sqrt(norm)
	for w := range v {
		if norm > 0 {
			v[w] /= norm
		}
	}
	return v
}

// Nearest returns the k examples most similar to question. An example
// whose question is the same text is skipped, so that a split never sees
// its own answer.
func (r *Retriever) Nearest(question string, k int) []Example {
	if r == nil || k <= 0 {
		return nil
	}
	q := r.vector(words(question))
	// Keep the k best in order (higher score first, earlier item on
	// ties): an insertion into a short list beats sorting every example.
	type scored struct {
		i int
		s float64
	}
	top := make([]scored, 0, k+1)
	for i, v := range r.vecs {
		if r.examples[i].Question == question {
			continue
		}
		var s float64
		for w, x := range q {
			s += x * v[w]
		}
		if len(top) == k && s <= top[k-1].s {
			continue
		}
		at := len(top)
		for at > 0 && top[at-1].s < s {
			at--
		}
		top = slices.Insert(top, at, scored{i, s})
		if len(top) > k {
			top = top[:k]
		}
	}
	out := make([]Example, len(top))
	for j, sc := range top {
		out[j] = r.examples[sc.i]
	}
	return out
}

// Prompter writes the EHRSQL prompts (a refine.PromptSource): SQLite
// rules, the schema, optionally the nearest train examples, the question;
// a fix request shows the last query and SQLite's message.
type Prompter struct {
	Schema string
	// Null invites the model to answer null when the question cannot be
	// answered from the database (the model abstention step).
	Null bool
	// Examples gives a question's few-shot examples (nil: none).
	Examples func(question string) []Example
}

func (p *Prompter) head(b *strings.Builder) {
	b.WriteString("You write SQLite queries over an electronic health records database (MIMIC-IV, de-identified). " +
		"Times are text 'YYYY-MM-DD HH:MM:SS'; the current time is 2100-12-31 23:59:00; text values are lowercase.\n\n")
	b.WriteString("Rules:\n- Write exactly one SELECT statement for SQLite, without comments.\n")
	if p.Null {
		b.WriteString("- If the question cannot be answered from this database, or is not a question about its data, reply with exactly: null\n")
	}
	b.WriteString("\nSchema:\n")
	b.WriteString(p.Schema)
	b.WriteString("\n")
}

func (p *Prompter) tail(b *strings.Builder, t *datasets.Task) {
	fmt.Fprintf(b, "Question: %q\n\n", t.Question)
	b.WriteString("Reply with the query only, in a single ```sql code block")
	if p.Null {
		b.WriteString(", or with null")
	}
	b.WriteString(".\n")
}

// Generate is the first request for a question.
func (p *Prompter) Generate(t *datasets.Task) string {
	var b strings.Builder
	p.head(&b)
	if p.Examples != nil {
		if ex := p.Examples(t.Question); len(ex) > 0 {
			b.WriteString("Examples:\n\n")
			for _, e := range ex {
				fmt.Fprintf(&b, "Example question: %q\n```sql\n%s\n```\n\n", e.Question, e.SQL)
			}
		}
	}
	p.tail(&b, t)
	return b.String()
}

// Fix asks for a corrected query after SQLite refused the last one.
func (p *Prompter) Fix(t *datasets.Task, last refine.Shown, _ []refine.Shown) string {
	var b strings.Builder
	p.head(&b)
	b.WriteString("An earlier answer to the question below was:\n")
	if last.SQL != "" {
		fmt.Fprintf(&b, "```sql\n%s\n```\n", last.SQL)
	}
	msg := last.Error
	if len(msg) > 2000 {
		msg = msg[:2000] + " ..."
	}
	switch last.Outcome {
	case "empty":
		b.WriteString("It returned no rows.\n\n")
	default:
		fmt.Fprintf(&b, "It failed: %s\n\n", msg)
	}
	b.WriteString("Make the smallest change that fixes it.\n\n")
	p.tail(&b, t)
	return b.String()
}

// Abstains reports whether a reply is the model's abstention: "null"
// alone, in any case, optionally fenced or followed by ";".
func Abstains(reply string) bool {
	s := strings.TrimSpace(reply)
	if strings.HasPrefix(s, "```") && strings.HasSuffix(s, "```") && len(s) >= 6 {
		s = strings.TrimSpace(s[3 : len(s)-3])
		if i := strings.IndexByte(s, '\n'); i >= 0 && !strings.EqualFold(strings.TrimSpace(s), "null") {
			if strings.EqualFold(strings.TrimSpace(s[:i]), "sql") || strings.EqualFold(strings.TrimSpace(s[:i]), "sqlite") {
				s = strings.TrimSpace(s[i+1:])
			}
		}
	}
	s = strings.TrimSpace(strings.TrimRight(s, "; \t\r\n"))
	return strings.EqualFold(s, "null")
}
