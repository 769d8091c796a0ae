// Package anthropic is the llm.Provider for Anthropic's Messages API, a thin client on the
// standard library (net/http, encoding/json and the SSE decoder of llm/internal/wire): SSE
// streaming, tool use, extended thinking with signatures, and prompt caching through
// cache_control breakpoints.
//
// Guarantees: no retries of its own, so the one retry policy of package llm applies; the
// request body lists tools, then system, then messages, so consecutive requests share a byte
// prefix as long as their prompts do, and the same request always gives the same bytes (a
// tool schema's keywords come in a fixed order); thinking blocks are sent back with their
// signatures unchanged, and unsigned thinking (from another provider) is dropped because the
// API would reject it; a request is checked for the API's limit of 4 cache breakpoints before
// anything is sent; the API key goes only to BaseURL's origin, never along a redirect to
// another server. Importing the package registers it with llm.New.
package anthropic
