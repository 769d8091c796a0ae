package agent

import "context"

// StoreSync syncs memory stores in the background while a session runs; memsync.Background
// implements it (the agent does not import memsync: whoever builds the Options picks the
// stores). None of its methods may block a turn.
type StoreSync interface {
	// Start begins the session's syncing (every store once); report receives one line per
	// failure, from any goroutine.
	Start(report func(line string))
	// Nudge says a turn ended, so a store may have been written; it returns at once.
	Nudge()
	// Close runs the syncs still due within ctx and waits for the background work.
	Close(ctx context.Context) error
}
