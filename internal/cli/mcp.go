package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/strata-mem/strata/internal/termtext"
	"github.com/strata-mem/strata/mcpserver"
)

// mcpFlags are the flags of `strata mcp`.
type mcpFlags struct {
	project   string
	memoryDir string
	http      string
	token     string
	tokens    string
	origins   []string
	poll      time.Duration
	idle      time.Duration
	verbose   bool
	claude    bool
}

func newMCPCmd(app *App) *cobra.Command {
	var f mcpFlags
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Serve this project's memory to any MCP client (stdio or HTTP)",
		Long: `Serve the project's memory over the Model Context Protocol, so that Claude Code, Claude
Desktop, Cursor, Codex, Gemini CLI or any other MCP client shares strata's memory.

Tools: memory_search, memory_get, memory_save, memory_forget, memory_list, instructions and
session_search (over strata's and Claude Code's transcripts of the project, each hit with the
command that resumes it). Resources: strata://memory/MEMORY.md and strata://memory/<file> for every memory,
with change notifications when files change on disk.

By default the server speaks MCP over stdin/stdout (the client starts it). With --http it
serves the streamable HTTP transport at http://ADDR/mcp instead; a bare port listens on
127.0.0.1 only, and any other address needs a token (--token or STRATA_MCP_TOKEN), which every
request must then send as "Authorization: Bearer <token>". Requests from web pages of other
origins are refused.

With --tokens FILE, the HTTP server is a team server: FILE maps each user's token to the memory
stores (read or read-write) that user may reach, and each request must carry one of its tokens.
A user sees only the stores granted ("project" is this project's own memory; the others are
mounted by memoryStores or STRATA_MEMORY_STORES); every write records its user as the memory's
author. See docs/team-memory.md for the file's format.

With --claude-code (the Claude Code plugin's way), the memory and transcripts are Claude Code's
own, under CLAUDE_CONFIG_DIR or ~/.claude, as strata hook uses them.

The project is --project, else the first root the client reports, else the working directory.
Nothing outside the project, STRATA_HOME and the memory directory can be read through the server.`,
		Example: `  strata mcp                                  # stdio, for a client that starts it
  strata mcp --project ~/src/app              # a fixed project
  strata mcp --http 7777                      # http://127.0.0.1:7777/mcp
  STRATA_MCP_TOKEN=s3cret strata mcp --http 0.0.0.0:7777
  strata mcp --http 0.0.0.0:7777 --tokens ~/.strata/team-tokens.json   # a team server`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if f.idle < 0 || (f.idle > 0 && f.http == "") {
				return usagef("--session-timeout needs --http and a positive duration")
			}
			if f.token == "" {
				f.token = app.Env.Var("STRATA_MCP_TOKEN")
			}
			if f.http == "" && f.token != "" && c.Flags().Changed("token") {
				return usagef("--token needs --http (stdio needs no token)")
			}
			if f.tokens != "" {
				switch {
				case f.http == "":
					return usagef("--tokens needs --http (a team server serves HTTP)")
				case c.Flags().Changed("token"):
					return usagef("--token and --tokens both set who may connect; give one")
				}
				f.token = "" // STRATA_MCP_TOKEN is for the single-user server
			}
			return runMCP(c.Context(), app, f)
		},
	}
	c.Flags().StringVar(&f.project, "project", "", "serve this project directory (default: the client's first root, else the working directory)")
	c.Flags().StringVar(&f.memoryDir, "memory-dir", "", "use this memory directory `DIR` (default: the one strata memory path prints)")
	c.Flags().StringVar(&f.http, "http", "", "serve streamable HTTP on `ADDR` (host:port or a port on 127.0.0.1) at /mcp instead of stdio")
	c.Flags().StringVar(&f.token, "token", "", "require \"Authorization: Bearer `TOKEN`\" on every HTTP request (default STRATA_MCP_TOKEN)")
	c.Flags().StringVar(&f.tokens, "tokens", "", "serve a team: the tokens `FILE` maps each user's token to the stores they may reach (see docs/team-memory.md)")
	c.Flags().StringSliceVar(&f.origins, "allow-origin", nil, "also accept browser requests from this `ORIGIN` (loopback origins always are)")
	c.Flags().DurationVar(&f.poll, "poll", mcpserver.DefaultPollInterval, "how often to look for memory files changed on disk (0 turns it off)")
	c.Flags().DurationVar(&f.idle, "session-timeout", 0, "close an HTTP session after this long without a request (default: the mcpSessionTimeoutMinutes setting, else 5m)")
	c.Flags().BoolVar(&f.claude, "claude-code", false, "serve Claude Code's own memory directory and transcripts (CLAUDE_CONFIG_DIR, else ~/.claude), as the Claude Code plugin does")
	c.Flags().BoolVarP(&f.verbose, "verbose", "v", false, "log what the server does on stderr")
	return c
}

