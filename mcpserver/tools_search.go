package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/strata-mem/strata/instructions"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/recall"
	"github.com/strata-mem/strata/workspace"
)

// budget is recall's: a memory's content is cut at FileLines lines or FileBytes bytes, and
// one search returns at most Files memories. (The per-session byte budget is not applied: an
// MCP session outlives the agent's compactions, which are what reset it.)
var budget = recall.DefaultBudget()

// maxQueryBytes bounds a query: longer ones are refused rather than ranked slowly.
const maxQueryBytes = 8 << 10

// SearchInput is memory_search's input.
type SearchInput struct {
	Query string `json:"query" jsonschema:"what you are looking for, in words (any language)"`
	K     int    `json:"k,omitempty" jsonschema:"how many memories to return, 1 to 5 (default 5)"`
	Store string `json:"store,omitempty" jsonschema:"search this memory store only; empty searches every store you can reach, ranked as one list"`
}

// SearchHit is one memory found.
type SearchHit struct {
	Memory    MemoryInfo `json:"memory"`
	Score     float64    `json:"score" jsonschema:"relevance; higher is better, comparable within one search only"`
	Content   string     `json:"content" jsonschema:"the memory's body, cut to the recall budget"`
	Truncated bool       `json:"truncated" jsonschema:"true when content was cut; memory_get returns all of it"`
	Age       string     `json:"age,omitempty" jsonschema:"a note when the memory is more than a day old"`
}

// SearchOutput is memory_search's result.
type SearchOutput struct {
	Results  []SearchHit `json:"results" jsonschema:"the memories found, best first"`
	Searched int         `json:"searched" jsonschema:"how many memories were searched"`
}

func (s *Server) memorySearch(ctx context.Context, req *mcp.CallToolRequest, in SearchInput) (*mcp.CallToolResult, SearchOutput, error) {
	p, err := s.project(ctx, req.Session)
	if err != nil {
		return nil, SearchOutput{}, err
	}
	switch {
	case strings.TrimSpace(in.Query) == "":
		return nil, SearchOutput{}, errors.New("query is empty: say what you are looking for")
	case len(in.Query) > maxQueryBytes:
		return nil, SearchOutput{}, fmt.Errorf("query is %d bytes; the limit is %d", len(in.Query), maxQueryBytes)
	case in.K < 0 || in.K > budget.Files:
		return nil, SearchOutput{}, fmt.Errorf("k is %d; it must be between 1 and %d (0 means %d)", in.K, budget.Files, budget.Files)
	}
	k := in.K
	if k == 0 {
		k = budget.Files
	}
	stores, err := s.reads(p, req, in.Store)
	if err != nil {
		return nil, SearchOutput{}, err
	}
	// The workspace's recall over the stores this caller reaches, as the agent and strata
	// memory search rank them; the watcher keeps the rankers in step, and the statistics are
	// recorded per MCP session (recordRecall).
	byLabel := map[string]storeRef{}
	names := make([]string, 0, len(stores))
	for _, r := range stores {
		byLabel[r.label()] = r
		names = append(names, r.name)
	}
	rc, err := p.ws.Recaller(workspace.RecallOptions{Stores: names, NoStats: true})
	if err != nil {
		return nil, SearchOutput{}, err
	}
	out := SearchOutput{}
	ranked := rc.Stores()
	for _, m := range ranked {
		out.Searched += m.Ranker.Len()
	}
	hits := rc.Search(in.Query, k)
	out.Results = make([]SearchHit, 0, len(hits))
	now := p.now()
	var files []string // the project's, for its recall statistics
	for _, h := range hits {
		if ranked[h.List].Name == "" {
			files = append(files, h.Memory.File)
		}
	}
	if files != nil || len(stores) > 0 && stores[0].mount == nil {
		s.recordRecall(ctx, p, req.Session, files)
	}
	for _, h := range hits {
		r := byLabel[ranked[h.List].Name]
		content, note := recall.Truncate(h.Memory.Body, budget.FileLines, budget.FileBytes)
		if note != "" {
			content = strings.TrimRight(content, "\n") + "\n[strata: cut at the recall budget (" + note + "); memory_get returns the whole memory]\n"
		}
		out.Results = append(out.Results, SearchHit{Memory: infoIn(r, h.Memory), Score: h.Score, Content: content,
			Truncated: note != "", Age: recall.AgeNote(now, h.Memory.ModTime)})
	}
	return nil, out, nil
}

