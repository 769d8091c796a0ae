package mcpserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/internal/fsutil"
)

// Access is what a grant allows on one store.
type Access int

// The accesses a tokens file gives: "r" and "rw".
const (
	AccessRead Access = iota + 1
	AccessWrite
)

// Grant is one user of the team server: who they are, and the stores their token reaches.
type Grant struct {
	User   string
	Email  string
	Stores map[string]Access // store name (config.ProjectStore for the project's own) → access
	hash   [sha256.Size]byte // SHA-256 of the token
}

// Author is how the user's writes are recorded (memdir.Input.Author): "User <email>", or the
// user alone without an email.
func (g *Grant) Author() string {
	if g.Email == "" {
		return g.User
	}
	return g.User + " <" + g.Email + ">"
}

// access returns the user's access to the store called name (letter case ignored).
func (g *Grant) access(name string) (Access, bool) {
	for n, a := range g.Stores {
		if strings.EqualFold(n, name) {
			return a, true
		}
	}
	return 0, false
}

// Tokens is a loaded tokens file: the team server's users.
type Tokens struct {
	Path   string
	grants []*Grant
}

// Grants returns the users, in file order.
func (t *Tokens) Grants() []*Grant { return append([]*Grant(nil), t.grants...) }

// MaxTokensBytes is the largest tokens file read.
const MaxTokensBytes = 1 << 20

// tokenEntry is one entry of a tokens file as written.
type tokenEntry struct {
	Token       string            `json:"token"`
	TokenSHA256 string            `json:"token_sha256"`
	User        string            `json:"user"`
	Email       string            `json:"email"`
	Stores      map[string]string `json:"stores"`
}

// LoadTokens reads a tokens file: a JSON list of {"user", "email", "token_sha256" (the hex
// SHA-256 of the token; or "token", the token itself), "stores": {"NAME": "r" | "rw"}}. Every
// problem names the file, the entry's line and the entry; a file with any problem is refused
// whole (a grant read wrong would give the wrong access). A file that holds plain tokens and
// that others than its owner may read is refused; one holding only hashes gives a warning.
func LoadTokens(path string) (*Tokens, []string, error) {
	data, err := fsutil.ReadRegular(path, MaxTokensBytes)
	if err != nil {
		return nil, nil, fmt.Errorf("tokens file %s: %w", path, err)
	}
	var warnings []string
	t, plain, err := ParseTokens(path, data)
	if err != nil {
		return nil, nil, err
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		if plain {
			return nil, nil, fmt.Errorf("tokens file %s: holds tokens in plain text and others may read it (mode %v); chmod 600 it, or store token_sha256 instead", path, fi.Mode().Perm())
		}
		warnings = append(warnings, fmt.Sprintf("tokens file %s: others may read it (mode %v); chmod 600 it", path, fi.Mode().Perm()))
	}
	if plain {
		warnings = append(warnings, fmt.Sprintf("tokens file %s: holds tokens in plain text; store token_sha256 (sha256sum of the token) instead", path))
	}
	return t, warnings, nil
}

