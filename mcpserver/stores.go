package mcpserver

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/recall"
	"github.com/strata-mem/strata/workspace"
)

// mounted is a memory store mounted besides the project's (workspace.Stores), served through
// the tools with the workspace's ranker over it, kept current as the project's is.
type mounted struct {
	ns     workspace.NamedStore
	ranker *recall.Ranker
}

// sync brings m's ranker in step with its directory, reading only the files that changed.
func (m *mounted) sync(ctx context.Context) error {
	if _, _, err := m.ranker.Refresh(ctx); err != nil {
		return fmt.Errorf("mcpserver: scan the memory store %s: %w", m.ns.Name, err)
	}
	return nil
}

// openMounts opens the workspace's mounted stores whose directory exists and fills their
// rankers.
func openMounts(ctx context.Context, ws *workspace.Workspace) ([]*mounted, error) {
	var out []*mounted
	for _, ns := range ws.MountedStores() {
		if ns.Missing {
			continue
		}
		r, err := ws.StoreRanker(ns)
		if err != nil {
			return nil, err
		}
		m := &mounted{ns: ns, ranker: r}
		if err := m.sync(ctx); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// storeRef is one store as a call sees it: which it is and whether this caller may write to it.
type storeRef struct {
	name     string // config.ProjectStore for the project's own
	store    *memdir.Store
	writable bool
	readOnly string // why not writable, for the error ("" when writable)
	mount    *mounted
}

// label is the store's name in results: "" for the project's own, which results leave out.
func (r storeRef) label() string {
	if r.mount == nil {
		return ""
	}
	return r.name
}

// refresh brings the store's index in step after a write.
func (s *Server) refreshStore(ctx context.Context, p *project, r storeRef) error {
	if r.mount == nil {
		return s.refresh(ctx, p)
	}
	return r.mount.sync(ctx)
}

// visible returns the stores the caller of req sees, the project's first: every store, or on
// the team server only those its token grants (a caller without a grant, none).
func (s *Server) visible(p *project, req mcp.Request) []storeRef {
	g, team := s.caller(req)
	var out []storeRef
	add := func(r storeRef) {
		if team {
			acc, ok := g.access(r.name)
			if !ok {
				return
			}
			if acc != AccessWrite && r.writable {
				r.writable, r.readOnly = false, fmt.Sprintf("the memory store %q is read-only for you", r.name)
			}
		}
		out = append(out, r)
	}
	add(storeRef{name: config.ProjectStore, store: p.store, writable: true})
	for _, m := range p.mounts {
		r := storeRef{name: m.ns.Name, store: m.ns.Store, writable: m.ns.Writable, mount: m}
		if err := workspace.CheckWritable(m.ns); err != nil {
			r.writable, r.readOnly = false, fmt.Sprintf("the memory store %q is mounted read-only", m.ns.Name)
		}
		add(r)
	}
	return out
}

// pick returns the store called name for the caller of req: "" is the project's own. A store
// the caller does not see is "not found", whether it exists or not, so a name not granted is
// never confirmed; write asks for a store the caller may write to.
func (s *Server) pick(p *project, req mcp.Request, name string, write bool) (storeRef, error) {
	vis := s.visible(p, req)
	want := name
	if want == "" {
		want = config.ProjectStore
	}
	for _, r := range vis {
		if strings.EqualFold(r.name, want) {
			if write && !r.writable {
				return r, fmt.Errorf("%s; nothing was written", r.readOnly)
			}
			return r, nil
		}
	}
	names := make([]string, len(vis))
	for i, r := range vis {
		names[i] = r.name
	}
	sort.Strings(names)
	if name == "" {
		return storeRef{}, fmt.Errorf("name a store: this server does not give you the project's memory (your stores: %s)", strings.Join(names, ", "))
	}
	return storeRef{}, fmt.Errorf("no memory store %q (your stores: %s)", name, strings.Join(names, ", "))
}

// reads returns the stores a read covers: the one named, else every store the caller sees.
func (s *Server) reads(p *project, req mcp.Request, name string) ([]storeRef, error) {
	if name != "" {
		r, err := s.pick(p, req, name, false)
		if err != nil {
			return nil, err
		}
		return []storeRef{r}, nil
	}
	return s.visible(p, req), nil
}

// syncMounts brings every mounted store's index in step (the watcher's poll).
func (p *project) syncMounts(ctx context.Context) error {
	var first error
	for _, m := range p.mounts {
		if err := m.sync(ctx); err != nil && first == nil {
			first = err
		}
	}
	return first
}
