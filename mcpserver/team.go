package mcpserver

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/strata-mem/strata/config"
)

// The team server is the HTTP transport with a tokens file (HTTPOptions.Tokens): every request
// carries one user's token, and that user reaches only the stores the token grants. A store not
// granted does not exist for them: the tools answer "no memory store", never "forbidden" with
// its name. The project's own memory is a store like the others ("project"): without it, the
// tools that read the project (instructions, session_search) and the resources (the project's
// memory files) are neither listed nor served.

// projectTools are the tools that read the project beyond its memory: only a user granted the
// project's store sees them on the team server.
var projectTools = []string{"instructions", "session_search"}

// teamAuth answers 401 to a request without a token the tokens file knows, then hands the
// request to the SDK's bearer middleware, which puts the user's TokenInfo (and so the Grant)
// where every handler finds it (mcp.RequestExtra.TokenInfo) and binds each MCP session to the
// user who opened it.
func teamAuth(t *Tokens, next http.Handler) http.Handler {
	sdk := auth.RequireBearerToken(t.verifier, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, cred, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		if !strings.EqualFold(scheme, "Bearer") || t.verify(strings.TrimSpace(cred)) == nil {
			w.Header().Set("WWW-Authenticate", `Bearer realm="strata"`)
			http.Error(w, "Unauthorized: send Authorization: Bearer <token> with a token of the server's tokens file", http.StatusUnauthorized)
			return
		}
		sdk.ServeHTTP(w, r)
	})
}

// caller returns the grant of the caller of req on the team server, and whether the server is
// one; a team request without a grant (which teamAuth never lets through) reaches nothing.
func (s *Server) caller(req mcp.Request) (g *Grant, team bool) {
	if !s.team.Load() {
		return nil, false
	}
	if g = grantOf(req); g == nil {
		g = &Grant{}
	}
	return g, true
}

// seesProject reports whether the caller of req may reach the project beyond the stores it is
// granted: always off the team server, with a grant of the "project" store on it.
func (s *Server) seesProject(req mcp.Request) bool {
	g, team := s.caller(req)
	if !team {
		return true
	}
	_, ok := g.access(config.ProjectStore)
	return ok
}

// grants is the receiving middleware of the team server: it leaves out of tools/list and
// refuses the tools that read the project, and serves no resource, to a caller not granted the
// project's store, as if they did not exist.
func (s *Server) grants(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if s.seesProject(req) {
			return next(ctx, method, req)
		}
		switch method {
		case "tools/call":
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && slices.Contains(projectTools, p.Name) {
				return nil, fmt.Errorf("unknown tool %q", p.Name)
			}
		case "tools/list":
			res, err := next(ctx, method, req)
			if lr, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				lr.Tools = slices.DeleteFunc(slices.Clone(lr.Tools), func(t *mcp.Tool) bool { return slices.Contains(projectTools, t.Name) })
			}
			return res, err
		case "resources/list":
			return &mcp.ListResourcesResult{Resources: []*mcp.Resource{}}, nil
		case "resources/templates/list":
			return &mcp.ListResourceTemplatesResult{ResourceTemplates: []*mcp.ResourceTemplate{}}, nil
		case "resources/read", "resources/subscribe", "resources/unsubscribe":
			return nil, mcp.ResourceNotFoundError(resourceURI(req))
		}
		return next(ctx, method, req)
	}
}

// resourceURI is the URI a resources request names, for its error.
func resourceURI(req mcp.Request) string {
	switch p := req.GetParams().(type) {
	case *mcp.ReadResourceParams:
		return p.URI
	case *mcp.SubscribeParams:
		return p.URI
	case *mcp.UnsubscribeParams:
		return p.URI
	}
	return ""
}

// CheckGrants says which stores the tokens file grants that this server does not serve (a typo
// in a store's name, a store not mounted here): such a grant reaches nothing. The project must
// be known (Options.Project).
func (s *Server) CheckGrants(t *Tokens) []string {
	s.mu.Lock()
	p := s.proj
	s.mu.Unlock()
	if p == nil || t == nil {
		return nil
	}
	served := []string{config.ProjectStore}
	for _, ns := range p.ws.MountedStores() {
		if !ns.Missing { // as openMounts
			served = append(served, ns.Name)
		}
	}
	var out []string
	for _, g := range t.grants {
		for name := range g.Stores {
			if !slices.ContainsFunc(served, func(n string) bool { return strings.EqualFold(n, name) }) {
				out = append(out, fmt.Sprintf("tokens file %s: user %q is granted the store %q, which this server does not serve (it serves: %s)",
					t.Path, g.User, name, strings.Join(served, ", ")))
			}
		}
	}
	slices.Sort(out)
	return out
}