// ParseTokens decodes a tokens file's content (see LoadTokens); plain reports that an entry
// gives its token in plain text.
func ParseTokens(path string, data []byte) (t *Tokens, plain bool, err error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff")) // editors on Windows write one; JSON has none
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		where := "tokens file " + path
		var se *json.SyntaxError
		if errors.As(err, &se) {
			where = fmt.Sprintf("%s:%d", path, 1+bytes.Count(data[:min(int(se.Offset), len(data))], []byte{'\n'}))
		}
		return nil, false, fmt.Errorf("%s: want a JSON list of {\"user\", \"email\", \"token_sha256\", \"stores\"} objects: %v", where, err)
	}
	offs := config.ElementOffsets(data)
	t = &Tokens{Path: path}
	var errs []error
	seen := map[[sha256.Size]byte]string{}
	users := map[string]bool{}
	for i, raw := range raws {
		line := 1
		if i < len(offs) {
			line = 1 + bytes.Count(data[:offs[i]], []byte{'\n'})
		}
		bad := func(msg string) { errs = append(errs, fmt.Errorf("%s:%d: entry %d: %s", path, line, i+1, msg)) }
		var e tokenEntry
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			bad(fmt.Sprintf("want {\"user\", \"email\", \"token_sha256\" or \"token\", \"stores\"}: %v", err))
			continue
		}
		g := &Grant{User: strings.TrimSpace(e.User), Email: strings.TrimSpace(e.Email), Stores: map[string]Access{}}
		switch {
		case g.User == "":
			bad("no user")
			continue
		case strings.ContainsAny(g.User+g.Email, "<>\n\r"):
			bad(fmt.Sprintf("user %q: user and email may not hold <, > or line breaks", g.User))
			continue
		case users[strings.ToLower(g.User)]:
			bad(fmt.Sprintf("user %q is given twice", g.User))
			continue
		case (e.Token == "") == (e.TokenSHA256 == ""):
			bad(fmt.Sprintf("user %q: give token_sha256 (or token), one of them", g.User))
			continue
		case e.Token != "":
			if len(e.Token) < 16 {
				bad(fmt.Sprintf("user %q: the token is shorter than 16 characters", g.User))
				continue
			}
			plain = true
			g.hash = sha256.Sum256([]byte(e.Token))
		default:
			h, err := hex.DecodeString(strings.TrimSpace(e.TokenSHA256))
			if err != nil || len(h) != sha256.Size {
				bad(fmt.Sprintf("user %q: token_sha256 is not 64 hex digits", g.User))
				continue
			}
			copy(g.hash[:], h)
		}
		if other, ok := seen[g.hash]; ok {
			bad(fmt.Sprintf("user %q has the same token as %q", g.User, other))
			continue
		}
		ok := true
		if name, twice := storeTwice(raw); twice {
			bad(fmt.Sprintf("user %q: the store %q is given twice (letter case is ignored)", g.User, name))
			continue
		}
		for name, acc := range e.Stores {
			if name != config.ProjectStore {
				if msg := config.ValidStoreName(name); msg != "" {
					bad(fmt.Sprintf("user %q: %s", g.User, msg))
					ok = false
					continue
				}
			}
			switch acc {
			case "r":
				g.Stores[name] = AccessRead
			case "rw":
				g.Stores[name] = AccessWrite
			default:
				bad(fmt.Sprintf("user %q: store %q: want \"r\" or \"rw\", got %q", g.User, name, acc))
				ok = false
			}
		}
		if !ok {
			continue
		}
		seen[g.hash] = g.User
		users[strings.ToLower(g.User)] = true
		t.grants = append(t.grants, g)
	}
	if len(errs) > 0 {
		return nil, false, errors.Join(errs...)
	}
	if len(t.grants) == 0 {
		return nil, false, fmt.Errorf("tokens file %s: no users", path)
	}
	return t, plain, nil
}

// verify finds the user whose token this is, comparing hashes in constant time.
func (t *Tokens) verify(token string) *Grant {
	h := sha256.Sum256([]byte(token))
	var found *Grant
	for _, g := range t.grants {
		if subtle.ConstantTimeCompare(h[:], g.hash[:]) == 1 {
			found = g
		}
	}
	return found
}

// grantKey keys the Grant in auth.TokenInfo.Extra.
const grantKey = "strata.grant"

// verifier is the SDK's bearer check over t: an unknown token is ErrInvalidToken (401). The
// user's name is the session's user, so the SDK refuses a session id used with another token.
func (t *Tokens) verifier(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	g := t.verify(token)
	if g == nil {
		return nil, fmt.Errorf("%w: unknown token", auth.ErrInvalidToken)
	}
	return &auth.TokenInfo{UserID: g.User, Extra: map[string]any{grantKey: g}}, nil
}

// grantOf returns the grant of the caller of req, or nil when the server has no tokens file
// (every store is visible).
func grantOf(req mcp.Request) *Grant {
	if req == nil {
		return nil
	}
	ex := req.GetExtra()
	if ex == nil || ex.TokenInfo == nil {
		return nil
	}
	g, _ := ex.TokenInfo.Extra[grantKey].(*Grant)
	return g
}

// storeTwice reports a store named twice in a tokens file entry's "stores" object, letter
// case ignored: decoded into a map, the last key would win, and grants are looked up by
// name whatever its case, so which access held would depend on map order.
func storeTwice(entry []byte) (name string, twice bool) {
	var e struct {
		Stores json.RawMessage `json:"stores"`
	}
	if json.Unmarshal(entry, &e) != nil || len(e.Stores) == 0 {
		return "", false
	}
	dec := json.NewDecoder(bytes.NewReader(e.Stores))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", false
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		key, _ := tok.(string)
		if seen[strings.ToLower(key)] {
			return strings.ToLower(key), true
		}
		seen[strings.ToLower(key)] = true
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return "", false
		}
	}
	return "", false
}
