// Package llmtest runs fake model servers on httptest that speak the real wire formats:
// Anthropic's Messages API and OpenAI's chat completions, streamed (SSE) or as one JSON body.
//
//   - A test scripts replies and faults (429 with retry-after, 500, 529, a stall, a cut or
//     malformed stream, an error event mid-stream) in order, points a provider at Server.URL
//     (Server.Config), and asserts on the recorded requests.
//   - The fake checks the headers a real server checks and answers a wrong key with 401.
//   - It refuses with 400 and the real error body what the real APIs refuse (Refused lists
//     it): unanswered or repeated tool calls, results without their call, a first message not
//     the user's, empty content, roles that do not alternate. A refused call uses no reply.
//   - The test fails when scripted replies are left unused, and at once on a call with nothing
//     scripted, a wrong path or a missing header. Stalled handlers are released at the end.
package llmtest
