// Package llm is strata's one small interface to language models: a Provider streams a reply
// to a Request (system blocks, conversation.Messages, tools, cache markers, an optional output
// schema) as Events and assembles the Response; llm/anthropic and llm/openai implement it.
//
//   - FromEnv resolves provider, endpoint, key, models and window (environment, then settings,
//     then defaults), or returns a *ConfigError (ErrNotConfigured) saying how to configure one.
//     New builds the configured provider (its package imported for effect).
//   - Stream holds the one retry policy: 429 (retry-after honoured), 529, 5xx and broken,
//     stalled or malformed streams, with bounded backoff and jitter, while no content was
//     delivered; a failed attempt's events are never delivered (EventRetry says it failed).
//     Complete delivers nothing until the reply is whole, so it retries any failure. Bad keys,
//     unknown models, invalid requests and refused connections are not retried.
//   - Every error is an *Error naming provider, URL and what to do, wrapping a sentinel
//     (ErrAuth, ErrModelNotFound, ErrUnreachable …).
//   - Cancelling the context ends the stream at once; a stream silent for the stall timeout is
//     retried like a broken one.
package llm
