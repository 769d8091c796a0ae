package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/strata-mem/strata/internal/termtext"
	"github.com/strata-mem/strata/mcpclient"
	"github.com/strata-mem/strata/tool"
)

// mcpTools connects the MCP servers configured for dir (mcpclient.Load): the user's, and the
// project's that the user said yes to here. ask asks about a project server never asked about
// (the answer is kept; none, when the user quit first); nil leaves such servers out, with a
// note. It returns their tools and what closes them (nil: none); problems are warnings.
func mcpTools(ctx context.Context, app *App, dir string, ask func(mcpclient.Server) (yes, answered bool)) ([]*tool.Tool, io.Closer) {
	warn := func(err error) { fmt.Fprintf(app.Err, "strata: warning: %s\n", termtext.Line(err.Error())) }
	servers, err := mcpclient.Load(dir, app.Env.UserHome)
	if err != nil {
		warn(err)
		return nil, nil
	}
	consent := mcpclient.ConsentFor(app.Env, dir)
	var use []mcpclient.Server
	for _, s := range servers {
		if s.Scope == mcpclient.Project {
			yes, asked, err := consent.Answer(s.Name)
			switch {
			case err != nil:
				warn(fmt.Errorf("MCP server %s: %w", s.Name, err))
				continue
			case !asked && ask == nil:
				fmt.Fprintf(app.Err, "strata: the MCP server %s of .mcp.json is not used until you allow it (strata chat here asks)\n", termtext.Line(s.Name))
				continue
			case !asked:
				var answered bool
				if yes, answered = ask(s); !answered {
					continue
				}
				if err := consent.Record(s.Name, yes); err != nil {
					warn(fmt.Errorf("MCP server %s: keeping your answer: %w", s.Name, err))
				}
			}
			if !yes {
				continue
			}
		}
		use = append(use, s)
	}
	if len(use) == 0 {
		return nil, nil
	}
	cs, errs := mcpclient.Connect(ctx, use, dir, version())
	for _, err := range errs {
		warn(err)
	}
	var out []*tool.Tool
	for _, t := range cs.Tools {
		out = append(out, tool.External(t.Name, t.Description, t.Schema, t.Call))
	}
	return out, cs
}

// serverCommand is what a server runs (stdio) or where it is (http), on one line.
func serverCommand(s mcpclient.Server) string {
	what := s.URL
	if s.Type == "stdio" {
		what = s.Command
		for _, a := range s.Args {
			what += " " + a
		}
	}
	return termtext.Line(what)
}

// askServer asks in the line mode, before the chat starts, whether a project's MCP server may
// be used in this project.
func (c *chat) askServer(s mcpclient.Server) (yes, answered bool) {
	fmt.Fprintf(c.out, "This project's .mcp.json has the MCP server %q: %s\n", termtext.Line(s.Name), serverCommand(s))
	ans := c.ask("Use it in this project (strata keeps the answer)? [y/N] ")
	return ans == "y" || ans == "Y" || ans == "yes", true
}

// askServerUI asks in the UI's dialog whether a project's MCP server may be used here.
func (c *chat) askServerUI(ctx context.Context, s mcpclient.Server) (yes, answered bool) {
	return c.ui.Confirm(ctx, fmt.Sprintf("Use the MCP server %q of this project's .mcp.json?", termtext.Line(s.Name)),
		[]string{serverCommand(s), "It runs a command that came with the repository; strata keeps your answer for this project."})
}
