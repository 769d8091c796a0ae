// Package openai is the llm.Provider for OpenAI-compatible chat completions, built on the
// official SDK (openai-go): OpenAI itself and local servers such as Ollama, vLLM and llama.cpp
// through OPENAI_BASE_URL.
//
// Mapping: tool_use blocks become the assistant's tool_calls and tool_result blocks become
// "tool" messages (placed right after the assistant message, before any other user text), and
// back; streamed reasoning ("reasoning_content" or "reasoning" in a delta, as vLLM, llama.cpp,
// Ollama and DeepSeek send it) becomes thinking blocks without a signature, which are not sent
// back because chat completions has no place for them. Structured output uses response_format
// json_schema. Cache markers are ignored: these servers cache prefixes by themselves; OpenAI
// reports cached_tokens, which become CacheReadInputTokens.
//
// Guarantees: the SDK's own retries are off (package llm's policy applies); a stream counts as
// complete only when a finish_reason arrived; importing the package registers it with llm.New.
package openai
