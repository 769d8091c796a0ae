package extract

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/tokens"
)

// TestPlanDreamIndexLimitCountsCharacters: a Korean MEMORY.md over 25,000 UTF-8 bytes but
// well under 25,000 characters (as the loader counts them) is within its limits, so the dream
// archives nothing to make it fit; the same index in more characters than the limit does plan
// archives.
func TestPlanDreamIndexLimitCountsCharacters(t *testing.T) {
	hook := strings.Repeat("배포 전에 반드시 승인을 받는다 ", 5) // 90 characters, 230 bytes
	mems := make([]mem, 120)
	for i := range mems {
		mems[i] = mem{file: fmt.Sprintf("m%03d.md", i), name: fmt.Sprintf("메모 %d", i), desc: hook,
			body: fmt.Sprintf("항목 %d: 고유한 내용 %d %d %d", i, i*7, i*13, i*31)}
	}
	s := newStore(t, mems)
	raw, err := os.ReadFile(filepath.Join(s.Dir(), memdir.IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) <= memdir.MaxIndexBytes || tokens.Chars(string(raw)) >= memdir.MaxIndexBytes {
		t.Fatalf("fixture: index of %d bytes, %d characters; want over and under %d", len(raw), tokens.Chars(string(raw)), memdir.MaxIndexBytes)
	}
	p, err := PlanDream(context.Background(), s, Options{Now: t0, Watch: watched})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range p.Actions {
		if a.Kind == KindIndex {
			t.Errorf("planned %s for the index limit although the index is %d characters: %s", a.File, tokens.Chars(string(raw)), a.Reason)
		}
	}
	if p.Index.Bytes != tokens.Chars(string(raw)) {
		t.Errorf("Index.Bytes = %d, want the index's characters %d", p.Index.Bytes, tokens.Chars(string(raw)))
	}

	// The control: a limit far below the index's characters makes the dream plan archives.
	p, err = PlanDream(context.Background(), s, Options{Now: t0, Watch: watched, MaxIndexBytes: 10})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, a := range p.Actions {
		if a.Kind == KindIndex {
			n++
		}
	}
	if n == 0 {
		t.Errorf("no index archive planned with a limit below the index's characters")
	}
}
