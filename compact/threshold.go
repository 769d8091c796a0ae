package compact

// Reference numbers for the thresholds (DESIGN.md, Layer 4).
const (
	// OutputReserve caps the room kept free for the model's reply: effective = window −
	// min(maxOutput, OutputReserve).
	OutputReserve = 20_000
	// AutoMargin is how far below the effective window automatic compaction starts.
	AutoMargin = 13_000
	// WarnMargin is how far below the automatic threshold the user is warned.
	WarnMargin = 20_000
	// BlockMargin is how far below the window new requests are refused.
	BlockMargin = 3_000
)

// Level says what the context size calls for.
type Level int

// Levels, in increasing order of urgency.
const (
	LevelOK      Level = iota // nothing to do
	LevelWarn                 // tell the user compaction is near
	LevelAuto                 // compact before the next request
	LevelBlocked              // refuse new requests until compacted
)

func (l Level) String() string {
	switch l {
	case LevelOK:
		return "ok"
	case LevelWarn:
		return "warn"
	case LevelAuto:
		return "auto"
	case LevelBlocked:
		return "blocked"
	}
	return "unknown"
}

// Thresholds are the token counts at which a context of a given window changes Level.
// All counts are clamped to be non-negative.
type Thresholds struct {
	Window    int // the model's context window
	Effective int // window − min(maxOutput, OutputReserve)
	Warn      int // max(Auto − WarnMargin, 3/4 of Auto)
	Auto      int // max(Effective − AutoMargin, Window/2)
	Block     int // Window − BlockMargin
}

// ThresholdsFor computes the thresholds of a window and a reply cap. A maxOutput of 0 or less
// reserves OutputReserve. The fixed margins are made for large windows; so that a small window
// (a local model's 32K) still gets room to work, automatic compaction never starts below half
// the window and the warning never below three quarters of the automatic threshold.
func ThresholdsFor(window, maxOutput int) Thresholds {
	reserve := OutputReserve
	if maxOutput > 0 && maxOutput < reserve {
		reserve = maxOutput
	}
	t := Thresholds{Window: max(window, 0)}
	t.Effective = max(t.Window-reserve, 0)
	t.Auto = max(t.Effective-AutoMargin, t.Window/2)
	t.Warn = max(t.Auto-WarnMargin, t.Auto*3/4)
	t.Block = max(t.Window-BlockMargin, 0)
	return t
}

// Level returns what a context of tokens tokens calls for: LevelBlocked at or above Block,
// LevelAuto above Auto, LevelWarn above Warn, else LevelOK.
func (t Thresholds) Level(tokens int) Level {
	switch {
	case tokens >= t.Block:
		return LevelBlocked
	case tokens > t.Auto:
		return LevelAuto
	case tokens > t.Warn:
		return LevelWarn
	}
	return LevelOK
}
