// Package llmtest runs fake model servers that speak the real wire formats on httptest:
// Anthropic's Messages API (SSE events or a JSON body) and OpenAI's chat completions
// (chat.completion.chunk SSE ending in "data: [DONE]", or a JSON body).
//
// A test scripts the replies in order, points a provider at Server.URL (Server.Config gives a
// ready llm.Config), and asserts on the recorded requests' JSON structure. The fake checks the
// headers a real server checks (x-api-key and anthropic-version; Authorization: Bearer) and
// answers a wrong key with 401 as the real API does. It also refuses, with 400 and the real
// error body, the messages the real APIs refuse (Refused lists them): Anthropic's unanswered
// or repeated tool_use ids, tool_results without their call or after other content, a first
// message that is not the user's, empty content or blank text, roles that do not alternate;
// OpenAI's tool calls without tool messages, tool messages without their call, empty user
// content, an assistant message with neither content nor calls, and (as strict compatible
// servers do) a first message after the system prompt that is not the user's. A refused call
// uses no scripted reply. Faults are scripted like replies: HTTP errors (429 with
// retry-after, 500, 529), a stream that stalls, one that is cut off, one that
// carries malformed JSON, and an error event in the middle of a stream.
//
// Guarantees: the test fails (t.Errorf at cleanup) when scripted replies are left unused, and
// at once when a call arrives with nothing scripted, on a wrong path, or without a required
// header. Stalled handlers are released when the test ends, so no goroutine outlives it.
package llmtest
