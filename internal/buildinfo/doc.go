// Package buildinfo says which build of clinsql produced an output: the
// module version and the version-control revision the binary was built
// from, read from the binary itself (runtime/debug.ReadBuildInfo), so no
// build flag can forget to set them.
//
// [Current] returns the [Stamp] that every JSON output file of clinsql
// records (judge_summary.json, the report's report.json, a run folder's
// manifest) and that the Markdown and HTML reports show in their headers.
// A build from a checkout has version "(devel)"; `go build` in a git
// checkout records the revision, its time and whether the tree had
// uncommitted changes (modified); `go test` and `go run` record none.
package buildinfo
