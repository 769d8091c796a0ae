// Package openai is the llm.Provider for OpenAI-compatible chat completions, a thin client on
// the standard library (net/http, encoding/json and the SSE decoder of llm/internal/wire):
// OpenAI itself and local servers such as Ollama, vLLM and llama.cpp through OPENAI_BASE_URL.
//
// Mapping: tool_use blocks become the assistant's tool_calls and tool_result blocks become
// "tool" messages (placed right after the assistant message, before any other user text), and
// back; streamed reasoning ("reasoning_content" or "reasoning" in a delta, as vLLM, llama.cpp,
// Ollama and DeepSeek send it) becomes thinking blocks without a signature, which are not sent
// back because chat completions has no place for them. Structured output uses response_format
// json_schema. Cache markers are ignored: these servers cache prefixes by themselves; OpenAI
// reports cached_tokens, which become CacheReadInputTokens.
//
// Guarantees: no retries of its own (package llm's policy applies); tools come before the
// messages in the request body, so consecutive requests share a long byte prefix; a stream
// counts as complete only when a finish_reason arrived; the API key goes only to BaseURL's
// origin, never along a redirect to another server; importing the package registers it with
// llm.New.
package openai
