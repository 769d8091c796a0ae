// Package sandbox runs a command confined by the operating system: on Linux a Landlock domain
// that writes only where a Policy says, optionally without TCP, with the Policy's environment,
// and, where a user and mount namespace is allowed, the Policy's read-only trees inside its
// writable ones (a project's .git and .claude) bind-mounted read-only first.
//
//   - strata never confines itself: Command starts strata's own binary as a helper that builds
//     the namespace, applies the domain and execs the command. A binary offers the helper by
//     calling Main first in main (tests: TestMain); one that does not is reported unavailable.
//   - Where Probe reports Landlock: a write, create, remove, rename or truncate outside
//     Policy.Write fails with EACCES, and TCP connect and bind with Policy.Network off (ABI 4+);
//     signals and abstract sockets cannot leave the domain (ABI 6+); with namespaces a write
//     under Policy.ReadOnly fails with EROFS. Reads and execution are allowed everywhere.
//   - Where Landlock is missing nothing holds: Command returns ErrUnavailable and the caller
//     falls back to its own checks.
package sandbox
