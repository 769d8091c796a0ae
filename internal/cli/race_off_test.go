//go:build !race

package cli

// raceEnabled is true when the tests run under the race detector, which slows each process ~10×.
const raceEnabled = false
