package audit

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"

	"golang.org/x/sync/errgroup"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/judge/codecheck"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/rubric"
)

// Verdict is a judge's decision on one leaf of one variant.
type Verdict struct {
	Pass bool
	// Source is who decided: code, llm, replay; SourceInvalid for a
	// judge failure (neither pass nor fail).
	Source      string
	Explanation string
}

// SourceInvalid is the source of a verdict the judge failed to give (its
// call failed, its reply could not be read): counted apart (Row.Invalid),
// never as decided, right or wrong.
const SourceInvalid = "invalid"

// Judge decides the leaves of the variants' answers. Leaves it leaves
// undecided are absent from a variant's map.
type Judge interface {
	Name() string
	Decide(ctx context.Context, vs []*Variant) ([]map[judgefmt.LeafKey]Verdict, error)
}

// CodeJudge is the judge's code checks alone (codecheck.CheckLeaf).
type CodeJudge struct{}

func (CodeJudge) Name() string { return "code" }

// Decide runs the code checks on every leaf of both trees.
func (CodeJudge) Decide(ctx context.Context, vs []*Variant) ([]map[judgefmt.LeafKey]Verdict, error) {
	out := make([]map[judgefmt.LeafKey]Verdict, len(vs))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, v := range vs {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			m := map[judgefmt.LeafKey]Verdict{}
			for _, tr := range trees(v.Task) {
				for _, l := range tr.root.Leaves() {
					if d := codecheck.CheckLeaf(tr.tree, l, v.Answer); d.Decided {
						m[leafKey(v.Task, tr.tree, l)] = Verdict{Pass: d.Pass, Source: string(judgefmt.SourceCode), Explanation: d.Explanation}
					}
				}
			}
			out[i] = m
			return nil
		})
	}
	return out, g.Wait()
}

// Options configure an audit.
type Options struct {
	// Mutations to apply (besides the gold answer); see ParseMutations.
	Mutations []string
	// Engine runs the SQL mutations; without it they are not built (and
	// the report says so).
	Engine executor.Executor
	// Judge is audited; nil means CodeJudge.
	Judge Judge
	// Workers bounds the SQL mutations run at once (default 2).
	Workers int
}