func runMCP(ctx context.Context, app *App, f mcpFlags) error {
	if ctx == nil {
		ctx = context.Background()
	}
	level := slog.LevelWarn
	if f.verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(app.Err, &slog.HandlerOptions{Level: level}))
	var addr string
	var tokens *mcpserver.Tokens
	if f.tokens != "" {
		t, warnings, err := mcpserver.LoadTokens(f.tokens)
		if err != nil {
			return &ExitError{Code: ExitFailure, Err: err}
		}
		for _, w := range warnings {
			fmt.Fprintf(app.Err, "strata: warning: %s\n", termtext.Line(w))
		}
		tokens = t
	}
	if f.http != "" {
		guard := f.token
		if tokens != nil {
			guard = "tokens file"
		}
		a, err := mcpserver.CheckListenAddr(f.http, guard)
		if err != nil {
			return usagef("--http: %v", err)
		}
		addr = a
	}
	poll := f.poll
	if poll == 0 {
		poll = -1
	}
	env := app.Env
	if f.claude {
		env = claudeCodeEnv(env)
	}
	opts := mcpserver.Options{Env: env, ClaudeHome: claudeCodeEnv(app.Env).Home, Project: f.project, MemoryDir: f.memoryDir, PollInterval: poll,
		Logger: log, Version: version(), Now: app.Now}
	if f.project == "" {
		wd, err := app.Getwd()
		if err != nil {
			return err
		}
		opts.WorkDir = wd
		if tokens != nil {
			opts.Project = wd // a team server's project is its own, opened now, never a client's root
		}
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, err := mcpserver.New(ctx, opts)
	if err != nil {
		return err
	}
	defer srv.Close()
	if addr == "" {
		in := io.NopCloser(app.In)
		if f, ok := app.In.(*os.File); ok {
			in = f // closing it ends the read that waits for the client
		}
		return srv.RunStdio(ctx, in, nopWriteCloser{app.Out})
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	if tokens != nil {
		for _, w := range srv.CheckGrants(tokens) {
			fmt.Fprintf(app.Err, "strata: warning: %s\n", termtext.Line(w))
		}
		fmt.Fprintf(app.Err, "strata mcp: serving a team of %d users at http://%s%s\n", len(tokens.Grants()), ln.Addr(), mcpserver.Endpoint)
	} else {
		fmt.Fprintf(app.Err, "strata mcp: serving http://%s%s\n", ln.Addr(), mcpserver.Endpoint)
	}
	return srv.Serve(ctx, ln, mcpserver.HTTPOptions{Token: f.token, Tokens: tokens, AllowedOrigins: f.origins,
		SessionTimeout: sessionTimeout(app, f.idle)})
}

// sessionTimeout is --session-timeout, else the mcpSessionTimeoutMinutes setting (user and
// managed settings: what is wrong with them the server logs when it opens the project), else 0
// for the server's default.
func sessionTimeout(app *App, flag time.Duration) time.Duration {
	if flag > 0 {
		return flag
	}
	set, _ := app.Env.Load("")
	return time.Duration(set.MCPSessionTimeoutMinutes) * time.Minute
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
