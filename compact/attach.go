package compact

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/instructions"
	"github.com/strata-mem/strata/tokens"
)

// attachments renders what the new context gets back after the summary, each as the text of
// one meta user message: the most recent files the model read or wrote (PostCompactFiles, each
// clipped to PostCompactFileTokens, PostCompactTokens in all), todos, tasks, and the
// conditional rules and nested instruction files that were active. The file views it
// re-injects go to r.Files and r.FileViews.
func attachments(in Reinject, r *Result) []string {
	var out []string
	total := 0
	for _, st := range in.Files {
		if len(r.Files) == conversation.PostCompactFiles {
			break
		}
		// Injected views (instruction files, recalled memories) are not files the model
		// read: instructions come back re-read from disk, and recall starts afresh.
		if !st.HasContent || st.Source == conversation.SourceInjected {
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
		r.Files = append(r.Files, st.Path)
		r.FileViews = append(r.FileViews, st)
		note := ""
		if st.Partial {
			note = " (partial view)"
		}
		out = append(out, fmt.Sprintf("<file path=%q%s>\nThe file as read before the conversation was compacted:\n%s\n</file>", st.Path, note, text))
	}
	if len(in.Todos) > 0 {
		js, _ := json.MarshalIndent(in.Todos, "", "  ")
		out = append(out, "<todos>\nYour todo list, unchanged by the compaction (keep updating it with the todo tool):\n"+string(js)+"\n</todos>")
	}
	var b strings.Builder
	for _, t := range in.Tasks {
		fmt.Fprintf(&b, "- %s [%s] %s: %s\n", t.ID, t.Kind, t.Status, t.Description)
	}
	if b.Len() > 0 {
		out = append(out, "<tasks>\nBackground tasks of this session:\n"+b.String()+"</tasks>")
	}
	if len(in.Rules) > 0 {
		out = append(out, "<instructions>\nInstructions that applied to files touched earlier in this session (re-read from disk):\n"+instructions.RenderSources(in.Rules)+"\n</instructions>")
	}
	return out
}
