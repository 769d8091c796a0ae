// Package conversation is layer 1, short-term memory: the message model shared by the agent,
// the providers and the transcript, the read cache that answers "unchanged since last read",
// and token accounting.
package conversation
