// Package work is layer 2, working memory: the tasks an agent runs in the background and each
// agent's todo list.
//
// Tasks have ids made of a kind prefix (b shell, a agent, r remote, t teammate, w workflow,
// m monitor, d dream) and 8 random base-36 characters. Their status only moves along
// pending → running → completed | failed | killed (a pending task may also fail or be killed);
// any other change is refused with ErrTransition. Output is appended to <dir>/<id>.output
// (file 0600, directory 0700), one append per Write. Notified records that the model was told
// the task ended; Unnotified lists the ended tasks it still has to hear about.
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
