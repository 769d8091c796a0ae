// Package openai is the llm.Provider for OpenAI-compatible chat completions (OpenAI, and
// Ollama, vLLM or llama.cpp through OPENAI_BASE_URL), a thin client on the standard library.
//
//   - tool_use and tool_result map to tool_calls and "tool" messages, and back; streamed
//     reasoning becomes unsigned thinking, never sent back; structured output uses
//     response_format json_schema; cache markers are ignored, cached_tokens are read.
//   - No retries of its own; tools before messages, so bodies share a prefix; a stream is
//     complete only with a finish_reason; the key goes only to BaseURL's origin.
//   - Importing the package registers it with llm.New.
package openai
