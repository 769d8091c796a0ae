package tool

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/recall"
	"github.com/strata-mem/strata/toolcall"
	"github.com/strata-mem/strata/work"
)

var todoTool = newTool("TodoWrite", permission.ClassState, func(ctx context.Context, e Env, in *toolcall.TodoWrite) (string, error) {
	todos := in.Todos
	list, id, err := e.Todos()
	if err != nil {
		return "", err
	}
	if _, err := list.Write(id, todos); err != nil {
		return "", errors.New(strings.TrimPrefix(err.Error(), "work: "))
	}
	done := 0
	for _, t := range todos {
		if t.Status == work.TodoCompleted {
			done++
		}
	}
	if done == len(todos) {
		return fmt.Sprintf("Todo list updated: all %d items completed, so the list is cleared.", len(todos)), nil
	}
	return fmt.Sprintf("Todo list updated: %d items, %d completed. Keep it current as you work.", len(todos), done), nil
})

var memorySaveTool = newTool("memory_save", permission.ClassMemory, func(ctx context.Context, e Env, p *toolcall.MemorySave) (string, error) {
	st, err := e.Memory()
	if err != nil {
		return "", err
	}
	res, err := st.Add(ctx, memdir.Input{Name: p.Name, Description: p.Description, Type: memdir.Type(p.Type), Body: p.Body})
	if err != nil {
		return "", errors.New(strings.TrimPrefix(err.Error(), "memdir: "))
	}
	// The model wrote it, so recall must not bring it back this session.
	if data, err := memdir.Render(memdir.Input{Name: p.Name, Description: p.Description, Type: memdir.Type(p.Type), Body: p.Body}, time.Time{}); err == nil {
		e.Cache().Record(conversation.FileState{Path: res.Path, Content: string(data), Source: conversation.SourceWrite, Partial: true})
	}
	switch {
	case res.Logged:
		return fmt.Sprintf("Appended to today's memory log %s.", res.Path), nil
	case res.Created:
		return fmt.Sprintf("Saved new memory %q in %s and listed it in MEMORY.md.", p.Name, res.File), nil
	}
	if res.Name != p.Name {
		return fmt.Sprintf("Updated memory %q in %s (its name; %q differs from it only in case, width or Unicode form).", res.Name, res.File, p.Name), nil
	}
	return fmt.Sprintf("Updated memory %q in %s.", p.Name, res.File), nil
})

var memoryForgetTool = newTool("memory_forget", permission.ClassMemory, func(ctx context.Context, e Env, p *toolcall.MemoryForget) (string, error) {
	st, err := e.Memory()
	if err != nil {
		return "", err
	}
	res, err := st.Archive(ctx, p.Name, memdir.ArchiveRecord{Time: time.Now(), Action: memdir.ActionArchive,
		Reason: "the agent's memory_forget tool"})
	if err != nil {
		return "", errors.New(strings.TrimPrefix(err.Error(), "memdir: "))
	}
	if res.File == "" {
		return fmt.Sprintf("Removed %d index line(s) for %q (no file was left).", res.IndexLines, p.Name), nil
	}
	return fmt.Sprintf("Forgot %q: removed from MEMORY.md, file moved to %s.", p.Name, res.ArchivedTo), nil
})

var memorySearchTool = newTool("memory_search", permission.ClassRead, func(ctx context.Context, e Env, p *toolcall.MemorySearch) (string, error) {
	if strings.TrimSpace(p.Query) == "" {
		return "", errors.New("query is empty")
	}
	limit := p.Limit
	if limit <= 0 {
		limit = 5
	}
	limit = min(limit, 20)
	rc, err := e.Recaller()
	if err != nil {
		return "", err
	}
	if _, err := rc.Refresh(ctx); err != nil { // another store that cannot be read is left out
		return "", fmt.Errorf("cannot read the memory dir: %v", err)
	}
	hits := rc.Search(p.Query, limit)
	if len(hits) == 0 {
		return fmt.Sprintf("No memory matches %q.", p.Query), nil
	}
	stores := rc.Stores()
	now := e.Now()
	var b strings.Builder
	for i, h := range hits {
		m := h.Memory
		fmt.Fprintf(&b, "%d. %s (%s, type %s, %s)\n   %s\n", i+1, m.Name, recall.Ref(stores[h.List].Name, m.File), m.Type, age(now, m.ModTime), m.Description)
		body := strings.TrimSpace(m.Body)
		if len(body) > 300 {
			cut := 300
			for cut > 0 && !isRuneStart(body[cut]) {
				cut--
			}
			body = body[:cut] + " …"
		}
		if body != "" {
			b.WriteString("   " + strings.ReplaceAll(body, "\n", "\n   ") + "\n")
		}
	}
	return b.String(), nil
})

func age(now, t time.Time) string {
	if t.IsZero() {
		return "age unknown"
	}
	d := int(now.Sub(t).Hours() / 24)
	switch {
	case d <= 0:
		return "today"
	case d == 1:
		return "1 day old"
	}
	return fmt.Sprintf("%d days old", d)
}
