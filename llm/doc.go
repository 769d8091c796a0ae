// Package llm is strata's one small interface to language models: a Provider streams a reply
// to a Request (system blocks, conversation.Messages, tools, prompt-cache markers, an optional
// JSON schema for structured output) as Events, and assembles the Response (the assistant
// conversation.Message, usage, stop reason). llm/anthropic and llm/openai implement it as thin
// clients on the standard library; llm/llmtest fakes both wire formats for tests.
//
// Configuration: FromEnv resolves provider, endpoint, key, models and context window from the
// environment and settings (environment first, then settings, then defaults) and returns a
// *ConfigError wrapping ErrNotConfigured, whose text says how to configure a model, when it
// cannot. New builds the configured provider (its package must be imported for effect).
//
// Retries: a Stream retries rate limits (429, honouring retry-after-ms and retry-after),
// overload (529), server errors (5xx), dropped, stalled, truncated or malformed streams, with
// bounded exponential backoff and jitter, as long as no content was delivered; the providers
// do not retry by themselves, so this is the only policy. Events of a failed attempt are never delivered;
// an EventRetry says that one failed. After content was delivered a failure ends the stream
// with an error; Complete delivers nothing until the reply is whole and so retries any
// failure. Bad keys (401/403), unknown models (404), invalid requests and refused connections
// are not retried. Every error is an *Error naming the provider, the URL and what to do, and
// wraps a sentinel (ErrAuth, ErrModelNotFound, ErrUnreachable …) for errors.Is.
//
// Cancellation: cancelling the context ends the stream at once (the connection is closed) and
// Err returns the context's error. A stream that stays silent for the stall timeout is
// abandoned and retried like a broken one.
package llm
