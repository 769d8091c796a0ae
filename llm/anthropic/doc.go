// Package anthropic is the llm.Provider for Anthropic's Messages API, a thin client on the
// standard library and llm/internal/wire: streaming, tool use, signed thinking, prompt caching.
//
//   - No retries of its own: package llm's policy applies.
//   - Bodies list tools, system, messages, in fixed key order, so the same request gives the
//     same bytes and consecutive ones share a prefix.
//   - Signed thinking goes back unchanged when the request turns thinking on, else none does;
//     unsigned thinking is dropped; more than 4 cache breakpoints is refused before sending.
//   - The key goes only to BaseURL's origin. Importing the package registers it with llm.New.
package anthropic
