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
// Guarantees: no retries of its own; tools before messages, so consecutive bodies share a
// prefix; a stream is complete only with a finish_reason; the key goes only to BaseURL's
// origin, never along a redirect; importing the package registers it with llm.New.
package openai
