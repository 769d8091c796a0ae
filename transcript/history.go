package transcript

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/strata-mem/strata/conversation"
)

// History is the conversation a resume of s continues: the live part of its chain, one entry
// per Turns message (the assistant lines of one reply merged as Claude Code merges them, each
// with the uuid of its newest line and the reply's final usage, parents relinked so the chain
// is contiguous). When the session ended inside tool calls (a crash between a call and its
// result), an entry at now answers them as interrupted; it is returned as repair too, for the
// caller to write. err reports entries that could not be decoded; the rest is returned.
func (s *Session) History(now time.Time) (chain []conversation.Entry, repair *conversation.Entry, err error) {
	turns, err := Turns(s.Live())
	chain = make([]conversation.Entry, 0, len(turns))
	msgs := make([]conversation.Message, 0, len(turns))
	for _, t := range turns {
		if len(t.Content) == 0 {
			continue
		}
		last := t.Last()
		ce := conversation.Entry{UUID: last.UUID, Timestamp: last.Timestamp, IsMeta: t.Entries[0].IsMeta, Message: t.Message}
		if len(t.Entries) == 1 {
			ce.Provenance = last.InputProvenance()
		}
		for _, e := range t.Entries {
			if u := e.Usage(); u != nil {
				ce.Usage = u // each line of a reply repeats its usage; the last is final
			}
		}
		if len(chain) > 0 {
			ce.ParentUUID = chain[len(chain)-1].UUID
		}
		chain = append(chain, ce)
		msgs = append(msgs, ce.Message)
	}
	if open := conversation.OpenCalls(msgs); len(open) > 0 {
		e := conversation.Entry{UUID: NewSessionID(), ParentUUID: chain[len(chain)-1].UUID, Timestamp: now,
			Message: conversation.InterruptedResults(open, "the session ended before this tool call finished")}
		chain = append(chain, e)
		repair = &e
	}
	return chain, repair, err
}

// FileStates are the views of files that the session's successful Read, Write and Edit calls
// left, most recent first: what a resumed read cache starts from.
func (s *Session) FileStates() []conversation.FileState {
	var states []conversation.FileState
	for _, tu := range s.ToolUses("Read", "Write", "Edit") {
		if tu.Result == nil || tu.IsError {
			continue
		}
		if st, ok, err := conversation.FileStateFromToolUse(tu.Name, tu.Input, tu.Result.Timestamp); err == nil && ok {
			states = append([]conversation.FileState{st}, states...)
		}
	}
	return states
}

// MessageEntry is the transcript line of a history entry: a user or assistant message with
// its usage and provenance.
func MessageEntry(e conversation.Entry) (*Entry, error) {
	raw, err := EncodeMessage(e.Message, e.Usage)
	if err != nil {
		return nil, err
	}
	typ := TypeUser
	if e.Message.Role == conversation.Assistant {
		typ = TypeAssistant
	}
	te := &Entry{Type: typ, UUID: e.UUID, ParentUUID: e.ParentUUID, Timestamp: e.Timestamp, Message: raw, IsMeta: e.IsMeta}
	if !e.Provenance.IsZero() {
		te.Provenance, _ = json.Marshal(e.Provenance) // plain fields: never fails
	}
	return te, nil
}

// Probe tells, before anything is written, whether a transcript at path could be created: the
// nearest existing directory on its way must take a new file (tried with a temp file, removed
// at once). Nothing else is created, so a session without messages leaves no trace; an
// existing transcript is not probed (opening it for appending already worked).
func Probe(path string) error {
	if _, err := os.Lstat(path); err == nil {
		return nil
	}
	dir := filepath.Dir(path)
	for {
		fi, err := os.Stat(dir)
		if err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("transcript: %s is not a directory", dir)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("transcript: %w", err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return fmt.Errorf("transcript: %w", err)
		}
		dir = parent
	}
	f, err := os.CreateTemp(dir, ".strata-probe-*")
	if err != nil {
		return fmt.Errorf("transcript: cannot create files in %s: %w", dir, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}
