package webui

import (
	"net/http"
	"strings"

	"github.com/strata-mem/strata/instructions"
	"github.com/strata-mem/strata/workspace"
)

type contextData struct {
	Cwd, Root   string
	Touch       string
	Sources     []instructions.Source
	Max         int // the largest piece's tokens, for the bars
	Tokens      int
	Diagnostics []instructions.Diagnostic
	Text        string
}

// contextPage shows what strata context prints: the instruction pieces a model is given in the
// workspace's directory, in load order, with their tokens; touch adds what accessing a file
// would bring in.
func (s *Server) contextPage(w http.ResponseWriter, r *http.Request) {
	set, err := s.ws.Instructions(r.Context(), workspace.SetOptions{SettingsDiagnostics: true})
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err)
		return
	}
	d := contextData{Cwd: set.Cwd(), Root: set.ProjectRoot(), Touch: strings.TrimSpace(r.URL.Query().Get("touch"))}
	if d.Touch != "" {
		set.Touch(r.Context(), d.Touch)
	}
	d.Sources = set.Sources()
	for _, src := range d.Sources {
		d.Max = max(d.Max, src.Tokens)
	}
	d.Tokens = set.Tokens()
	d.Diagnostics = set.Diagnostics()
	d.Text = instructions.RenderSources(d.Sources)
	s.render(w, "context", "Context", d)
}
