// Package work is layer 2, working memory: a session's tasks and each agent's todo list.
//
//   - Tasks carry id (kind letter first), kind, status, description, times, output file and a
//     notified flag. Nothing starts background tasks yet: the registry keeps those a snapshot
//     restored, lists them for compaction, and Interrupt marks those a previous process left
//     open as killed, so the model is told they did not finish.
//   - Todos follow TodoWrite: a write replaces the agent's list, which must pass ValidateTodos
//     (content, activeForm, a valid status, at most one in progress); an all-completed list is
//     cleared. Nothing here writes todos to long-term memory.
//   - State.Snapshot gives versioned JSON of every list and task for the transcript, and
//     State.Restore brings it back, so both survive compaction and resume;
//     Todos.RestoreFromToolUse rebuilds a list from an older transcript's last TodoWrite.
//   - Every type is safe for concurrent use.
package work
