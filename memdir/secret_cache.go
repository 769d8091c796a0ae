package memdir

import (
	"slices"
	"strings"
	"sync"
)

// Bounds of the cache of ScanSecrets. Texts shorter than secretCacheMin bytes are scanned
// every time (a line that short costs less to scan than to look up); a text of a few lines
// already costs ten times its lookup, and an instruction load meets many (a short CLAUDE.md in
// each directory). The cache is emptied when the texts it keeps, each counted with
// secretEntryBytes for its entry, would pass secretCacheBytes, so a process never holds more
// than that.
const (
	secretCacheMin   = 64
	secretEntryBytes = 64
	secretCacheBytes = 4 << 20
)

// scanCache is the process's cache of ScanSecrets.
var scanCache secretCache

// secretCache maps texts to their findings. It is keyed by the whole text, not by a file's
// identity or a hash: a text that changed by one byte is a different key, so nothing needs
// invalidating and no two texts can share an answer.
type secretCache struct {
	mu    sync.Mutex
	found map[string][]SecretFinding // nil findings for a clean text
	bytes int                        // the length of the keys, and secretEntryBytes for each
	hits  int                        // for tests: answers given without a scan
}

// scan returns scanSecrets(text), from the cache when text was scanned before.
func (c *secretCache) scan(text string) []SecretFinding {
	if len(text) < secretCacheMin || len(text) > secretCacheBytes {
		return scanSecrets(text)
	}
	c.mu.Lock()
	found, ok := c.found[text]
	if ok {
		c.hits++
	}
	c.mu.Unlock()
	if ok {
		return slices.Clone(found)
	}
	found = scanSecrets(text)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.found[text]; ok {
		return found // another goroutine scanned it meanwhile
	}
	if c.found == nil || c.bytes+len(text)+secretEntryBytes > secretCacheBytes {
		c.found, c.bytes = make(map[string][]SecretFinding), 0
	}
	// The key is copied: callers may pass a view of a buffer they reuse.
	c.found[strings.Clone(text)] = slices.Clone(found)
	c.bytes += len(text) + secretEntryBytes
	return found
}
