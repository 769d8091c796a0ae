package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/strata-mem/strata/compact"
	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/extract"
	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/tokens"
	"github.com/strata-mem/strata/transcript"
	"github.com/strata-mem/strata/workspace"
)

// pinCommand is the plugin's slash command that pins a message in Claude Code: what follows it
// is carried across compactions as strata chat's /pin is.
const pinCommand = "/strata:pin"

// carried is what a compaction must not lose: compact.Pinned's messages.
type carried struct {
	First  string   `json:"first"`
	Pinned []string `json:"pinned"`
}

// sessionID is a Claude Code session id as strata accepts it in a file name.
var sessionID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]{0,99}$`) })

// carriedPath is where PreCompact records a session's carried messages.
func carriedPath(app *App, id string) (string, error) {
	if !sessionID().MatchString(id) {
		return "", fmt.Errorf("session id %q is not one strata can name a file after", id)
	}
	return filepath.Join(app.Env.Home, "claude-code", "compact", id+".json"), nil
}

// readCarried reads the first request and pinned messages of a Claude Code transcript, from
// the whole file (it keeps what came before each compaction).
func readCarried(ctx context.Context, path string) (carried, error) {
	f, err := transcript.ReadFile(ctx, path, transcript.ReadOptions{Full: true})
	if err != nil {
		return carried{}, err
	}
	entries := transcript.UserEntries(f.Entries)
	for i, e := range entries {
		text := e.Message.TextOf()
		if rest, ok := strings.CutPrefix(text, pinCommand+" "); ok {
			entries[i].Message = conversation.NewText(conversation.User, rest)
			entries[i].Provenance = conversation.Provenance{Pinned: true}
		}
	}
	first, pinned := compact.Pinned(entries)
	return carried{First: first, Pinned: pinned}, nil
}

// hookPreCompact records what SessionStart will carry, read before Claude Code compacts.
func hookPreCompact(ctx context.Context, app *App, in hookInput) error {
	if in.TranscriptPath == "" {
		return errors.New("PreCompact: no transcript_path in the input")
	}
	c, err := readCarried(ctx, in.TranscriptPath)
	if err != nil {
		return err
	}
	path, err := carriedPath(app, in.SessionID)
	if err != nil {
		return err
	}
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return fsutil.WriteFile(path, b, 0o600)
}

// hookCarry answers SessionStart after a compaction: the first request and the pinned
// messages, verbatim, as PreCompact recorded them (else read from the transcript now), the
// newest pinned first while budget tokens last.
func hookCarry(ctx context.Context, app *App, in hookInput, budget int) (string, error) {
	var c carried
	path, err := carriedPath(app, in.SessionID)
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		if err := json.Unmarshal(b, &c); err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
	case errors.Is(err, fs.ErrNotExist) && in.TranscriptPath != "":
		if c, err = readCarried(ctx, in.TranscriptPath); err != nil {
			return "", err
		}
	default:
		return "", err
	}
	return renderCarried(c, budget), nil
}

// renderCarried writes the carried messages, oldest first; the first request always, then the
// newest pinned messages that fit budget tokens, saying how many did not.
func renderCarried(c carried, budget int) string {
	if c.First == "" && len(c.Pinned) == 0 {
		return ""
	}
	msg := func(kind, text string) string {
		return fmt.Sprintf("<user-message kind=%q>\n%s\n</user-message>\n", kind, strings.TrimSpace(text))
	}
	head := "The conversation was just compacted. strata carries these messages of the user across it, verbatim; they still apply:\n\n"
	used := tokens.Estimate(head)
	var first string
	if c.First != "" {
		first = msg("first request", c.First)
		used += tokens.Estimate(first)
	}
	keep := make([]bool, len(c.Pinned))
	left := 0
	for i := len(c.Pinned) - 1; i >= 0; i-- {
		if t := tokens.Estimate(c.Pinned[i]) + 12; used+t <= budget {
			used += t
			keep[i] = true
		} else {
			left++
		}
	}
	var b strings.Builder
	b.WriteString(head + first)
	for i, p := range c.Pinned {
		if keep[i] {
			b.WriteString(msg("pinned", p))
		}
	}
	if left > 0 {
		fmt.Fprintf(&b, "\n(%d older pinned messages did not fit and are left out here; the transcript has them.)\n", left)
	}
	return b.String()
}

// hookGreeting answers SessionStart at start-up, resume or clear: a line when proposed
// memories wait in the inbox, else nothing. It also brings recall's saved index up to date,
// so that the session's first prompt does not pay for building it.
func hookGreeting(ctx context.Context, app *App, env config.Env, in hookInput) (string, error) {
	ws, err := workspace.Open(ctx, workspace.Options{Cwd: in.Cwd, Env: env, Now: app.Now})
	if err != nil || !ws.AutoMemory() {
		return "", err
	}
	store, err := ws.Store()
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(store.Dir()); err == nil {
		rc, err := ws.Recaller(workspace.RecallOptions{NoStats: true})
		if err != nil {
			return "", err
		}
		if _, err := rc.Refresh(ctx); err != nil {
			return "", err
		}
	}
	staged, err := extract.Inbox(ctx, store)
	if err != nil || len(staged) == 0 {
		return "", err
	}
	return fmt.Sprintf("strata: %d proposed memories wait in this project's memory inbox; the user can review them with /strata:inbox.", len(staged)), nil
}
