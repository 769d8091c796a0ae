package compact

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/instructions"
	"github.com/strata-mem/strata/tokens"
	"github.com/strata-mem/strata/work"
)

// attachments renders what the new context gets back after the summary, each as the text of
// one meta user message: recent files, plan, todos, tasks, skills, and the conditional rules
// and nested instruction files that were active (re-read from disk through rules). It refills
// the read cache with the files it re-injects.
func attachments(ctx context.Context, in Input, rules *instructions.Set, r *Result) []string {
	var out []string
	if in.ReadCache != nil {
		recent := in.ReadCache.Recent(conversation.PostCompactFiles)
		in.ReadCache.Clear()
		total := 0
		var refill []conversation.FileState
		for _, st := range recent {
			if !st.HasContent {
				continue
			}
			text := clip(st.Content, conversation.PostCompactFileTokens)
			t := tokens.Estimate(text)
			if total+t > conversation.PostCompactTokens {
				continue
			}
			total += t
			if text != st.Content {
				st.Partial = true
			}
			st.Content = text
			refill = append(refill, st)
			r.Files = append(r.Files, st.Path)
			note := ""
			if st.Partial {
				note = " (partial view)"
			}
			out = append(out, fmt.Sprintf("<file path=%q%s>\nThe file as read before the conversation was compacted:\n%s\n</file>", st.Path, note, text))
		}
		// Oldest first, so the cache keeps the same recency order.
		for i := len(refill) - 1; i >= 0; i-- {
			if err := in.ReadCache.Record(refill[i]); err != nil {
				in.Logger.Warn("compact: read cache refill", "path", refill[i].Path, "err", err)
			}
		}
	}
	if p := strings.TrimSpace(in.Plan); p != "" {
		out = append(out, "<plan>\nThe current plan:\n"+p+"\n</plan>")
	}
	if in.Work != nil {
		agent := in.Agent
		if agent == "" {
			agent = work.MainAgent
		}
		if in.Work.Todos != nil {
			if todos := in.Work.Todos.Get(agent); len(todos) > 0 {
				js, _ := json.MarshalIndent(todos, "", "  ")
				out = append(out, "<todos>\nYour todo list, unchanged by the compaction (keep updating it with the todo tool):\n"+string(js)+"\n</todos>")
			}
		}
		if in.Work.Tasks != nil {
			var b strings.Builder
			for _, t := range in.Work.Tasks.List() {
				fmt.Fprintf(&b, "- %s [%s] %s: %s\n", t.ID, t.Kind, t.Status, t.Description)
			}
			if b.Len() > 0 {
				out = append(out, "<tasks>\nBackground tasks of this session:\n"+b.String()+"</tasks>")
			}
		}
	}
	for _, s := range in.Skills {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, "<skill>\n"+s+"\n</skill>")
		}
	}
	if in.Rules != nil && rules != nil {
		seen := map[string]bool{}
		var active []instructions.Source
		for _, src := range in.Rules.Sources() {
			if src.Trigger == "" || seen[src.Trigger] {
				continue
			}
			seen[src.Trigger] = true
			active = append(active, rules.Touch(ctx, src.Trigger)...)
		}
		if len(active) > 0 {
			out = append(out, "<instructions>\nInstructions that applied to files touched earlier in this session (re-read from disk):\n"+instructions.RenderSources(active)+"\n</instructions>")
		}
	}
	return out
}
