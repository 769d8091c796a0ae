package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/recall"
)

// MemoryInfo describes one memory without its body.
type MemoryInfo struct {
	Name        string `json:"name" jsonschema:"the memory's name; pass it to memory_get or memory_forget"`
	Type        string `json:"type" jsonschema:"user, feedback, project or reference (empty when the file does not say)"`
	Description string `json:"description" jsonschema:"one line: what the memory is and when it matters"`
	File        string `json:"file" jsonschema:"the topic file, relative to the memory directory"`
	URI         string `json:"uri" jsonschema:"the resource URI of the file"`
	Modified    string `json:"modified" jsonschema:"when the file last changed (RFC 3339, UTC)"`
	Size        int64  `json:"size" jsonschema:"file size in bytes"`
	Store       string `json:"store,omitempty" jsonschema:"the memory store it is in; absent for this project's own memory"`
	Author      string `json:"author,omitempty" jsonschema:"who wrote it last, when the file says"`
}

func infoOf(m memdir.Memory) MemoryInfo {
	return MemoryInfo{Name: m.Name, Type: string(m.Type), Description: m.Description, File: m.File,
		URI: MemoryURI(m.File), Modified: m.ModTime.UTC().Truncate(time.Second).Format(time.RFC3339), Size: m.Size, Author: m.Author}
}

// infoIn is infoOf for a memory of the store r: a mounted store's memory names its store and
// has no resource URI (only the project's memory is served as resources).
func infoIn(r storeRef, m memdir.Memory) MemoryInfo {
	info := infoOf(m)
	if r.mount != nil {
		info.Store, info.URI = r.name, ""
	}
	return info
}

// ListInput is memory_list's input.
type ListInput struct {
	Store string `json:"store,omitempty" jsonschema:"list this memory store only; empty lists every store you can reach"`
}

// Diagnostic is a problem found in a file, with its place.
type Diagnostic struct {
	Path     string `json:"path" jsonschema:"the file concerned"`
	Line     int    `json:"line,omitempty" jsonschema:"1-based line, when there is one"`
	Severity string `json:"severity" jsonschema:"error, warning or info"`
	Message  string `json:"message"`
}

func memDiags(ds []memdir.Diagnostic) []Diagnostic {
	out := make([]Diagnostic, 0, len(ds))
	for _, d := range ds {
		out = append(out, Diagnostic{Path: d.Path, Line: d.Line, Severity: string(d.Severity), Message: d.Message})
	}
	return out
}

// storeRelative names a file of a store as "store:path/inside" for callers who may not learn the
// server's directories (the team server's users); a path outside the store becomes its base name.
func storeRelative(store, dir, path string) string {
	rel, err := filepath.Rel(dir, path)
	if err != nil || !filepath.IsLocal(rel) {
		rel = filepath.Base(path)
	}
	return store + ":" + filepath.ToSlash(rel)
}

// ListOutput is memory_list's result.
type ListOutput struct {
	Dir         string       `json:"dir,omitempty" jsonschema:"the memory directory of the first store listed (this project's, unless a store is named); not given to the team server's users"`
	Stores      []StoreInfo  `json:"stores" jsonschema:"the memory stores listed"`
	Memories    []MemoryInfo `json:"memories" jsonschema:"every memory, sorted by file"`
	Diagnostics []Diagnostic `json:"diagnostics" jsonschema:"problems with files (broken frontmatter, binary content)"`
}

// StoreInfo is one memory store as memory_list shows it.
type StoreInfo struct {
	Name     string `json:"name" jsonschema:"the store's name; project is this project's own memory"`
	Writable bool   `json:"writable" jsonschema:"whether memory_save and memory_forget may change it"`
}

// GetInput is memory_get's input.
type GetInput struct {
	Name  string `json:"name" jsonschema:"the memory's name, or its file name with or without .md"`
	Store string `json:"store,omitempty" jsonschema:"a memory store by name; empty looks in this project's memory first, then in every other store you can reach"`
}

// GetOutput is memory_get's result.
type GetOutput struct {
	Memory MemoryInfo `json:"memory"`
	Body   string     `json:"body" jsonschema:"the memory's markdown text, without frontmatter"`
	Age    string     `json:"age,omitempty" jsonschema:"a note when the memory is more than a day old"`
}

