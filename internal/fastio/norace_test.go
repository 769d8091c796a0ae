//go:build !race

package fastio

const raceEnabled = false
