//go:build deps

// Package deps pins strata's chosen dependencies in go.mod while the packages that use them are
// being written. It builds only with -tags deps and is removed once every dependency is used.
package deps

import (
	_ "charm.land/bubbles/v2/textarea"
	_ "charm.land/bubbletea/v2"
	_ "charm.land/lipgloss/v2"
	_ "github.com/anthropics/anthropic-sdk-go/v2"
	_ "github.com/anthropics/anthropic-sdk-go/v2/option"
	_ "github.com/blevesearch/segment"
	_ "github.com/bmatcuk/doublestar/v4"
	_ "github.com/gofrs/flock"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/google/renameio/v2"
	_ "github.com/google/uuid"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/openai/openai-go/v3"
	_ "github.com/openai/openai-go/v3/option"
	_ "github.com/rogpeppe/go-internal/testscript"
	_ "github.com/spf13/cobra"
	_ "go.yaml.in/yaml/v3"
	_ "golang.org/x/sync/errgroup"
	_ "golang.org/x/text/cases"
	_ "golang.org/x/text/unicode/norm"
	_ "golang.org/x/text/width"
)