// InstructionsInput is the instructions tool's input.
type InstructionsInput struct {
	Path string `json:"path,omitempty" jsonschema:"a file or directory of the project, relative to the project root (an absolute path inside the project works too); empty means the project's directory"`
}

// InstructionSource is one piece of the instruction context.
type InstructionSource struct {
	Path      string `json:"path" jsonschema:"the file the text comes from"`
	Layer     string `json:"layer" jsonschema:"managed, user, project, local, rule, nested, import or automem"`
	Reason    string `json:"reason" jsonschema:"why it was loaded: session_start, path_glob_match, nested_traversal or include"`
	Tokens    int    `json:"tokens" jsonschema:"estimated tokens"`
	Truncated bool   `json:"truncated" jsonschema:"true when the text is not the whole file"`
	Store     string `json:"store,omitempty" jsonschema:"for a memory index: the memory store it belongs to (absent for this project's own)"`
}

// InstructionsOutput is the instructions tool's result.
type InstructionsOutput struct {
	Path        string              `json:"path" jsonschema:"the path the context was assembled for"`
	Text        string              `json:"text" jsonschema:"the instruction text as the model sees it, each piece headed by its origin"`
	Tokens      int                 `json:"tokens" jsonschema:"estimated tokens of text"`
	Sources     []InstructionSource `json:"sources" jsonschema:"the pieces of text, in load order (later text wins)"`
	Withheld    []InstructionSource `json:"withheld" jsonschema:"pieces that apply but live outside the project and STRATA_HOME, which this server does not read out (managed policy, directories above the project)"`
	Diagnostics []Diagnostic        `json:"diagnostics" jsonschema:"files skipped, refused, cut or broken"`
}

func (s *Server) instructionsTool(ctx context.Context, req *mcp.CallToolRequest, in InstructionsInput) (*mcp.CallToolResult, InstructionsOutput, error) {
	p, err := s.project(ctx, req.Session)
	if err != nil {
		return nil, InstructionsOutput{}, err
	}
	abs, isDir, err := p.resolvePath(in.Path)
	if err != nil {
		return nil, InstructionsOutput{}, err
	}
	cwd := abs
	if !isDir {
		cwd = p.dir
		if !within(abs, p.dir) {
			cwd = p.base
		}
	}
	lo := p.ws.InstructionsOptions()
	lo.Logger = s.log
	set, err := instructions.Load(ctx, cwd, lo)
	if err != nil {
		return nil, InstructionsOutput{}, fmt.Errorf("instructions for %s: %w", abs, err)
	}
	// The indexes of the stores the caller reaches, within one budget, as a session has them.
	vis := s.visible(p, req)
	var stores []*memdir.Store
	var extra []string // the mounted stores' directories: in scope for this caller
	for _, r := range vis {
		stores = append(stores, r.store)
		if r.mount != nil {
			extra = append(extra, r.store.Dir())
		}
	}
	idxs, errs := memdir.LoadIndexes(ctx, stores, nil)
	for i, ix := range idxs {
		switch {
		case errs[i] != nil:
			return nil, InstructionsOutput{}, fmt.Errorf("instructions: memory index: %w", errs[i])
		case !ix.Exists:
		case vis[i].mount == nil:
			set.AddAutomem(ix.Path, ix.Content(), ix.Truncated)
		default:
			set.AddStoreIndex(vis[i].name, ix.Path, ix.Content(), ix.Truncated)
		}
	}
	inScope := func(path string) bool { return p.inScope(path, extra...) }
	if !isDir {
		set.Touch(ctx, abs)
	}
	out := InstructionsOutput{Path: abs, Sources: []InstructionSource{}, Withheld: []InstructionSource{}, Diagnostics: []Diagnostic{}}
	var shown []instructions.Source
	for _, src := range set.Sources() {
		info := InstructionSource{Path: src.Path, Layer: string(src.Layer), Reason: string(src.Reason), Tokens: src.Tokens, Truncated: src.Truncated, Store: src.Store}
		if !inScope(src.Path) {
			out.Withheld = append(out.Withheld, info)
			continue
		}
		shown = append(shown, src)
		out.Sources = append(out.Sources, info)
		out.Tokens += src.Tokens
	}
	out.Text = instructions.RenderSources(shown)
	for _, d := range set.Diagnostics() {
		if !inScope(d.Path) {
			continue
		}
		out.Diagnostics = append(out.Diagnostics, Diagnostic{Path: d.Path, Line: d.Line, Severity: string(d.Severity), Message: d.Message})
	}
	return nil, out, nil
}
