// Package work is layer 2, working memory: the tasks of a session and each agent's todo list.
//
// Tasks are what a transcript's working-memory snapshot carries: id (a kind letter first, b
// shell, a agent …), kind, status (pending, running, completed, failed, killed), description,
// times, output file and a notified flag. Nothing in strata starts background tasks yet; the
// registry keeps those a snapshot restored, lists them for compaction to re-inject, and
// Interrupt marks the ones a previous process left open as killed, so the model is told they
// did not finish.
//
// Todos follow the TodoWrite tool: every write replaces the agent's whole list; a new list must
// pass ValidateTodos (content, activeForm, valid status, at most one item in progress); a list
// whose items are all completed is cleared. Todos are working memory only: nothing in this
// package writes them to long-term memory.
//
// Persistence: State.Snapshot gives stable, versioned JSON of every todo list and task, for the
// transcript to carry; State.Restore brings it back. Unlike the reference system, todos and tasks
// therefore survive compaction and resume. On resume, Todos.RestoreFromToolUse also rebuilds a
// list from the last TodoWrite input of an older transcript, and Tasks.Interrupt marks the tasks
// of the previous process as killed so the model is told they did not finish.
//
// Every type here is safe for concurrent use.
package work
