//go:build !race

package mcpserver

// raceEnabled is true when the tests run under the race detector, which slows calls ~10×.
const raceEnabled = false
