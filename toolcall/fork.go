package toolcall

import "context"

// Verdict is a fork policy's decision on one decoded call.
type Verdict struct {
	// Run runs the call as the main agent's tool would, in the fork's restricted
	// environment (the session's deny patterns still apply).
	Run bool
	// Otherwise Output is the result the model gets: what the policy did itself (a write
	// confined to the memory dir, say) or why it refused; IsError marks it as an error.
	Output  string
	IsError bool
	// Denied marks a refusal by the policy's rules (not a failed call); the fork reports
	// it in ForkResult.Denied.
	Denied bool
}

// Policy decides each call of a fork, after the call was decoded and its paths resolved.
type Policy func(ctx context.Context, call Call) Verdict

// Deny is the Verdict that refuses a call with reason.
func Deny(reason string) Verdict { return Verdict{Output: reason, IsError: true, Denied: true} }

// ForkResult is what one fork run did.
type ForkResult struct {
	// Turns counts its model requests; TurnLimit is set when it was still calling tools at
	// its last allowed request (not an error: what it did so far stands).
	Turns     int
	TurnLimit bool
	// ToolCalls counts the calls it made, Denied has one line per call its policy refused:
	// tool, input summary, why.
	ToolCalls int
	Denied    []string
	// Text is the fork's last text.
	Text string
}
