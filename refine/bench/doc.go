// Package bench reads the benchmark config that clinsql run takes:
// everything a benchmark of many models needs, from generation to the
// report (see [Config] for the file's fields).
//
// [Load] reads and checks a config and the models file it names, resolves
// every path against the config's folder and fills the defaults; every
// problem is reported at once, each naming the file and field
// (llm.ConfigError). [Config.Engine] gives the engine's configuration as
// package executor/engine opens it; [Config.JudgeSpec] the judge setting.
package bench