// SaveInput is memory_save's input.
type SaveInput struct {
	Name        string `json:"name" jsonschema:"a short name for the memory, unique in the project (any script; no slashes, no '..')"`
	Type        string `json:"type" jsonschema:"one of: user (who the user is, their preferences), feedback (a correction or rule the user gave), project (a fact about the project not derivable from the code), reference (where to find something)"`
	Description string `json:"description" jsonschema:"one line saying what the memory is and when it matters; it becomes the memory's line in MEMORY.md"`
	Body        string `json:"body" jsonschema:"the memory in markdown; for feedback and project memories: the rule or fact, then **Why:** and **How to apply:**"`
	Store       string `json:"store,omitempty" jsonschema:"the memory store to write to (memory_list shows which are writable); empty means this project's own memory"`
}

// SaveOutput is memory_save's result.
type SaveOutput struct {
	File    string `json:"file" jsonschema:"the topic file written, relative to the memory directory (empty in daily-log mode)"`
	URI     string `json:"uri,omitempty" jsonschema:"the resource URI of the file"`
	Created bool   `json:"created" jsonschema:"true for a new memory, false when an existing one was replaced"`
	Name    string `json:"name,omitempty" jsonschema:"the memory's name as saved: an existing memory's name when the name given differs from it only in case, width or Unicode form (that memory was replaced)"`
	Logged  bool   `json:"logged" jsonschema:"true when the store is in daily-log mode and the text went to today's log"`
	Index   bool   `json:"index" jsonschema:"true when MEMORY.md changed"`
	Store   string `json:"store,omitempty" jsonschema:"the memory store written; absent for this project's own"`
}

// ForgetInput is memory_forget's input.
type ForgetInput struct {
	Name    string `json:"name" jsonschema:"the memory's name, or its file name"`
	Archive bool   `json:"archive,omitempty" jsonschema:"kept for older clients: a forgotten memory is always moved to the archive, where strata memory restore finds it"`
	Store   string `json:"store,omitempty" jsonschema:"the memory store to forget it in; empty means this project's own memory"`
}

// ForgetOutput is memory_forget's result.
type ForgetOutput struct {
	File       string `json:"file" jsonschema:"the topic file removed (empty when only a dangling index line was removed)"`
	ArchivedTo string `json:"archived_to,omitempty" jsonschema:"where the file went, relative to the memory directory"`
	IndexLines int    `json:"index_lines" jsonschema:"lines removed from MEMORY.md"`
	Store      string `json:"store,omitempty" jsonschema:"the memory store changed; absent for this project's own"`
}

func readOnly(title string) *mcp.ToolAnnotations {
	f := false
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, OpenWorldHint: &f}
}

func (s *Server) addTools() {
	f, t := false, true
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:        "memory_list",
		Description: "List every memory of this project: name, type, one-line description, file and last change. Cheap to skim; use memory_search to find memories about a topic and memory_get to read one.",
		Annotations: readOnly("List memories"),
	}, s.memoryList)
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:        "memory_get",
		Description: "Read one memory in full: its description, type and markdown body. Memories older than a day carry a note: check what they say against the current code before acting on it.",
		Annotations: readOnly("Read a memory"),
	}, s.memoryGet)
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name: "memory_save",
		Description: "Save a memory for future sessions, or replace the memory with the same name. Keep one memory per topic and save only what cannot be derived from the code or git history: " +
			"the user's preferences, corrections they gave, project facts and where to find things. Never save secrets: text that looks like a credential is refused. " +
			"The write is refused, and nothing changes, when the MEMORY.md index would pass its line or character limit; consolidate or forget memories first.",
		Annotations: &mcp.ToolAnnotations{Title: "Save a memory", DestructiveHint: &f, IdempotentHint: true, OpenWorldHint: &f},
	}, s.memorySave)
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:        "memory_forget",
		Description: "Forget a memory that is wrong or no longer useful: its file moves to the archive (.archive/, where strata memory restore finds it) and its line leaves MEMORY.md.",
		Annotations: &mcp.ToolAnnotations{Title: "Forget a memory", DestructiveHint: &t, OpenWorldHint: &f},
	}, s.memoryForget)
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name: "memory_search",
		Description: fmt.Sprintf("Find the memories relevant to a topic, best first, with their content (each cut at %d lines or %d bytes, with a note when cut). "+
			"Search with the words of the task at hand; Chinese and other scripts work. Returns at most %d memories.", budget.FileLines, budget.FileBytes, budget.Files),
		Annotations: readOnly("Search memories"),
	}, s.memorySearch)
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name: "instructions",
		Description: "Show the instruction context an agent gets for a file or directory of this project: the CLAUDE.md, AGENTS.md, .claude/rules and imported files that apply, " +
			"in load order (later text wins), each with its path, layer and why it was loaded, plus the memory index. For a file, the rules whose paths match it and the instruction files of the directories above it are included.",
		Annotations: readOnly("Instructions for a path"),
	}, s.instructionsTool)
	s.addSessionTools()
}

