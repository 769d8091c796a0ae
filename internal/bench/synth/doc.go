// Package synth writes the synthetic data of strata's benchmarks: memory stores and queries
// (Memories, Queries), transcripts (Session; Parallel, Claude Code 2.1's shape of parallel tool
// calls) and instruction repositories (Repo).
//
// Everything it writes is deterministic for its arguments, so two runs measure the same data
// and a test can compare figures across builds. It is test and benchmark support, not part of
// the library: it imports only the exported API of the packages whose formats it writes, so
// the library's own tests may use it.
package synth
