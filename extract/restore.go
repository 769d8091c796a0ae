package extract

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/strata-mem/strata/memdir"
)

// UndoLastDream restores every step of the newest dream still in the archive (DreamActions in
// the archive log), newest step first, so that each step's recorded index line numbers hold
// and MEMORY.md and every file come back byte for byte when nothing else changed them. It
// returns the records restored; on a failure it stops there, the steps before it restored.
func UndoLastDream(ctx context.Context, s *memdir.Store, now time.Time) ([]memdir.ArchiveRecord, error) {
	if err := s.Recover(ctx); err != nil { // an undo killed half-way is finished first
		return nil, err
	}
	recs, err := memdir.ReadArchiveLog(s.Dir())
	if err != nil {
		return nil, err
	}
	_, todo := memdir.LastRun(recs, DreamActions...)
	slices.Reverse(todo)
	var done []memdir.ArchiveRecord
	for _, r := range todo {
		if err := s.Restore(ctx, r, now); err != nil {
			return done, fmt.Errorf("extract: undo the dream of %s: %w", r.Run, err)
		}
		done = append(done, r)
	}
	return done, nil
}