func (s *Server) memoryList(ctx context.Context, req *mcp.CallToolRequest, in ListInput) (*mcp.CallToolResult, ListOutput, error) {
	p, err := s.project(ctx, req.Session)
	if err != nil {
		return nil, ListOutput{}, err
	}
	stores, err := s.reads(p, req, in.Store)
	if err != nil {
		return nil, ListOutput{}, err
	}
	out := ListOutput{Memories: []MemoryInfo{}, Diagnostics: []Diagnostic{}, Stores: []StoreInfo{}}
	_, team := s.caller(req)
	for _, r := range stores {
		mems, diags, err := r.store.List(ctx)
		if err != nil {
			return nil, ListOutput{}, err
		}
		if out.Dir == "" && !team {
			out.Dir = r.store.Dir()
		}
		out.Stores = append(out.Stores, StoreInfo{Name: r.name, Writable: r.writable})
		ds := memDiags(diags)
		if team { // a team user is not told where the server keeps its files
			for i := range ds {
				ds[i].Path = storeRelative(r.name, r.store.Dir(), ds[i].Path)
			}
		}
		out.Diagnostics = append(out.Diagnostics, ds...)
		for _, m := range mems {
			out.Memories = append(out.Memories, infoIn(r, m))
		}
	}
	return nil, out, nil
}

func (s *Server) memoryGet(ctx context.Context, req *mcp.CallToolRequest, in GetInput) (*mcp.CallToolResult, GetOutput, error) {
	p, err := s.project(ctx, req.Session)
	if err != nil {
		return nil, GetOutput{}, err
	}
	if strings.TrimSpace(in.Name) == "" {
		return nil, GetOutput{}, errors.New("name is empty: give the name of a memory (memory_list shows them)")
	}
	stores, err := s.reads(p, req, in.Store)
	if err != nil {
		return nil, GetOutput{}, err
	}
	for _, r := range stores {
		var m memdir.Memory
		if r.mount == nil {
			m, err = p.get(ctx, in.Name)
		} else {
			m, err = r.store.Get(ctx, in.Name)
		}
		if errors.Is(err, memdir.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, GetOutput{}, err
		}
		if r.mount == nil {
			s.recordRecall(ctx, p, req.Session, []string{m.File})
		}
		return nil, GetOutput{Memory: infoIn(r, m), Body: m.Body, Age: recall.AgeNote(p.now(), m.ModTime)}, nil
	}
	where := "in the stores you can reach"
	if in.Store == "" && len(stores) == 1 && stores[0].mount == nil {
		where = "in this project"
	}
	return nil, GetOutput{}, fmt.Errorf("no memory called %q %s (memory_list shows them)", in.Name, where)
}

// get returns the memory called name, read from disk now. The ranker's index says which file
// holds it (recall.Index.Find: the store's own rule for a name), so only that file is read; a
// name the index does not know yet (a file written a moment ago by someone else), or a file
// that no longer answers to it, is looked up by the store, which reads every file.
func (p *project) get(ctx context.Context, name string) (memdir.Memory, error) {
	if hit, ok := p.ranker.Index().Find(name); ok {
		if m, err := p.readMemory(hit.File); err == nil {
			if _, still := memdir.FindIn(func(yield func(*memdir.Memory) bool) { yield(&m) }, name); still {
				return m, nil
			}
		}
	}
	return p.store.Get(ctx, name)
}

