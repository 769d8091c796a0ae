package tool

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/strata-mem/strata/internal/sandbox"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/toolcall"
)

// Bash limits.
const (
	BashDefaultTimeout = 2 * time.Minute
	BashMaxTimeout     = 10 * time.Minute
	BashMaxOutput      = 30_000
)

var bashTool = newTool("Bash", permission.ClassExec, runBash)

// capped is a writer that keeps at most max bytes of the start and of the end of what is
// written to it, and counts the rest.
type capped struct {
	mu        sync.Mutex
	max       int
	head      bytes.Buffer
	tail      []byte
	total     int
	truncated bool
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += len(p)
	written := len(p)
	if room := c.max*2/3 - c.head.Len(); room > 0 {
		n := min(room, len(p))
		c.head.Write(p[:n])
		p = p[n:]
	}
	if len(p) > 0 {
		c.tail = append(c.tail, p...)
		if keep := c.max / 3; len(c.tail) > keep {
			c.truncated = true
			c.tail = append(c.tail[:0], c.tail[len(c.tail)-keep:]...)
		}
	}
	return written, nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.truncated {
		return c.head.String() + string(c.tail)
	}
	return CapOutput(c.head.String()+fmt.Sprintf("\n\n[strata: output cut; %d bytes in all, the middle left out]\n\n", c.total)+string(c.tail), c.max+200)
}

func runBash(ctx context.Context, e Env, p *toolcall.Bash) (string, error) {
	if p.Command == "" {
		return "", errors.New("command is required")
	}
	timeout := e.BashTimeout()
	if timeout <= 0 {
		timeout = BashDefaultTimeout
	}
	if p.Timeout > 0 {
		timeout = min(time.Duration(p.Timeout)*time.Millisecond, BashMaxTimeout)
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	shell := "bash"
	if _, err := exec.LookPath(shell); err != nil {
		shell = "sh"
	}
	cmd, done := shellCommand(cctx, e, shell, p.Command)
	defer done()
	cmd.Dir = e.Cwd()
	if e.Unattended() {
		cmd.Env = unattendedEnv(cmd.Env)
		if runsGit(p.Command) {
			if err := gitConfigCheck(cctx, cmd.Dir, cmd.Env); err != nil {
				return "", err
			}
		}
	}
	cmd.Stdin = nil
	out := &capped{max: BashMaxOutput}
	cmd.Stdout, cmd.Stderr = out, out
	killTree(cmd)
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	text := out.String()
	switch {
	case ctx.Err() != nil:
		return text, ctx.Err()
	case cctx.Err() != nil:
		return "", fmt.Errorf("%s\n[strata: the command was stopped after %s (timeout)]", text, timeout)
	case err != nil:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("%s[exit code %d]", withNewline(text), ee.ExitCode())
		}
		return "", fmt.Errorf("cannot run the command: %v", err)
	}
	if text == "" {
		return "(no output)", nil
	}
	return text, nil
}

// shellCommand returns the command that runs script with shell under e's sandbox policy (a
// fork's with a private temp dir, removed by done), with the policy's environment; where the
// sandbox is off or unavailable, the same command unconfined.
func shellCommand(ctx context.Context, e Env, shell, script string) (cmd *exec.Cmd, done func()) {
	done = func() {}
	p, ok := e.Sandbox()
	if !ok {
		return exec.CommandContext(ctx, shell, "-c", script), done
	}
	if e.Unattended() {
		if tmp, err := os.MkdirTemp("", "strata-fork-"); err == nil {
			p.Write = append(p.Write, tmp)
			p.Env = append(p.Env, "TMPDIR="+tmp)
			done = func() { os.RemoveAll(tmp) }
		}
	}
	cmd, err := sandbox.Command(ctx, p, shell, "-c", script)
	if err != nil {
		cmd = exec.CommandContext(ctx, shell, "-c", script)
		cmd.Env = p.Env
	}
	return cmd, done
}

func withNewline(s string) string {
	if s == "" || s[len(s)-1] == '\n' {
		return s
	}
	return s + "\n"
}
