// Package toolcall is the contract between a model's tool calls and whoever acts on them: the
// typed input of every agent tool, its JSON schema, and the one decoder that turns a model's
// raw input into that typed value.
//
// Decode once, then decide: Decode validates the input against the tool's schema (an object;
// required keys present; each value of its declared type; no key the schema does not name; no
// key twice, in any letter case) before it is decoded, so the value a permission check or a
// fork's policy sees is exactly the value the tool runs. A key that encoding/json would match
// case-insensitively ("FILE_PATH" next to "file_path", where the last one would silently win)
// is refused, never guessed.
//
// Edit.Apply is the one implementation of the Edit tool's text replacement, shared by the
// agent's Edit, the session-notes writer (compact) and the memory extractor (extract), so the
// three refuse the same inputs with the same errors.
package toolcall