// Build makes the gold variant and the mutations of every task. Tasks
// whose gold result cannot be read are reported in the error list and
// left out.
func Build(ctx context.Context, tasks []*datasets.Task, opts Options) ([]*Variant, []string, error) {
	var vs []*Variant
	var notes []string
	var errs []error
	for _, t := range tasks {
		g, err := GoldVariant(t)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		vs = append(vs, g)
		for _, m := range opts.Mutations {
			if isSQLMutation(m) {
				continue
			}
			mv, err := ResultVariants(t, m)
			if err != nil {
				errs = append(errs, err)
			}
			vs = append(vs, mv...)
		}
	}
	var sqlMuts []string
	for _, m := range opts.Mutations {
		if isSQLMutation(m) {
			sqlMuts = append(sqlMuts, m)
		}
	}
	if len(sqlMuts) > 0 && opts.Engine == nil {
		notes = append(notes, fmt.Sprintf("SQL mutations %v not built: no engine to run them (give --db)", sqlMuts))
		sqlMuts = nil
	}
	if len(sqlMuts) > 0 {
		type job struct {
			t *datasets.Task
			m string
		}
		var jobs []job
		for _, t := range tasks {
			for _, m := range sqlMuts {
				jobs = append(jobs, job{t, m})
			}
		}
		res := make([]*Variant, len(jobs))
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(max(1, opts.Workers))
		for i, j := range jobs {
			g.Go(func() error {
				v, err := SQLVariant(gctx, j.t, j.m, opts.Engine)
				if err != nil && gctx.Err() != nil {
					return err
				}
				if err != nil {
					// A task whose gold result cannot be read was reported
					// above.
					return nil
				}
				res[i] = v
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return nil, nil, err
		}
		built, ran := map[string]int{}, map[string]int{}
		for _, v := range res {
			if v != nil {
				vs = append(vs, v)
				built[v.Mutation]++
				if v.Answer.Executed {
					ran[v.Mutation]++
				}
			}
		}
		for _, m := range sqlMuts {
			// A mutated query that fails is still a wrong answer; the
			// note tells how many ran.
			notes = append(notes, fmt.Sprintf("%s: %d tasks' gold SQL changed, %d of them ran on the engine", m, built[m], ran[m]))
		}
	}
	return vs, notes, errors.Join(errs...)
}

// Run builds the variants, judges them and tallies the outcome.
func Run(ctx context.Context, tasks []*datasets.Task, opts Options) (*Report, error) {
	if len(tasks) == 0 {
		return nil, errors.New("audit: no tasks")
	}
	if opts.Judge == nil {
		opts.Judge = CodeJudge{}
	}
	vs, notes, err := Build(ctx, tasks, opts)
	if err != nil && len(vs) == 0 {
		return nil, err
	}
	if err != nil {
		notes = append(notes, "tasks left out: "+err.Error())
	}
	verdicts, err := opts.Judge.Decide(ctx, vs)
	if err != nil {
		return nil, err
	}
	r := Tally(vs, verdicts)
	r.Judge = opts.Judge.Name()
	r.Tasks = len(tasks)
	r.Mutations = append([]string{Gold}, opts.Mutations...)
	r.Notes = append(r.Notes, notes...)
	return r, nil
}

// kindOf is a leaf's kind in either tree.
func kindOf(tree judgefmt.Tree, l *rubric.Node) codecheck.LeafKind {
	if tree == judgefmt.TreeSQL {
		return codecheck.KindSQL
	}
	return codecheck.KindOf(l)
}

// Tally compares the verdicts with the expectations.
func Tally(vs []*Variant, verdicts []map[judgefmt.LeafKey]Verdict) *Report {
	r := &Report{}
	rows := map[rowKey]*Row{}
	answers := map[string]int{}
	lint := map[judgefmt.LeafKey]*Finding{}
	for _, v := range vs {
		if v.Mutation == Gold {
			for _, f := range Lint(v.Task, v.Gold) {
				lint[f.key()] = f
				r.Lint = append(r.Lint, *f)
			}
		}
	}
	for i, v := range vs {
		answers[v.Mutation]++
		for _, tr := range trees(v.Task) {
			for _, l := range tr.root.Leaves() {
				k := leafKey(v.Task, tr.tree, l)
				kind := kindOf(tr.tree, l)
				rk := rowKey{v.Mutation, string(tr.tree), string(kind)}
				row := rows[rk]
				if row == nil {
					row = &Row{Mutation: v.Mutation, Tree: string(tr.tree), Kind: string(kind), Decided: map[string]int{}, Wrong: map[string]int{}}
					rows[rk] = row
				}
				row.Leaves++
				exp, ok := v.Expect[k]
				if !ok {
					continue
				}
				row.Testable++
				vd, decided := verdicts[i][k]
				if !decided {
					row.Undecided++
					continue
				}
				if vd.Source == SourceInvalid {
					// The judge answered nothing usable: neither right
					// nor wrong, and not decided.
					row.Invalid++
					continue
				}
				row.Decided[vd.Source]++
				if vd.Pass == exp.Pass {
					continue
				}
				row.Wrong[vd.Source]++
				f := Failure{Task: k.Task, Variant: v.Name(), Tree: string(tr.tree), Leaf: l.ID, Kind: string(kind), Source: vd.Source,
					Requirement: l.Requirements, Explanation: vd.Explanation, Expected: exp.Reason}
				if v.Mutation == Gold {
					f.Class = ClassJudge
					if lf := lint[k]; lf != nil {
						f.Class, f.Lint = ClassRubric, lf.Problem
					}
					r.GoldFailures = append(r.GoldFailures, f)
				} else {
					r.Missed = append(r.Missed, f)
				}
			}
		}
	}
	for _, row := range rows {
		r.Rows = append(r.Rows, *row)
	}
	order := map[string]int{Gold: 0}
	for i, m := range append(append([]string{}, ResultMutations...), SQLMutations...) {
		order[m] = i + 1
	}
	sort.Slice(r.Rows, func(i, j int) bool {
		a, b := r.Rows[i], r.Rows[j]
		if a.Mutation != b.Mutation {
			return order[a.Mutation] < order[b.Mutation]
		}
		if a.Tree != b.Tree {
			return a.Tree > b.Tree // results before sql
		}
		return a.Kind < b.Kind
	})
	r.Answers = answers
	sortFailures(r.GoldFailures)
	sortFailures(r.Missed)
	sort.Slice(r.Lint, func(i, j int) bool {
		if r.Lint[i].Task != r.Lint[j].Task {
			return r.Lint[i].Task < r.Lint[j].Task
		}
		return r.Lint[i].Leaf < r.Lint[j].Leaf
	})
	return r
}

func sortFailures(fs []Failure) {
	sort.Slice(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Variant != b.Variant {
			return a.Variant < b.Variant
		}
		if a.Task != b.Task {
			return a.Task < b.Task
		}
		if a.Tree != b.Tree {
			return a.Tree < b.Tree
		}
		return a.Leaf < b.Leaf
	})
}

type rowKey struct{ mutation, tree, kind string }
