// Package fastio holds strata's file-system fast paths in one place: a directory read in one
// pass with its entries stat-ed relative to it, files opened without the poller's set-up and
// read with pread, a directory resolved in one call; listing transcripts, cold recall builds
// and instruction loads are bound by these calls.
//
//   - Linux uses golang.org/x/sys/unix (statx, getdents, openat2, pread) and falls back by
//     itself where a kernel or seccomp filter refuses one; other Unix systems use plain calls,
//     Windows package os. The API and guarantees are the same everywhere (.ci/run vets the
//     Windows and macOS builds).
//   - Open never blocks on a FIFO or device (non-blocking on Unix; elsewhere only a regular
//     file is opened); with noFollow a final symlink is refused (IsSymlinkErr).
//   - Probe errors (Open, Dir.Open, Dir.Type, StatPath) are bare, for errors.Is: most probes
//     are of names that do not exist, and the caller knows the path.
package fastio
