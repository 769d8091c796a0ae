// Package bench holds the measurements behind `strata bench`: the recall ranker's quality on
// eval sets (LoadEvalSet, Evaluate, Score) and its speed on a synthetic store (RecallSpeed),
// the MCP server's search latency over a pipe (PipeSearch) and under concurrent HTTP
// clients (HTTPLoad), and the wall time of whole strata processes against a hello-world Go
// binary (Startup). Its Go benchmarks (go test -bench) time the instruction loader,
// the recall ranker and transcripts on the data of package synth.
//
// It reaches the library only through its exported API, and it is not part of the library: no
// library package imports it. Figures are wall-clock milliseconds unless a name says
// otherwise; every percentile is the nearest rank of the sorted timings.
package bench
