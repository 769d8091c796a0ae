// Package anthropic is the llm.Provider for Anthropic's Messages API, built on the official
// SDK (anthropic-sdk-go): SSE streaming, tool use, extended thinking with signatures, and
// prompt caching through cache_control breakpoints.
//
// Guarantees: the SDK's own retries are off, so the one retry policy of package llm applies;
// thinking blocks are sent back with their signatures unchanged, and unsigned thinking (from
// another provider) is dropped because the API would reject it; a request is checked for the
// API's limit of 4 cache breakpoints before anything is sent. Importing the package registers
// it with llm.New.
package anthropic
