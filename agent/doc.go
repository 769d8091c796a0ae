// Package agent is the loop that puts strata's layers to work: it sends the conversation to a
// model (package llm), runs the tools the model calls, and repeats until the model stops,
// while every memory layer feeds the requests.
//
// # A turn
//
// Run takes one user message. The message is appended to the history and the transcript, and
// recall starts in a goroutine the Agent owns (its result is a future). Then, until the model
// stops or the turn limit is reached: a request is built, streamed (text deltas, tool starts
// and ends, usage and retries go to the caller's Sink as they happen), the tool calls of the
// reply are checked against the permissions and run in order, and their results are appended.
// Recall never delays a request: at every request boundary a finished recall is injected as an
// attachment; one that is not finished is looked at again at the next boundary.
//
// # What a request holds, and why it stays cacheable
//
// System blocks: the system prompt (with the environment frozen at session start), then the
// instruction block rendered once at session start (managed, user and project instructions and
// the MEMORY.md index as the automem layer). Then the tools, in a fixed order with fixed
// descriptions. Then the history, append-only. Nothing that changes during a session is ever
// written into an earlier position: newly applicable rules and nested instruction files (from
// instructions.Set.Touch on every file a tool reads, writes, edits or finds), recalled memories
// and notes are appended as attachments (isMeta user messages) at the tail. Consecutive
// messages of one role are merged into one when the request is built, deterministically, so
// each request is the previous one plus a tail. Cache markers sit on the last system block,
// on the tail of the previous request and on the new tail (Anthropic; OpenAI-compatible servers
// cache prefixes on their own).
//
// # Tools
//
// Read, Write, Edit, Glob, Grep, Bash, TodoWrite, memory_save, memory_forget and
// memory_search, each described by an embedded markdown file (tools/*.md). Every input is
// decoded once by toolcall.Decode (validated against the tool's schema: unknown keys and keys
// given twice in any letter case are refused), and that value is what permissions check and
// the tool runs; tools get a narrow environment, a fork a restricted one. Read feeds the
// read cache (conversation.ReadCache): an identical re-read of an unchanged file returns the
// "unchanged" stub; Write and Edit are refused on a file that was not read, was seen only in
// part, or changed on disk since. Instruction text and memories the engine injects are recorded
// as partial views, so the model must Read such a file before editing it.
//
// # Permissions
//
// Modes: ask (default; writes and shell commands need the Approver's yes), accept-edits (file
// edits allowed, shell still asks) and bypass (everything allowed). Patterns from settings
// (permissions.allow / permissions.deny) and Options add to the mode: "Bash(go test:*)" allows
// a command prefix, "Edit(src/**)" a path glob, "Read" a whole tool; a deny pattern always wins.
// Reads (Read, Glob, Grep, memory_search) and TodoWrite are allowed unless denied. The memory
// tools write only strata's own memory store (atomic, secret-checked) and are allowed unless
// denied. With no Approver (strata run), whatever would need a yes is denied, and the model is
// told so in an is_error tool result that names the pattern that would allow it.
//
// An Approver answers yes, no (optionally with Feedback, which goes back to the model in the
// tool result) or "yes, and don't ask again": the request names beforehand what that allows
// (PermissionRequest.Always, derived by AlwaysRule through internal/shell): for one simple
// shell command a prefix rule where the table of programs knows it, else the exact command,
// which holds for the session and is saved to the project's
// .claude/settings.local.json together with the user's approval of it under STRATA_HOME
// (config.Env.ApproveLocalRule), so later sessions honour it; for edits, every edit for the
// rest of the session. The user's own "!" commands (Shell) and "@" file mentions (ReadFile) go
// through the same tools and checks.
//
// # Usage
//
// Every model call of the session is counted by kind (Usage): the conversation, recall
// selection, extraction, session notes, compaction and auto-dream each get their provider
// wrapped by llm.Metered, with the cost where llm.PriceOf knows the model's price.
//
// # Cancellation and consistency
//
// Cancelling Run's context stops the stream or the running tool. The history and the
// transcript stay consistent: every tool_use the model sent gets a tool_result (an interrupted
// one says so, with is_error), and the transcript is flushed and synced with a context that
// outlives the cancelled one. The transcript can always be loaded and resumed afterwards.
//
// # Compaction
//
// The context's size (ContextLevel) is the provider's usage reported for the last request plus
// an estimate of what was appended since; an estimate throughout only while no usage was
// reported. Each reply's usage is kept on its history entry and written to the transcript as
// message.usage. Past compact's automatic threshold the agent compacts before the next
// request: compact.Run decides from values (history, notes, budgets, what to re-inject), and
// the agent applies the result only after a success — instructions and the memory index
// re-read from disk, read cache refilled, recall reset, transcript written, count restarted.
//
// # Resume
//
// Options.Resume (a session id or prefix) or Options.Continue (the newest session of the
// working directory) rebuilds the chain from the transcript (with each reply's reported usage),
// the todos and tasks (from the work-state entries strata writes, else the last TodoWrite) and
// the read cache (from the Read, Write and Edit calls whose files did not change since), and
// continues the same file. The chain is rebuilt as Claude Code's loader rebuilds it (parallel
// tool calls recovered, progress lines bridged: transcript.BuildChain); calls the session ended
// without answering (a crash) get an interrupted error result, written to the transcript.
//
// # Requests
//
// The messages of every request (the main loop's, and the history a fork starts from) are
// built by one function: the history's messages merged where one role follows itself, then
// conversation.Repair, so a damaged or interrupted conversation is never sent broken. What a repair changed is reported once, as a
// warning.
//
// Every goroutine the Agent starts is waited for by Close.
package agent
