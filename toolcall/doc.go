// Package toolcall is the contract between a model's tool calls and whoever acts on them: the
// typed input of every agent tool, its JSON schema, and the one decoder of a model's raw input.
//
//   - Decode validates against the schema before decoding (an object, required keys, declared
//     types, no unknown key, no key twice in any letter case), so what a permission check or
//     a fork's policy sees is exactly what the tool runs.
//   - Edit.Apply is the one Edit replacement (the agent, compact's notes, extract's writer),
//     so all three refuse the same inputs with the same errors.
package toolcall
