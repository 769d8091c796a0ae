// Package fastio holds strata's file-system fast paths in one place: reading a directory in
// one pass and stat-ing its entries relative to it, opening files without the runtime
// poller's set-up, reading them with pread, and resolving a directory with one system call.
// Listing transcripts, building the recall index and loading instruction files are bound by
// the count and cost of these calls, and they are what this package makes cheap.
//
// On Linux it uses the golang.org/x/sys/unix wrappers (statx, getdents, openat, openat2,
// pread) and falls back by itself where the kernel or a seccomp filter refuses one (statx →
// fstatat, openat2 → /proc/self/fd → the portable route). On other Unix systems it uses the
// plain open/fstat/pread calls; elsewhere (Windows) package os. Every platform has the same
// API and the same guarantees:
//
//   - Open never blocks on a FIFO or device: on Unix the file is opened non-blocking, elsewhere
//     it is stat-ed first and only a regular file is opened;
//   - with noFollow, a symlink as the last path element is refused (IsSymlinkErr);
//   - errors of probes (Open, Dir.Open, Dir.Type, StatPath) are bare: most probes are of names
//     that do not exist, and the caller knows the path. Test them with errors.Is.
//
// It imports only the standard library and golang.org/x/sys.
package fastio
