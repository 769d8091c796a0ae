package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/memdir"
)

// URIs of the resources.
const (
	// URIPrefix starts the URI of every memory file: URIPrefix + the file's path relative to
	// the memory dir, each segment percent-escaped.
	URIPrefix = "strata://memory/"
	// IndexURI is the MEMORY.md index.
	IndexURI = URIPrefix + memdir.IndexFile
	// fileTemplate matches any file of the memory dir, listed or not yet.
	fileTemplate = URIPrefix + "{+file}"
)

// MemoryURI returns the resource URI of a memory file (relative to the memory dir).
func MemoryURI(file string) string {
	segs := strings.Split(file, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return URIPrefix + strings.Join(segs, "/")
}

// fileOfURI returns the memory-dir-relative file a URI names.
func fileOfURI(uri string) (string, error) {
	rest, ok := strings.CutPrefix(uri, URIPrefix)
	if !ok {
		return "", fmt.Errorf("resource %q: not a strata memory URI (they start with %s)", uri, URIPrefix)
	}
	file, err := url.PathUnescape(rest)
	if err != nil {
		return "", fmt.Errorf("resource %q: %w", uri, err)
	}
	if file == "" || strings.ContainsRune(file, 0) || strings.Contains(file, "\\") || !fs.ValidPath(file) {
		return "", fmt.Errorf("resource %q: not a file of the memory directory", uri)
	}
	for _, seg := range strings.Split(file, "/") {
		if strings.HasPrefix(seg, ".") {
			return "", fmt.Errorf("resource %q: hidden files of the memory directory are not served", uri)
		}
	}
	if path.Ext(file) != ".md" {
		return "", fmt.Errorf("resource %q: only markdown files of the memory directory are served", uri)
	}
	return file, nil
}

// addResourceTemplates registers what does not depend on the project.
func (s *Server) addResourceTemplates() {
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: fileTemplate,
		Name:        "memory-file",
		Title:       "Memory file",
		Description: "Any markdown file of the project's memory directory (topic files, daily logs), by its path relative to that directory.",
		MIMEType:    "text/markdown",
	}, s.readResource)
}

// registerResources lists the index and every memory of p as resources. Called once, when the
// project becomes known; the watcher keeps the list current.
func (s *Server) registerResources(p *project) {
	s.mcp.AddResource(&mcp.Resource{
		URI:         IndexURI,
		Name:        memdir.IndexFile,
		Title:       "Memory index",
		Description: "MEMORY.md: one line per memory of this project, as an agent sees it at the start of a session (cut to its line and character limits, with a warning when cut).",
		MIMEType:    "text/markdown",
	}, s.readResource)
	for _, m := range p.ranker.Index().Memories() {
		s.mcp.AddResource(memoryResource(m), s.readResource)
	}
}

func memoryResource(m memdir.Memory) *mcp.Resource {
	desc := m.Description
	if m.Type != "" {
		desc = "[" + string(m.Type) + "] " + desc
	}
	return &mcp.Resource{URI: MemoryURI(m.File), Name: m.File, Title: m.Name, Description: desc, MIMEType: "text/markdown"}
}

// readResource serves the index and memory files. Files are read through an os.Root on the
// memory dir, so a symlink inside it cannot lead anywhere else.
func (s *Server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	p, err := s.project(ctx, req.Session)
	if err != nil {
		return nil, err
	}
	uri := req.Params.URI
	if uri == IndexURI {
		ix, err := p.store.LoadIndex(ctx)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", uri, err)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: ix.Content()}}}, nil
	}
	file, err := fileOfURI(uri)
	if err != nil {
		// The client's mistake: say so with the code JSON-RPC has for it (a plain error goes
		// out with code 0, which clients cannot tell from a server failure).
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	root, err := os.OpenRoot(p.store.Dir())
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return nil, fmt.Errorf("read %s: %w", uri, err)
	}
	defer root.Close()
	// Opened non-blocking and fstat-checked: a FIFO in the memory dir is refused, not waited
	// on. No cap at the open; the text is cut below.
	f, st, err := fsutil.OpenRegularIn(root, file, math.MaxInt64)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return nil, fmt.Errorf("read %s: refused: %v", uri, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, memdir.MaxFileBytes))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", uri, err)
	}
	text := string(data)
	if st.Size() > memdir.MaxFileBytes {
		text += fmt.Sprintf("\n[strata: file cut at %d of %d bytes]\n", memdir.MaxFileBytes, st.Size())
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: text}}}, nil
}

// refresh syncs p with the disk and tells clients what changed: list_changed when memories
// came or went (the SDK sends it when resources are added or removed), resources/updated for
// each changed file and for the index.
func (s *Server) refresh(ctx context.Context, p *project) error {
	cs, err := p.sync(ctx)
	if err != nil {
		return err
	}
	if cs.empty() {
		return nil
	}
	s.log.Debug("mcpserver: memory changed on disk", "added", len(cs.Added), "changed", len(cs.Updated), "removed", len(cs.Removed), "index", cs.index)
	ix := p.ranker.Index()
	for _, f := range cs.Added {
		if m, ok := ix.Get(f); ok {
			s.mcp.AddResource(memoryResource(m), s.readResource)
		}
	}
	if len(cs.Removed) > 0 {
		uris := make([]string, len(cs.Removed))
		for i, f := range cs.Removed {
			uris[i] = MemoryURI(f)
		}
		s.mcp.RemoveResources(uris...)
	}
	for _, f := range cs.Relabelled {
		if m, ok := ix.Get(f); ok {
			s.mcp.AddResource(memoryResource(m), s.readResource)
		}
	}
	for _, f := range cs.Updated {
		s.notifyUpdated(ctx, MemoryURI(f))
	}
	if cs.index {
		s.notifyUpdated(ctx, IndexURI)
	}
	return nil
}

func (s *Server) notifyUpdated(ctx context.Context, uri string) {
	if err := s.mcp.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
		s.log.Warn("mcpserver: resources/updated not sent", "uri", uri, "err", err)
	}
}

// watch polls the memory dir until ctx is done. Errors are logged and polling goes on: a
// directory that is briefly unreadable must not end the server.
func (s *Server) watch(ctx context.Context, p *project) {
	t := time.NewTicker(s.opts.PollInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := s.refresh(ctx, p); err != nil && ctx.Err() == nil {
				s.log.Warn("mcpserver: watching the memory dir", "err", err)
			}
			if err := p.syncMounts(ctx); err != nil && ctx.Err() == nil {
				s.log.Warn("mcpserver: watching the mounted memory stores", "err", err)
			}
		}
	}
}