// readMemory reads one topic file through an os.Root on the memory dir.
func (p *project) readMemory(file string) (memdir.Memory, error) {
	root, err := os.OpenRoot(p.store.Dir())
	if err != nil {
		return memdir.Memory{}, err
	}
	defer root.Close()
	f, st, err := fsutil.OpenRegularIn(root, file, math.MaxInt64) // cut below
	if err != nil {
		return memdir.Memory{}, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, memdir.MaxFileBytes))
	if err != nil {
		return memdir.Memory{}, err
	}
	m, _ := memdir.ParseFile(filepath.Join(p.store.Dir(), filepath.FromSlash(file)), file, data)
	m.ModTime, m.Size = st.ModTime(), st.Size()
	return m, nil
}

func (s *Server) memorySave(ctx context.Context, req *mcp.CallToolRequest, in SaveInput) (*mcp.CallToolResult, SaveOutput, error) {
	p, err := s.project(ctx, req.Session)
	if err != nil {
		return nil, SaveOutput{}, err
	}
	r, err := s.pick(p, req, in.Store, true)
	if err != nil {
		return nil, SaveOutput{}, fmt.Errorf("memory_save %q: %w", in.Name, err)
	}
	mi := memdir.Input{Name: in.Name, Type: memdir.Type(in.Type), Description: in.Description, Body: in.Body}
	if g := grantOf(req); g != nil {
		mi.Author = g.Author()
	}
	res, err := r.store.Add(ctx, mi)
	if err != nil {
		return nil, SaveOutput{}, saveError(in.Name, err)
	}
	if err := s.refreshStore(ctx, p, r); err != nil {
		s.log.Warn("mcpserver: refresh after save", "err", err)
	}
	out := SaveOutput{File: res.File, Created: res.Created, Name: res.Name, Logged: res.Logged, Index: res.Index, Store: r.label()}
	if res.File != "" && r.mount == nil {
		out.URI = MemoryURI(res.File)
	}
	return nil, out, nil
}

// saveError explains a refused write in words a model can act on; the store's own message
// (which names the line, the limit, the kind of secret) follows.
func saveError(name string, err error) error {
	var hint string
	switch {
	case errors.Is(err, memdir.ErrSecret):
		hint = "refused: the text looks like a secret; never store credentials in memory"
	case errors.Is(err, memdir.ErrIndexFull):
		hint = "refused: MEMORY.md would pass its limit; merge related memories or forget stale ones first"
	case errors.Is(err, memdir.ErrBadName):
		hint = "bad name"
	case errors.Is(err, memdir.ErrBadType):
		hint = "bad type: use user, feedback, project or reference"
	case errors.Is(err, memdir.ErrTooLarge):
		hint = "refused: the memory is too large; keep memories short"
	default:
		return fmt.Errorf("memory_save %q: %w", name, err)
	}
	return fmt.Errorf("memory_save %q: %s (%v)", name, hint, err)
}

func (s *Server) memoryForget(ctx context.Context, req *mcp.CallToolRequest, in ForgetInput) (*mcp.CallToolResult, ForgetOutput, error) {
	p, err := s.project(ctx, req.Session)
	if err != nil {
		return nil, ForgetOutput{}, err
	}
	if strings.TrimSpace(in.Name) == "" {
		return nil, ForgetOutput{}, errors.New("name is empty: give the name of a memory (memory_list shows them)")
	}
	r, err := s.pick(p, req, in.Store, true)
	if err != nil {
		return nil, ForgetOutput{}, fmt.Errorf("memory_forget %q: %w", in.Name, err)
	}
	by := "memory_forget (MCP)"
	if g := grantOf(req); g != nil {
		by += " by " + g.Author()
	}
	res, err := r.store.Archive(ctx, in.Name, memdir.ArchiveRecord{Time: p.now(), Action: memdir.ActionArchive, Reason: by})
	if err != nil {
		if errors.Is(err, memdir.ErrNotFound) {
			where := "in this project"
			if r.mount != nil {
				where = fmt.Sprintf("in the memory store %q", r.name)
			}
			return nil, ForgetOutput{}, fmt.Errorf("no memory called %q %s (memory_list shows them)", in.Name, where)
		}
		return nil, ForgetOutput{}, fmt.Errorf("memory_forget %q: %w", in.Name, err)
	}
	if err := s.refreshStore(ctx, p, r); err != nil {
		s.log.Warn("mcpserver: refresh after forget", "err", err)
	}
	return nil, ForgetOutput{File: res.File, ArchivedTo: res.ArchivedTo, IndexLines: res.IndexLines, Store: r.label()}, nil
}
