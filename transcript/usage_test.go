package transcript

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/conversation"
)

func TestEncodeMessageUsageRoundTrip(t *testing.T) {
	m := conversation.Message{Role: conversation.Assistant, Content: []conversation.Block{{Type: conversation.Text, Text: "好的"}}}
	u := &conversation.Usage{InputTokens: 12, OutputTokens: 34, CacheCreationInputTokens: 56, CacheReadInputTokens: 7800}
	raw, err := EncodeMessage(m, u)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"usage":{"input_tokens":12,"output_tokens":34,"cache_creation_input_tokens":56,"cache_read_input_tokens":7800}`) {
		t.Errorf("message.usage not in Claude Code's shape: %s", raw)
	}
	e := &Entry{Type: TypeAssistant, Message: raw}
	if diff := cmp.Diff(u, e.Usage()); diff != "" {
		t.Errorf("Usage (-want +got):\n%s", diff)
	}
	got, _, err := e.DecodeMessage()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m, got); diff != "" {
		t.Errorf("message (-want +got):\n%s", diff)
	}
	// No usage, or one that reports nothing: the message alone, and Usage is nil.
	for _, u := range []*conversation.Usage{nil, {}} {
		raw, err := EncodeMessage(m, u)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(raw), "usage") {
			t.Errorf("usage %+v written: %s", u, raw)
		}
		if got := (&Entry{Type: TypeAssistant, Message: raw}).Usage(); got != nil {
			t.Errorf("Usage = %+v, want nil", got)
		}
	}
	// A user entry has no usage, whatever its message holds.
	if got := (&Entry{Type: TypeUser, Message: raw}).Usage(); got != nil {
		t.Errorf("user entry Usage = %+v", got)
	}
}

// TestCorpusUsage reads message.usage of real Claude Code transcripts: every assistant entry
// that carries a non-zero usage gives it back with the four counts.
func TestCorpusUsage(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(corpusDir(t), "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files (%v)", err)
	}
	seen := 0
	for _, path := range files {
		f, err := ReadFile(t.Context(), path, ReadOptions{Full: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range f.Entries {
			if e.Type != TypeAssistant {
				continue
			}
			var m struct {
				Usage map[string]any `json:"usage"`
			}
			json.Unmarshal(e.Message, &m)
			var want int
			for _, k := range []string{"input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"} {
				n, _ := m.Usage[k].(float64)
				want += int(n)
			}
			got := e.Usage()
			switch {
			case want == 0 && got != nil:
				t.Errorf("%s line %d: usage %+v from %v", filepath.Base(path), e.Line, got, m.Usage)
			case want > 0 && (got == nil || got.Total() != want):
				t.Errorf("%s line %d: usage %+v, want a total of %d", filepath.Base(path), e.Line, got, want)
			case want > 0:
				seen++
			}
		}
	}
	if seen == 0 {
		t.Fatal("no assistant entry with usage in the corpus")
	}
	t.Logf("%d assistant entries with usage", seen)
}
