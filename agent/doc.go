// Package agent runs a session: it sends the conversation to a model, runs the tools the model
// calls, and repeats until the model stops, while every memory layer feeds the requests.
//
// One loop (loop.go) walks a turn for the main agent and for every background fork; a handler
// supplies what differs: where requests come from, where messages go, who decides a call (the
// main agent: permissions and the Approver; a fork: its toolcall.Policy, then the session's
// deny rules). What the model sees is package prompt's; what the settings decide, the
// workspace's Policy.
//
// Guarantees:
//   - A turn: the user's message is durable in the transcript before the request leaves, and
//     the transcript is synced before tools run and when Run returns, even when ctx was
//     cancelled (a context that outlives it, bounded).
//   - Every tool_use gets a tool_result: a call cut by cancellation, a failed stream or a crash
//     (answered at resume) gets an is_error result that says so, so the history always sends.
//   - Every call's input is decoded once (toolcall.Decode); that value is what the permission
//     check sees and what the tool runs. A deny rule always wins; with no Approver, whatever
//     needs a yes is refused and the model is told which rule would allow it.
//   - Forks hold no *Agent: they start from a snapshot of the last request (sharing its cached
//     prefix) and never touch the main history, read cache, todos or attachments.
//   - Recall never delays a request: a finished recall is attached at the next request
//     boundary, an unfinished one is looked at again at the following one.
//   - Compaction (Compact, or automatic past compact's threshold when Options.ContextWindow is
//     set) changes nothing unless it succeeds; a breaker stops automatic compaction after
//     repeated failures.
//   - Resume (Options.Resume, Continue) rebuilds the chain, todos, tasks and read cache from
//     the transcript and appends to the same file.
//   - Every model call is counted by kind (Usage), priced where the model's price is known.
//   - Every goroutine the Agent starts is waited for by Close; background work gets
//     Options.DrainTimeout to finish.
package agent
