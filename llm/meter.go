package llm

import "context"

// Metered returns a Provider that sends every request to p and calls record once per stream,
// when the stream ends (a whole reply, an error or a cancellation), with the usage the server
// reported for its last attempt; a stream whose server reported none is not recorded. record
// runs on the goroutine that reads the stream. Wrapping a Metered provider again records at
// both levels.
func Metered(p Provider, record func(Usage)) Provider { return &metered{p: p, record: record} }

type metered struct {
	p      Provider
	record func(Usage)
}

func (m *metered) Stream(ctx context.Context, req *Request) (*Stream, error) {
	s, err := m.p.Stream(ctx, req)
	if err != nil || s == nil {
		return s, err
	}
	if prev := s.onEnd; prev != nil {
		s.onEnd = func(u Usage) { prev(u); m.record(u) }
	} else {
		s.onEnd = m.record
	}
	return s, nil
}
