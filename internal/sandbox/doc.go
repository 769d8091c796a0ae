// Package sandbox runs a command confined by the operating system: on Linux, a Landlock domain
// that may write only the trees a Policy names, optionally cannot open TCP connections, and
// gets only the environment the Policy gives it; in a new user and mount namespace, when the
// kernel allows one, the Policy's read-only trees inside its writable ones (a project's .git
// and .claude) are bind-mounted read-only first, because Landlock's rules only add access and
// a writable directory makes everything under it writable.
//
// Landlock restricts the process that asks and its children, never its parent, so strata does
// not confine itself: Command starts strata's own binary (os.Executable) as a helper that
// builds the namespace, applies the domain and then replaces itself with the command. A binary
// offers the helper by calling Main first thing in main (tests: in TestMain); a binary that
// does not (another package's test binary) is reported unavailable rather than re-run.
//
// Guarantees, where Probe reports Landlock: a write, create, remove, rename or truncate outside
// Policy.Write fails in the kernel with EACCES, and so does a TCP connect or bind with
// Policy.Network off (ABI 4 and later); signals and abstract UNIX sockets cannot reach
// processes outside the domain (ABI 6 and later). With namespaces, a write under
// Policy.ReadOnly fails with EROFS. Reads and execution are allowed everywhere. Nothing holds
// where Probe reports Landlock missing: Command then returns ErrUnavailable and the caller
// falls back to its own checks.
package sandbox
