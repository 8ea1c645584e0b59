// Command labelcards draws the leaves people label, renders their cards
// and merges the filled labels into a label set (issue 27). It is a
// development tool, not a clinsql subcommand.
//
//	labelcards draw  [-shared DIR] [-out FILE] [-force]
//	labelcards cards [-shared DIR] [-sample FILE] [-out DIR]
//	labelcards merge [-shared DIR] [-sample FILE] [-out FILE] [-partial] LABELS.jsonl ...
//
// draw draws the sample from the 16 released validation runs
// (labelsample.DefaultPlan) and writes it, blank, in labelset's format,
// with a table of its strata beside it; it refuses to replace a draw
// (the committed one is what the cards and the labels refer to) unless
// -force. cards renders one card per drawn leaf into batches under DIR,
// which must lie outside any git repository (cards hold licensed data).
// merge checks labellers' filled templates (labelset's strict reader; no
// rationale may repeat CopyRun words of the leaf's rubric texts or the
// question) and writes the label set with the draw's fields; it fails
// when a drawn leaf is not labelled yet, unless -partial.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/clinsql/clinsql/agreement/labelcard"
	"github.com/clinsql/clinsql/agreement/labelsample"
	"github.com/clinsql/clinsql/agreement/labelset"
	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/datasets/released"
	"github.com/clinsql/clinsql/internal/atomicfile"
	"github.com/clinsql/clinsql/internal/shared"
	"github.com/clinsql/clinsql/runfolder"
)

func main() { os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr)) }

// DefaultSample is the committed draw, relative to the repository root.
const DefaultSample = "agreement/labelsample/draw/validation.jsonl"

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: labelcards draw|cards|merge [flags]")
		return 2
	}
	var err error
	switch args[0] {
	case "draw":
		err = draw(args[1:], stdout)
	case "cards":
		err = cards(args[1:], stdout)
	case "merge":
		err = merge(args[1:], stdout, stderr)
	default:
		err = fmt.Errorf("unknown command %q: want draw, cards or merge", args[0])
	}
	if err != nil {
		fmt.Fprintln(stderr, "labelcards:", err)
		if errors.Is(err, flag.ErrHelp) {
			return 2
		}
		return 1
	}
	return 0
}

func sharedDir() string {
	dir, _ := shared.Dir()
	return dir
}

func draw(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("draw", flag.ContinueOnError)
	data := fs.String("shared", sharedDir(), "the shared data folder (holding clinsql-data)")
	out := fs.String("out", DefaultSample, "the draw to write")
	force := fs.Bool("force", false, "replace an existing draw")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if _, err := os.Stat(*out); err == nil && !*force {
		return fmt.Errorf("%s exists: the cards and labels refer to it; -force draws anew", *out)
	}
	tasks, models, err := released.Open(filepath.Join(*data, "clinsql-data"))
	if err != nil {
		return err
	}
	cands, err := labelsample.Candidates(tasks, models)
	if err != nil {
		return err
	}
	plan := labelsample.DefaultPlan
	labels, strata := labelsample.Draw(cands, plan)
	labels = labelsample.Order(labels, plan.Seed)
	var b bytes.Buffer
	if err := labelset.Write(&b, labels, true); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		return err
	}
	if err := atomicfile.Write(*out, b.Bytes()); err != nil {
		return err
	}
	var st bytes.Buffer
	writeStrata(&st, strata)
	tsv := strings.TrimSuffix(*out, filepath.Ext(*out)) + "-strata.tsv"
	if err := atomicfile.Write(tsv, st.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d leaves drawn (seed %d) to %s; strata in %s\n", len(labels), plan.Seed, *out, tsv)
	return writeGroups(stdout, strata)
}

// writeStrata writes every stratum: class, group, model, population,
// drawn.
func writeStrata(w io.Writer, strata []labelsample.Stratum) {
	fmt.Fprintln(w, "class\tgroup\tmodel\tpopulation\tdrawn")
	for _, s := range strata {
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%d\n", s.Class, s.Group, s.Model, s.Population, s.Drawn)
	}
}

