package runfolder

import (
	"fmt"
	"sort"
)

// ReExecution describes a run that re-executed a recorded run's SQL
// (clinsql exec --run) rather than asking a model: what the run itself
// says of it.
type ReExecution struct {
	// RecordedModel is the model whose SQL was re-executed ("" when
	// unknown); RecordedRun the recorded run's folder as the manifest
	// records it ("" without a manifest, or one written before clinsql
	// recorded it).
	RecordedModel, RecordedRun string
	// Engine is the engine the queries ran on again.
	Engine string
	// Evidence says what shows the run is a re-execution, for messages.
	Evidence string
}

// ReExecution reports whether the run re-executed a recorded run's SQL,
// from its manifest or, without one, from its own task summaries: a
// single answer whose query came from a recorded run (an attempt of
// request "recorded", the recorded outcome kept beside it) makes the run a
// re-execution, so that removing manifest.json, or reading the run
// through its split folder, never turns it into the run it re-executed.
// nil when nothing says so (a released run, a generated one).
func (r *Run) ReExecution() *ReExecution {
	var x *ReExecution
	if m := r.Manifest; m != nil && (m.RecordedModel != "" || m.Command == "exec --run") {
		x = &ReExecution{RecordedModel: m.RecordedModel, RecordedRun: m.RecordedRun, Engine: m.Engine.Name,
			Evidence: fmt.Sprintf("%s (%s)", ManifestFile, m.Command)}
	}
	n := 0
	models := map[string]int{}
	engines := map[string]int{}
	for _, o := range r.Outputs {
		if !o.ReExecuted {
			continue
		}
		n++
		if o.RecordedAnswer != nil && o.RecordedAnswer.Model != "" {
			models[o.RecordedAnswer.Model]++
		}
		if o.Engine != "" {
			engines[o.Engine]++
		}
	}
	if n == 0 {
		return x
	}
	if x == nil {
		x = &ReExecution{RecordedModel: majority(models), Engine: majority(engines),
			Evidence: fmt.Sprintf("%d of %d task summaries (attempts of request %q)", n, len(r.Outputs), RequestRecorded)}
	}
	if x.Engine == "" {
		x.Engine = majority(engines)
	}
	if x.Engine == "" {
		x.Engine = "an unrecorded engine"
	}
	return x
}

// EngineRecord is what the run says about the engine its answers ran on:
// the manifest's, else, for a run clinsql wrote whose manifest is gone,
// the engine its task summaries name (no database facts: unknown, never
// guessed); nil for a run that says nothing (a released run).
func (r *Run) EngineRecord() *Engine {
	if r.Manifest != nil {
		e := r.Manifest.Engine
		return &e
	}
	engines := map[string]int{}
	sem := map[string]int{}
	for _, o := range r.Outputs {
		if o.Engine != "" {
			engines[o.Engine]++
			sem[o.EngineSemantics]++
		}
	}
	if len(engines) == 0 {
		return nil
	}
	return &Engine{Name: majority(engines), Semantics: majority(sem)}
}

// majority is the most frequent key (ties to the first in order), "" for
// none.
func majority(n map[string]int) string {
	keys := make([]string, 0, len(n))
	for k := range n {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	best := ""
	for _, k := range keys {
		if best == "" || n[k] > n[best] {
			best = k
		}
	}
	return best
}
