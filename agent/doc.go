// Package agent is the loop that puts strata's layers to work: it sends the conversation to a
// model, runs the tools the model calls, and repeats until the model stops.
//
//   - A turn: Run appends the user's message to the history and the transcript and starts
//     recall in the background; then, until the model stops or the turn limit, a request is
//     built and streamed (events to the caller's Sink as they happen), the reply's tool calls
//     are checked and run in order, and their results appended. Recall never delays a
//     request: a finished recall is injected at the next request boundary.
//   - Requests stay cacheable: system prompt, the instructions rendered at session start, the
//     tools in a fixed order, then the append-only history; what becomes relevant mid-session
//     (touched rules and nested files, recalled memories, notes) is appended at the tail, so
//     each request is the previous one plus a tail. Every request passes conversation.Repair,
//     and what a repair changed is reported once.
//   - Tools: each input is decoded once by toolcall.Decode, and that value is what the
//     permission check sees and the tool runs; tools get a narrow environment, forks a
//     restricted one. Write and Edit need a full, current Read (conversation.ReadCache).
//   - Permissions (package permission): ask, accept-edits or bypass, plus allow and deny
//     patterns, deny winning; reads and TodoWrite are allowed unless denied. With no Approver
//     (strata run) what would need a yes is denied and the model told which pattern would
//     allow it. A "don't ask again" answer allows the rule the request named beforehand
//     (permission.Request.Always), saved to the project's settings.local.json with the
//     user's approval. The user's "!" and "@" go through the same tools and checks.
//   - Usage counts every model call by kind (conversation, recall, extraction, notes,
//     compaction, dream) through llm.Metered, priced where llm.PriceOf knows the model.
//   - Cancelling Run stops the stream or the running tool; every tool_use still gets a
//     tool_result (an interrupted one says so) and the transcript is flushed and synced, so
//     the session can always be resumed.
//   - Compaction: past compact's automatic threshold the agent compacts before the next
//     request; compact.Run decides, and its effects apply only after a success. ContextLevel
//     reports the count: the last reported usage plus an estimate of what came after.
//   - Resume (Options.Resume, Options.Continue) rebuilds the chain as Claude Code's loader does
//     (transcript.BuildChain), with usage, todos, tasks and the read cache, answers calls a
//     crash left open as interrupted, and continues the same file.
//   - Every goroutine the Agent starts is waited for by Close, which drains the background
//     workers with a time limit.
//
// docs/agent.md shows the agent as a library.
package agent
