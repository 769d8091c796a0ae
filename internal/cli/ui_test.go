package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

func TestUIRefusesNonLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":8080", "192.0.2.1:80", "example.com:80"} {
		var out bytes.Buffer
		app := &App{Out: &out, Err: &out}
		err := runUI(context.Background(), app, uiOptions{addr: addr, noOpen: true})
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "not a loopback address") {
			t.Errorf("--addr %s: err = %v, want a usage error saying it is not loopback", addr, err)
		}
	}
}
