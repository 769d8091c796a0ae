package conversation

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

func TestEstimateTokens(t *testing.T) {
	tests := []struct {
		name string
		m    Message
		want int
	}{
		{"empty", Message{Role: User}, 0},
		{"latin text", NewText(User, "abcdefgh"), 2},
		{"chinese text", NewText(User, "请帮我修复这个错误"), 9},
		{"mixed", NewText(User, "修复 bug"), 2 + 1},
		{"thinking", Message{Role: Assistant, Content: []Block{{Type: Thinking, Thinking: "想一想", Signature: strings.Repeat("s", 400)}}}, 3},
		{"tool use", Message{Role: Assistant, Content: []Block{{Type: ToolUse, ID: "toolu_1", Name: "Read", Input: json.RawMessage(`{"file_path":"/a"}`)}}}, 1 + 5},
		{"tool result with chinese", Message{Role: User, Content: []Block{{Type: ToolResult, ToolUseID: "toolu_1", Content: []Block{{Type: Text, Text: "文件内容"}}}}}, 4},
		{"image", Message{Role: User, Content: []Block{{Type: Image, Source: json.RawMessage(`{"type":"base64","data":"AAAA"}`)}}}, ImageTokens},
		{"several blocks", Message{Role: Assistant, Content: []Block{{Type: Text, Text: "好的"}, {Type: Text, Text: "abcd"}}}, 2 + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EstimateTokens(tt.m); got != tt.want {
				t.Errorf("EstimateTokens = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestAccountant(t *testing.T) {
	var a Accountant
	a.Add(NewText(User, "你好，请解释一下这个函数")) // 12 CJK characters (the comma is full-width)
	if got := a.Tokens(); got != 12 {
		t.Fatalf("before any usage: %d, want the estimate 12", got)
	}
	a.Observe(Usage{InputTokens: 20, CacheReadInputTokens: 1000, CacheCreationInputTokens: 300, OutputTokens: 80})
	if got := a.Tokens(); got != 1400 {
		t.Fatalf("after usage: %d, want 1400 (input + cache read + cache write + output)", got)
	}
	a.Add(Message{Role: User, Content: []Block{{Type: ToolResult, Content: []Block{{Type: Text, Text: strings.Repeat("数", 50) + strings.Repeat("x", 40)}}}}})
	a.AddTokens(5)
	if got, est := a.Tokens(), a.Estimated(); got != 1400+60+5 || est != 65 {
		t.Fatalf("after appending: %d (estimated %d), want 1465 (estimated 65)", got, est)
	}
	a.Observe(Usage{InputTokens: 1500, OutputTokens: 10})
	if got := a.Tokens(); got != 1510 {
		t.Fatalf("second usage must replace, not add: %d", got)
	}
	a.Reset(NewText(User, "摘要"))
	if got := a.Tokens(); got != 2 {
		t.Fatalf("after Reset: %d, want 2", got)
	}
}

func TestAccountantConcurrent(t *testing.T) {
	var a Accountant
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 1000 {
				a.Add(NewText(User, "字"))
			}
		})
	}
	wg.Go(func() {
		for range 100 {
			_ = a.Tokens()
		}
	})
	wg.Wait()
	if got := a.Tokens(); got != 4000 {
		t.Fatalf("Tokens = %d, want 4000", got)
	}
}

func TestContextTokens(t *testing.T) {
	u := &Usage{InputTokens: 100, OutputTokens: 50}
	tests := []struct {
		name    string
		entries []Entry
		want    int
	}{
		{"empty", nil, 0},
		{"no usage: estimate all", []Entry{{Message: NewText(User, "中文测试")}, {Message: NewText(Assistant, "abcdefgh")}}, 4 + 2},
		{"usage last", []Entry{{Message: NewText(User, "中文测试")}, {Message: NewText(Assistant, "ok"), Usage: u}}, 150},
		{"usage then more", []Entry{
			{Message: NewText(User, "中文测试")},
			{Message: NewText(Assistant, "ok"), Usage: u},
			{Message: NewText(User, "继续"), IsMeta: true},
			{Message: NewText(User, "abcd")},
		}, 150 + 2 + 1},
		{"latest usage wins", []Entry{
			{Message: NewText(Assistant, "a"), Usage: &Usage{InputTokens: 9999}},
			{Message: NewText(Assistant, "b"), Usage: u},
		}, 150},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ContextTokens(tt.entries); got != tt.want {
				t.Errorf("ContextTokens = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestUsageJSONShape(t *testing.T) {
	// The shape Claude Code stores under message.usage.
	in := `{"input_tokens":4,"cache_creation_input_tokens":2134,"cache_read_input_tokens":13454,"output_tokens":1,"service_tier":"standard"}`
	var u Usage
	if err := json.Unmarshal([]byte(in), &u); err != nil {
		t.Fatal(err)
	}
	if u.Total() != 4+2134+13454+1 {
		t.Fatalf("Total = %d from %+v", u.Total(), u)
	}
}

func TestAccountantAppend(t *testing.T) {
	user := NewText(User, "请解释一下") // 5 tokens
	reply := NewText(Assistant, strings.Repeat("x", 400))
	// Each case also runs after AddTokens(7), a prefix estimate (system prompt, tools) that a
	// reported usage replaces: wantPrefixed is Tokens then.
	tests := []struct {
		name               string
		entries            []Entry
		want, wantPrefixed int
	}{
		{"no usage: all estimated", []Entry{{Message: user}, {Message: reply}}, 105, 112},
		{"usage replaces what came before and covers its own message",
			[]Entry{{Message: user}, {Message: reply, Usage: &Usage{InputTokens: 3000, CacheReadInputTokens: 500, OutputTokens: 40}}}, 3540, 3540},
		{"estimate of what came after the usage is added",
			[]Entry{{Message: user}, {Message: reply, Usage: &Usage{InputTokens: 3000, OutputTokens: 40}}, {Message: user}}, 3045, 3045},
		{"the last usage wins",
			[]Entry{{Message: reply, Usage: &Usage{InputTokens: 9000}}, {Message: user}, {Message: reply, Usage: &Usage{InputTokens: 100, OutputTokens: 1}}}, 101, 101},
		{"a zero usage is no usage", []Entry{{Message: user}, {Message: reply, Usage: &Usage{}}}, 105, 112},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ContextTokens(tt.entries); got != tt.want {
				t.Errorf("ContextTokens = %d, want %d", got, tt.want)
			}
			var a Accountant
			a.AddTokens(7)
			a.Append(tt.entries...)
			if got := a.Tokens(); got != tt.wantPrefixed {
				t.Errorf("Tokens after a prefix = %d, want %d", got, tt.wantPrefixed)
			}
		})
	}
}

func TestObserveIgnoresAnEmptyUsage(t *testing.T) {
	var a Accountant
	a.Add(NewText(User, "abcdefgh"))
	a.Observe(Usage{})
	if got := a.Tokens(); got != 2 {
		t.Fatalf("an empty usage replaced the estimate: %d, want 2", got)
	}
}

func TestEstimateEntriesIgnoresUsage(t *testing.T) {
	es := []Entry{{Message: NewText(User, "abcdefgh")}, {Message: NewText(Assistant, "abcd"), Usage: &Usage{InputTokens: 5000}}}
	if got := EstimateEntries(es); got != 3 {
		t.Fatalf("EstimateEntries = %d, want 3", got)
	}
}

func TestUsageSums(t *testing.T) {
	u := Usage{InputTokens: 1, OutputTokens: 2, CacheCreationInputTokens: 4, CacheReadInputTokens: 8}
	if u.PromptTokens() != 13 || u.Total() != 15 || !u.Reported() || (Usage{}).Reported() {
		t.Fatalf("PromptTokens %d Total %d", u.PromptTokens(), u.Total())
	}
	if got := u.Add(u); got != (Usage{InputTokens: 2, OutputTokens: 4, CacheCreationInputTokens: 8, CacheReadInputTokens: 16}) {
		t.Fatalf("Add = %+v", got)
	}
}
