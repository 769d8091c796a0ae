package compact

import "github.com/strata-mem/strata/conversation"

// PostCompactDivisor sets the size a compaction aims for: the whole context afterwards (the
// request prefix, the summary, the carried user messages, the kept tail, the re-injected files,
// rules, todos and tasks) is at most the automatic threshold divided by it. The turns until the
// next automatic compaction grow with what is left between the two, so a compaction to half
// the threshold leaves as much room as it keeps. Measured on the scripted 60-turn session of
// 900-token messages in a 30K window (agent's TestCompactionUnderPressure): with half, the
// prefix (3.9K tokens), the pinned first request and the latest message fit (5.9K of 7.5K) and
// the session compacts 6 times; with a third or a quarter the session still compacts 6 times,
// since those parts are what remains, but every compaction is over its target and has the
// model condense the first request for nothing.
const PostCompactDivisor = 2

// Budget is what each part of a compacted context may take, in estimated tokens. The shares are
// of the room the target leaves after the request prefix: summary 20 %, pinned user messages
// (the first request and the messages the user pinned) 30 %, other user messages 20 %; re-injected
// files get what the summary's cap, the carried messages, todos, tasks and rules leave of the
// room, up to 40 %. Session-memory compaction keeps a recent tail of KeepMin–KeepMax tokens in
// place of the summary and the recent user messages. Every share is capped by the reference
// system's figure for a 200K window.
type Budget struct {
	// Target is the size of the whole context after compaction: Thresholds.Auto divided by
	// PostCompactDivisor.
	Target int
	// Prefix is the request prefix (system prompt, instructions, tools) the target includes.
	Prefix int
	// Room is Target − Prefix (0 when the prefix alone is over the target).
	Room int
	// Summary caps the model's summary reply (the max_tokens of each summary call).
	Summary int
	// Pinned is for the first request and the pinned messages; over it, they are
	// condensed by the model.
	Pinned int
	// Recent is for the other user messages, most recent first; the latest is kept whole even
	// when it is larger.
	Recent int
	// Files caps the re-injected files in all (they get at most what the rest leaves of Room),
	// FileEach one of them.
	Files, FileEach int
	// KeepMin and KeepMax bound the recent tail session-memory compaction keeps.
	KeepMin, KeepMax int
}

// minSummaryTokens is the smallest summary reply asked for, whatever the window.
const minSummaryTokens = 256

// BudgetFor gives the budget of a compaction for thresholds th and a request prefix of prefix
// tokens. It depends on the window only through th.Auto, so every window from 8K to 1M tokens
// gets shares in proportion; when the prefix alone leaves no room, every share is at its
// floor and the compaction reports that it is over its target (Result.Note).
func BudgetFor(th Thresholds, prefix int) Budget {
	b := Budget{Target: th.Auto / PostCompactDivisor, Prefix: max(prefix, 0)}
	b.Room = max(b.Target-b.Prefix, 0)
	b.Summary = max(min(b.Room/5, 20_000), minSummaryTokens)
	b.Pinned = min(b.Room*3/10, 30_000)
	b.Recent = min(b.Room/5, DefaultUserBudget)
	b.Files = min(b.Room*2/5, conversation.PostCompactTokens)
	b.FileEach = min(conversation.PostCompactFileTokens, b.Files/2)
	b.KeepMax = min(KeepMaxTokens, b.Room/2)
	b.KeepMin = min(KeepMinTokens, b.Room/4)
	return b
}
