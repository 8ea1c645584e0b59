package refine

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestExtract(t *testing.T) {
	const cte = "WITH cohort AS (\n  SELECT subject_id FROM `physionet-data.mimiciv_3_1_hosp.patients` WHERE gender = 'M'\n)\nSELECT COUNT(*) AS n FROM cohort"
	tests := []struct {
		name, reply, want, method string
	}{
		{"last sql fence wins", "Reasoning: first try\n```sql\nSELECT 1\n```\nbetter:\n```sql\nSELECT 2\n```\n", "SELECT 2", MethodSQLFence},
		{"prose before fence, leading comment kept",
			"We need patients with sepsis and their admissions.\n\nSQL:\n```sql\n-- patients with sepsis\n" + cte + ";\n```\n",
			"-- patients with sepsis\n" + cte + ";", MethodSQLFence},
		{"prose containing with is never the cut point",
			"Reasoning: start with the patients with heart failure, with ICD codes.\n```sql\n" + cte + "\n```", cte, MethodSQLFence},
		{"info string case and dialect", "```SQL\nSELECT 1\n```", "SELECT 1", MethodSQLFence},
		{"bigquery info string", "```bigquery\nSELECT 1\n```", "SELECT 1", MethodSQLFence},
		{"sql fence beats later python fence", "```sql\nSELECT 1\n```\n```python\nprint(1)\n```", "SELECT 1", MethodSQLFence},
		{"tilde fence", "~~~sql\nSELECT 3\n~~~", "SELECT 3", MethodSQLFence},
		{"longer fence holds backticks", "````sql\nSELECT '```' AS x\n````", "SELECT '```' AS x", MethodSQLFence},
		{"closing fence glued to code", "```sql\nSELECT 4```\nDone.", "SELECT 4", MethodSQLFence},
		{"indented fence", "  ```sql\n  SELECT 5\n  ```", "SELECT 5", MethodSQLFence},
		{"empty sql fence skipped", "```sql\nSELECT 6\n```\n```sql\n\n```", "SELECT 6", MethodSQLFence},
		{"CRLF reply", "Here:\r\n```sql\r\nSELECT 7\r\nFROM t\r\n```\r\n", "SELECT 7\nFROM t", MethodSQLFence},
		{"untagged fence with a query", "```\n/* block */ select 8\n```", "/* block */ select 8", MethodFence},
		{"untagged fence with prose is not sql", "```\nnot a query\n```\nSELECT 9;", "SELECT 9;", MethodStatement},
		{"unclosed sql fence (cut at max_tokens)", "Reasoning...\n```sql\nSELECT a,\n  b", "SELECT a,\n  b", MethodUnclosedFence},
		{"tags", "[SQL]SELECT 10[/SQL]", "SELECT 10", MethodTags},
		{"xml tags", "<sql>\nSELECT 11\n</sql>", "SELECT 11", MethodTags},
		{"bare query", "  -- count\nSELECT 12\n", "-- count\nSELECT 12", MethodBare},
		{"bare parenthesised query", "(SELECT 1) UNION ALL (SELECT 2)", "(SELECT 1) UNION ALL (SELECT 2)", MethodBare},
		{"statement after prose", "The answer is:\nSELECT 13 FROM t;\nThis counts rows.", "SELECT 13 FROM t;", MethodStatement},
		{"statement with comment above", "Query:\n-- cohort of men\nWITH c AS (SELECT 1)\nSELECT * FROM c", "-- cohort of men\nWITH c AS (SELECT 1)\nSELECT * FROM c", MethodStatement},
		{"prose line starting with With is skipped", "With the cohort defined, we count.\nSELECT 14;", "SELECT 14;", MethodStatement},
		{"statement stops before a stray fence", "Here is the SQL: ```sql\nSELECT 15\n```\nend", "SELECT 15", MethodStatement},
		{"think section ignored when the answer has sql", "<think>```sql\nSELECT 0\n```</think>\n```sql\nSELECT 16\n```", "SELECT 16", MethodSQLFence},
		{"think section searched when nothing after", "<think>\n```sql\nSELECT 17\n```\n</think>\nI cannot answer.", "SELECT 17", MethodSQLFence},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Extract(tc.reply)
			if err != nil {
				t.Fatalf("Extract: %v", err)
			}
			if got.SQL != tc.want || got.Method != tc.method {
				t.Errorf("got %q (%s), want %q (%s)", got.SQL, got.Method, tc.want, tc.method)
			}
		})
	}
}

func TestExtractFailures(t *testing.T) {
	for _, reply := range []string{
		"",
		"   \n\t",
		"I am sorry, I cannot help with that.",
		"With the patients with sepsis, count them with care.",
		"```python\nprint('hello')\n```",
		"```sql\n\n```",
	} {
		_, err := Extract(reply)
		if !errors.Is(err, ErrNoSQL) {
			t.Errorf("Extract(%q) = %v, want ErrNoSQL", reply, err)
		}
	}
}

// FuzzExtract checks, on any input, that Extract does not panic and returns
// either ErrNoSQL or a trimmed, non-empty piece of the reply; and that a
// query placed in a closed ```sql block after any prose comes back whole,
// comments included.
func FuzzExtract(f *testing.F) {
	f.Add("We need patients with sepsis.", "-- patients with sepsis\nWITH s AS (SELECT 1)\nSELECT * FROM s", "Done.")
	f.Add("", "SELECT 1", "")
	f.Add("with with with", "with x as (select 1) select * from x", "```")
	f.Add("<think>", "SELECT `a`.b FROM `p.d.t`", "</think>")
	f.Add("[sql]", "select 2", "[/sql]")
	f.Fuzz(func(t *testing.T, prose, query, trailer string) {
		reply := prose + "\n```sql\n" + query + "\n```\n" + trailer
		got, err := Extract(reply)
		if err != nil {
			if !errors.Is(err, ErrNoSQL) {
				t.Fatalf("error not ErrNoSQL: %v", err)
			}
		} else {
			norm := strings.ReplaceAll(reply, "\r\n", "\n")
			if got.SQL == "" || got.SQL != strings.TrimSpace(got.SQL) {
				t.Fatalf("SQL %q is empty or untrimmed", got.SQL)
			}
			if !strings.Contains(norm, got.SQL) && !strings.Contains(norm, strings.TrimRight(got.SQL, "`")) {
				t.Fatalf("SQL %q is not part of the reply %q", got.SQL, reply)
			}
		}
		// The property only holds when nothing else in the reply looks
		// like a fence, a tag, a think section or a line break inside
		// the query's own text.
		for _, s := range []string{prose, query, trailer} {
			if strings.Contains(s, "```") || strings.Contains(s, "~~~") || strings.Contains(strings.ToLower(s), "think>") || strings.Contains(s, "\r") {
				return
			}
		}
		if strings.TrimSpace(query) == "" || !utf8.ValidString(query) {
			return
		}
		if err != nil {
			t.Fatalf("Extract(%q): %v", reply, err)
		}
		if want := strings.TrimSpace(query); got.SQL != want || got.Method != MethodSQLFence {
			t.Fatalf("got %q (%s), want %q", got.SQL, got.Method, want)
		}
	})
}
