package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/strata-mem/strata/internal/webui"
)

type uiOptions struct {
	addr   string
	noOpen bool
	cwd    string
}

func newUICmd(app *App) *cobra.Command {
	var o uiOptions
	c := &cobra.Command{
		Use:   "ui",
		Short: "Open a local web view of this project's memory, sessions and context",
		Long: `Serve a web view of the project on a loopback address and open it in the browser: the
memory stores with search (the ranker recall uses), editing with the checks of strata memory
edit, the inbox with accept and reject, the archive with restore; the project's sessions
with search and resume commands; and what the model is given here, piece by piece. The printed URL holds a one-time token that the
first visit exchanges for a session cookie; requests without it, naming another Host or sent
from another site are refused. Stop it with Ctrl-C.`,
		Example: `  strata ui
  strata ui --addr 127.0.0.1:7788 --no-open`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error { return runUI(cmdCtx(c), app, o) },
	}
	c.Flags().StringVar(&o.addr, "addr", "127.0.0.1:0", "loopback address to listen on (port 0: any free port)")
	c.Flags().BoolVar(&o.noOpen, "no-open", false, "print the URL only; do not open a browser")
	c.Flags().StringVar(&o.cwd, "cwd", "", "act as if run in this directory (selects the project)")
	return c
}

func runUI(ctx context.Context, app *App, o uiOptions) error {
	if !webui.Loopback(o.addr) {
		return usagef("--addr %s is not a loopback address: strata ui serves this machine only", o.addr)
	}
	ws, err := openWorkspace(ctx, app, o.cwd, "")
	if err != nil {
		return err
	}
	warnSettings(app, ws)
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	srv, err := webui.New(webui.Options{Workspace: ws, Addr: ln.Addr().String(), SessionIndex: listIndexPath(ws.TranscriptDir())})
	if err != nil {
		ln.Close()
		return err
	}
	defer srv.Close()
	fmt.Fprintf(app.Out, "strata ui: %s\n(the link works once; Ctrl-C stops the server)\n", srv.URL())
	if !o.noOpen {
		if err := openBrowser(srv.URL()); err != nil {
			fmt.Fprintf(app.Err, "strata: could not open a browser (%v); open the link above\n", err)
		}
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return srv.Serve(ctx, ln)
}

// openBrowser starts the system's opener on url without waiting for the browser.
func openBrowser(url string) error {
	name := "xdg-open"
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		return fmt.Errorf("not supported on %s", runtime.GOOS)
	}
	cmd := exec.Command(name, url)
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait() // reaps the opener, which exits as soon as it has handed the URL over
	return nil
}
