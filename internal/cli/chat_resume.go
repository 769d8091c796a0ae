package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/internal/termtext"
	"github.com/strata-mem/strata/transcript"
)

// MinIDPrefix is the shortest id prefix /resume shows: UUIDv7 ids begin with their time, so
// sessions started close together share their first characters and need more.
const MinIDPrefix = 8

// ResumeChoice is one session a /resume list or picker offers.
type ResumeChoice struct {
	ID string
	// Prefix is the shortest prefix of ID (at least MinIDPrefix characters) that no other
	// session of the directory shares: typing it resumes this session.
	Prefix string
	// Title is the session's title as a list shows it (transcript.Info.Label), made safe for
	// the terminal and cut to one line; "" when it has none.
	Title string
	// Time is the session's last activity.
	Time time.Time
	// Messages counts the user and assistant messages of the transcript (injected ones and
	// sidechains left out).
	Messages int
	Path     string
}

// ResumeChoices lists the sessions of the working directory cwd, newest first, at most limit
// (0: all), for /resume. Prefixes are unique among every session of the directory, listed or
// not, so a shown prefix never turns out ambiguous. A transcript that could not be listed is
// left out and reported in the error, next to the choices that could.
func ResumeChoices(ctx context.Context, env config.Env, cwd string, limit int) ([]ResumeChoice, error) {
	dir := transcript.ProjectDir(env, cwd)
	infos, err := transcript.List(ctx, dir, transcript.ListOptions{Index: listIndexPath(dir)})
	ids := make([]string, len(infos))
	for i, in := range infos {
		ids[i] = in.ID
	}
	prefixes := UniquePrefixes(ids, MinIDPrefix)
	if limit > 0 && len(infos) > limit {
		infos = infos[:limit]
	}
	out := make([]ResumeChoice, len(infos))
	for i, in := range infos {
		out[i] = ResumeChoice{ID: in.ID, Prefix: prefixes[i], Title: termtext.Line(in.Label()),
			Time: in.LastActivity, Messages: countMessages(in.Path), Path: in.Path}
	}
	return out, err
}

// UniquePrefixes returns for each id its shortest prefix of at least min characters that
// no other id in ids begins with (the whole id when another id begins with all of it).
func UniquePrefixes(ids []string, min int) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		n := min
		for j, other := range ids {
			if j == i || other == id {
				continue
			}
			common := 0
			for common < len(id) && common < len(other) && id[common] == other[common] {
				common++
			}
			n = max(n, common+1)
		}
		out[i] = id[:clampLen(n, len(id))]
	}
	return out
}

func clampLen(n, l int) int {
	if n > l {
		return l
	}
	return n
}

// countMessages counts the user and assistant lines of a transcript that are neither
// injected (isMeta) nor on a sidechain; 0 when it cannot be read.
func countMessages(path string) int {
	f, _, err := fsutil.OpenRegular(path, 256<<20)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	n := 0
	for sc.Scan() {
		var e struct {
			Type      string `json:"type"`
			IsMeta    bool   `json:"isMeta"`
			Sidechain bool   `json:"isSidechain"`
		}
		if json.Unmarshal(sc.Bytes(), &e) == nil && (e.Type == "user" || e.Type == "assistant") && !e.IsMeta && !e.Sidechain {
			n++
		}
	}
	return n
}

// ResumeLines renders choices for the line mode's /resume: prefix, time, message count and
// title, one session a line, the titles' column aligned whatever the prefixes' lengths.
func ResumeLines(choices []ResumeChoice) []string {
	w := MinIDPrefix
	for _, c := range choices {
		w = max(w, len(c.Prefix))
	}
	out := make([]string, len(choices))
	for i, c := range choices {
		title := c.Title
		if title == "" {
			title = "(untitled)"
		}
		out[i] = fmt.Sprintf("  %s  %s  %4d msgs  %s", termtext.Pad(c.Prefix, w), c.Time.Local().Format("2006-01-02 15:04"), c.Messages, termtext.Truncate(title, 70))
	}
	return out
}

// RecentTurns renders the last n user messages of a conversation and what followed each, as
// text for the screen after a resume: "› " before the user's words, the assistant's text as it
// is, each tool call as one "· Tool summary" line; injected messages and tool results are left
// out. Text the model or a file wrote is made safe for the terminal.
func RecentTurns(entries []conversation.Entry, n int) string {
	if n <= 0 {
		return ""
	}
	var b strings.Builder
	for _, e := range entries[recentStart(entries, n):] {
		if e.IsMeta {
			continue
		}
		m := e.Message
		switch m.Role {
		case conversation.User:
			if isUserTurn(e) {
				fmt.Fprintf(&b, "› %s\n", strings.TrimSpace(termtext.Clean(userText(m))))
			}
		case conversation.Assistant:
			for _, bl := range m.Content {
				switch bl.Type {
				case conversation.Text:
					if t := strings.TrimSpace(bl.Text); t != "" {
						fmt.Fprintf(&b, "%s\n", termtext.Clean(t))
					}
				case conversation.ToolUse:
					fmt.Fprintf(&b, "· %s %s\n", bl.Name, termtext.Line(firstLine(string(bl.Input), 100)))
				}
			}
		}
	}
	return b.String()
}

// recentStart is the index where the last n user turns of a conversation begin: what a resume
// shows again, in the line mode (RecentTurns) and the UI.
func recentStart(entries []conversation.Entry, n int) int {
	start, users := len(entries), 0
	for i := len(entries) - 1; i >= 0 && users < n; i-- {
		if isUserTurn(entries[i]) {
			users++
			start = i
		}
	}
	return start
}

// isUserTurn reports whether e is a message the user typed (not injected, not only tool
// results).
func isUserTurn(e conversation.Entry) bool {
	return !e.IsMeta && e.Message.Role == conversation.User && strings.TrimSpace(userText(e.Message)) != ""
}

// userText is the text blocks of a user message, tool results left out.
func userText(m conversation.Message) string {
	var parts []string
	for _, b := range m.Content {
		if b.Type == conversation.Text {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}
