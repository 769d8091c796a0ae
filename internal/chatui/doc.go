// Package chatui is strata chat's interactive terminal UI, on Bubble Tea, Bubbles and Lip
// Gloss. It runs inline, as Claude Code does: finished output (your messages, rendered
// answers, tool calls with their preview or diff, command output) is printed into the
// terminal's scrollback, and only the live part — the open end of a streaming answer, the
// spinner, the input box and dialogs — is redrawn below it. internal/cli starts it when
// standard input and output are a terminal and TERM is not dumb; pipes keep the line mode.
//
// Markdown is parsed by goldmark (CommonMark, with GitHub's tables and strike-through) and
// drawn with Lip Gloss styles (Markdown); diffs come from go-udiff. Glamour and chroma are not
// used: they cost about 85 ms of package initialisation at every strata start. A streamed
// answer is rendered block by block (SplitStream): a block is printed once it is complete, so
// nothing printed changes later.
//
// The prompt history is a history.jsonl of one JSON line per prompt, as Claude Code keeps
// it; reads take the file's tail and skip lines that do not decode.
package chatui
