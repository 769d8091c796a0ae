// Package memdir is layer 3b, the auto-memory store: a directory of markdown topic files with
// YAML frontmatter and a MEMORY.md index, one directory per project.
package memdir
