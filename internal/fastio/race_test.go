//go:build race

package fastio

// raceEnabled: under the race detector sync.Pool drops some of what is put back, so the
// pooled path buffers allocate now and then and allocation counts say nothing.
const raceEnabled = true