// writeGroups prints the strata summed over models.
func writeGroups(w io.Writer, strata []labelsample.Stratum) error {
	type g struct{ class, group string }
	var order []g
	pop, drawn, models := map[g]int{}, map[g]int{}, map[g]int{}
	for _, s := range strata {
		k := g{s.Class, s.Group}
		if _, ok := pop[k]; !ok {
			order = append(order, k)
		}
		pop[k] += s.Population
		drawn[k] += s.Drawn
		if s.Drawn > 0 {
			models[k]++
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "class\tgroup\tpopulation\tdrawn\tmodels drawn from\t")
	var total, totalPop int
	for _, k := range order {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t\n", k.class, k.group, pop[k], drawn[k], models[k])
		total += drawn[k]
		totalPop += pop[k]
	}
	fmt.Fprintf(tw, "all\t\t%d\t%d\t\t\n", totalPop, total)
	return tw.Flush()
}

// source finds a card's task and answer in the released data.
type source struct {
	tasks   map[datasets.Key]*datasets.Task
	outputs map[string]map[datasets.Key]*runfolder.Output
}

func openSource(data string) (*source, error) {
	tasks, models, err := released.Open(filepath.Join(data, "clinsql-data"))
	if err != nil {
		return nil, err
	}
	s := &source{tasks: tasks, outputs: map[string]map[datasets.Key]*runfolder.Output{}}
	for _, m := range models {
		byKey := map[datasets.Key]*runfolder.Output{}
		for _, o := range m.Outputs {
			byKey[o.Key] = o
		}
		s.outputs[m.Name] = byKey
	}
	return s, nil
}

func (s *source) Entry(l labelset.Label) (labelcard.Entry, error) {
	t := s.tasks[l.Key]
	o := s.outputs[l.Model][l.Key]
	if t == nil || o == nil {
		return labelcard.Entry{}, fmt.Errorf("card %s: no answer of %s to %s in the released data", l.Card, l.Model, l.Key)
	}
	return labelcard.Entry{Label: l, Task: t, Output: o}, nil
}

func readSample(path string) ([]labelset.Label, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	labels, err := labelset.Read(f, path, labelset.ReadOptions{Template: true})
	if err != nil {
		return nil, err
	}
	for i, l := range labels {
		if l.Blind() || l.Card == "" || l.Label != "" {
			return nil, fmt.Errorf("%s:%d: not a draw (want the draw's fields and a card, no label)", path, i+1)
		}
	}
	return labels, nil
}

func cards(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("cards", flag.ContinueOnError)
	data := fs.String("shared", sharedDir(), "the shared data folder (holding clinsql-data)")
	sample := fs.String("sample", DefaultSample, "the draw")
	out := fs.String("out", "", "the folder for the batches, outside any git repository")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("-out is required: a folder outside the repository (cards hold licensed data)")
	}
	abs, err := filepath.Abs(*out)
	if err != nil {
		return err
	}
	if repo := insideRepository(abs); repo != "" {
		return fmt.Errorf("%s lies inside the git repository %s: cards hold licensed data and are never committed", abs, repo)
	}
	labels, err := readSample(*sample)
	if err != nil {
		return err
	}
	src, err := openSource(*data)
	if err != nil {
		return err
	}
	counts, err := labelcard.WriteBatches(abs, labels, src, labelcard.DefaultBounds)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(abs, "README.md"), []byte(labelcard.Instructions(counts))); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d cards in %d batches under %s:", len(labels), len(counts), abs)
	for i, n := range counts {
		fmt.Fprintf(stdout, " %s %d", labelcard.BatchName(i), n)
		if i%6 == 5 {
			fmt.Fprint(stdout, "\n ")
		}
	}
	fmt.Fprintln(stdout)
	return nil
}

// insideRepository returns the git working tree holding dir, "" if none:
// the nearest ancestor (dir included) with a .git entry.
func insideRepository(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

func merge(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	data := fs.String("shared", sharedDir(), "the shared data folder (holding clinsql-data)")
	sample := fs.String("sample", DefaultSample, "the draw")
	out := fs.String("out", "", "the label set to write")
	partial := fs.Bool("partial", false, "write the labelled leaves although some are not labelled yet")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() == 0 {
		return errors.New("usage: labelcards merge -out FILE LABELS.jsonl ...")
	}
	labels, err := readSample(*sample)
	if err != nil {
		return err
	}
	tasks, err := datasets.LoadClinSQL(filepath.Join(*data, "clinsql-data", "data", "splits", "validation"))
	if err != nil {
		return err
	}
	byKey := map[datasets.Key]*datasets.Task{}
	for _, t := range tasks {
		byKey[t.Key] = t
	}
	var filled [][]labelset.Label
	var errs []error
	for _, path := range fs.Args() {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		ls, err := labelset.Read(f, path, labelset.ReadOptions{Template: true})
		f.Close()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for i, l := range ls {
			t := byKey[l.Key]
			if t == nil {
				errs = append(errs, fmt.Errorf("%s:%d: no task %s", path, i+1, l.Key))
				continue
			}
			if err := labelset.OwnWords(t, &l); err != nil {
				errs = append(errs, fmt.Errorf("%s:%d: field \"rationale\": %v", path, i+1, err))
			}
		}
		filled = append(filled, ls)
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	merged, blank, err := labelset.Merge(labels, filled...)
	if err != nil {
		return err
	}
	if len(blank) > 0 && !*partial {
		return fmt.Errorf("%d of %d drawn leaves are not labelled yet (first: card %s); -partial writes the others", len(blank), len(labels), blank[0].Card)
	}
	var b bytes.Buffer
	if err := labelset.Write(&b, merged, false); err != nil {
		return err
	}
	if err := atomicfile.Write(*out, b.Bytes()); err != nil {
		return err
	}
	counts := map[string]int{}
	for _, l := range merged {
		counts[l.Label]++
	}
	fmt.Fprintf(stdout, "%d labels written to %s (pass %d, fail %d, arguable %d); %d not labelled yet\n", len(merged), *out,
		counts[labelset.Pass], counts[labelset.Fail], counts[labelset.Arguable], len(blank))
	return nil
}
