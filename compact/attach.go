package compact

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/instructions"
	"github.com/strata-mem/strata/tokens"
)

// RecentFiles picks, from views (the read cache's, most recent first), the files a compaction
// re-injects: at most conversation.PostCompactFiles files that the agent read or edited, most
// recent first, each path once. Injected views (instruction files, recalled memories) are not
// files it read, and a file whose path is in inPrompt (the instruction files and the memory
// index the prompt holds, the rules re-injected) is there already. A view may lack its content
// (one restored on resume): the caller reads those from disk before compacting, and Run leaves
// out any still without content. It is the one rule of which files come back; the agent and
// Run both call it.
func RecentFiles(views []conversation.FileState, inPrompt []string) []conversation.FileState {
	skip := map[string]bool{}
	for _, p := range inPrompt {
		skip[filepath.Clean(p)] = true
	}
	var out []conversation.FileState
	for _, st := range views {
		if len(out) == conversation.PostCompactFiles {
			break
		}
		p := filepath.Clean(st.Path)
		if st.Source == conversation.SourceInjected || st.Path == "" || skip[p] {
			continue
		}
		skip[p] = true
		out = append(out, st)
	}
	return out
}

// fileAttachments renders the files RecentFiles picks from in, each as the text of one meta
// user message, clipped to each tokens, total tokens in all (a file that does not fit is left
// out, a smaller later one may still come), with the views as re-injected.
func fileAttachments(in Reinject, total, each int) (out []string, paths []string, views []conversation.FileState) {
	used := 0
	for _, st := range RecentFiles(in.Files, in.InPrompt) {
		if !st.HasContent {
			continue
		}
		text := clip(st.Content, each)
		t := tokens.Estimate(text)
		if text == "" || used+t > total {
			continue
		}
		used += t
		if text != st.Content {
			st.Partial = true
		}
		st.Content = text
		paths = append(paths, st.Path)
		views = append(views, st)
		note := ""
		if st.Partial {
			note = " (partial view)"
		}
		out = append(out, fmt.Sprintf("<file path=%q%s>\nThe file as read before the conversation was compacted:\n%s\n</file>", st.Path, note, text))
	}
	return out, paths, views
}

// stateAttachments renders the rest of what the new context gets back, each as the text of one
// meta user message: todos, tasks, and the conditional rules and nested instruction files that
// were active.
func stateAttachments(in Reinject) []string {
	var out []string
	if len(in.Todos) > 0 {
		js, _ := json.MarshalIndent(in.Todos, "", "  ")
		out = append(out, "<todos>\nYour todo list, unchanged by the compaction (keep updating it with the todo tool):\n"+string(js)+"\n</todos>")
	}
	var sb strings.Builder
	for _, t := range in.Tasks {
		fmt.Fprintf(&sb, "- %s [%s] %s: %s\n", t.ID, t.Kind, t.Status, t.Description)
	}
	if sb.Len() > 0 {
		out = append(out, "<tasks>\nBackground tasks of this session:\n"+sb.String()+"</tasks>")
	}
	if len(in.Rules) > 0 {
		out = append(out, "<instructions>\nInstructions that applied to files touched earlier in this session (re-read from disk):\n"+instructions.RenderSources(in.Rules)+"\n</instructions>")
	}
	return out
}

func textTokens(texts []string) int {
	n := 0
	for _, t := range texts {
		n += tokens.Estimate(t)
	}
	return n
}
