package mcpserver

import (
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/strata-mem/strata/memdir"
)

// What the tools and resources return is scanned: a secret in a memory written by hand or in
// an instruction file — plain, hidden with a zero-width space, split over lines or base64 —
// reaches the client as a marker naming its kind; the rest of the text is served as it is.
func TestSecretsWithheld(t *testing.T) {
	const token = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
	f := newFixture(t)
	f.write(t, "proj/CLAUDE.md", "部署说明\nCI token: "+token+"\n")
	s := f.server(t, nil)
	cs := connect(t, s, nil)
	mustCall(t, cs, "memory_save", SaveInput{Name: "first", Type: "user", Description: "d", Body: "b\n"}, nil)
	body := strings.Join([]string{
		"# 部署 keys",
		"plain " + token,
		"hidden ghp_aBcDeFgHiJ\u200bkLmNoPqRsTuVwXyZ0123456789",
		"ghp_aBcDeFgHiJkLmNo",
		"PqRsTuVwXyZ0123456789",
		"encoded " + base64.StdEncoding.EncodeToString([]byte("GITHUB_TOKEN="+token)),
		"keep this line",
	}, "\n") + "\n"
	file := filepath.Join(s.MemoryDir(), "keys.md")
	if err := os.WriteFile(file, []byte("---\nname: keys\ndescription: written by hand\ntype: reference\n---\n"+body), 0o600); err != nil {
		t.Fatal(err)
	}
	check := func(what, text string) {
		t.Helper()
		if strings.Contains(text, "aBcDeF") || strings.Contains(text, "PqRsTu") || strings.Contains(text, base64.StdEncoding.EncodeToString([]byte("GITHUB_TOKEN="))[:12]) {
			t.Errorf("%s leaks a secret:\n%s", what, text)
		}
		if !strings.Contains(text, memdir.SecretMarker("GitHub token")) {
			t.Errorf("%s lacks the marker:\n%s", what, text)
		}
	}

	var got GetOutput
	mustCall(t, cs, "memory_get", GetInput{Name: "keys"}, &got)
	check("memory_get", got.Body)
	want := strings.Join([]string{
		"# 部署 keys",
		memdir.SecretMarker("GitHub token"),
		memdir.SecretMarker("GitHub token (hidden with invisible or full-width characters)"),
		memdir.SecretMarker("GitHub token (split over lines)"),
		memdir.SecretMarker("GitHub token (base64-encoded)"),
		"keep this line",
	}, "\n") + "\n"
	if strings.TrimLeft(got.Body, "\n") != want {
		t.Errorf("memory_get body:\n%s\nwant:\n%s", got.Body, want)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "memory_get", Arguments: GetInput{Name: "keys"}})
	if err != nil {
		t.Fatal(err)
	}
	check("memory_get text content", res.Content[0].(*mcp.TextContent).Text)

	text, err := readText(cs, t.Context(), MemoryURI("keys.md"))
	if err != nil {
		t.Fatal(err)
	}
	check("resources/read", text)

	// A frontmatter written by hand: the resource list's name and description are its own.
	os.WriteFile(filepath.Join(s.MemoryDir(), "ci.md"), []byte("---\nname: ci token "+token+"\ndescription: the CI token is "+token+"\ntype: reference\n---\nx\n"), 0o600)
	mustCall(t, cs, "memory_save", SaveInput{Name: "second", Type: "user", Description: "d", Body: "b\n"}, nil) // a write syncs the list
	list, err := cs.ListResources(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, r := range list.Resources {
		listed = append(listed, r.Name, r.Title, r.Description, r.URI)
	}
	check("resources/list", strings.Join(listed, "\n"))

	var ins InstructionsOutput
	mustCall(t, cs, "instructions", InstructionsInput{}, &ins)
	check("instructions", ins.Text)
	if !strings.Contains(ins.Text, "部署说明") {
		t.Errorf("instructions lost the clean line:\n%s", ins.Text)
	}

	// The file on disk is not changed.
	if data, err := os.ReadFile(file); err != nil || !strings.Contains(string(data), token) {
		t.Errorf("the memory file was changed: %v", err)
	}
}

// A tool result's text content is the JSON of its structured content: a line withheld from
// both is logged once, and both reach the client clean.
func TestSecretsWithheldCountedOnce(t *testing.T) {
	const token = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
	f := newFixture(t)
	var logs strings.Builder
	s := f.server(t, func(o *Options) { o.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	cs := connect(t, s, nil)
	mustCall(t, cs, "memory_save", SaveInput{Name: "first", Type: "user", Description: "d", Body: "b\n"}, nil)
	file := filepath.Join(s.MemoryDir(), "keys.md")
	if err := os.WriteFile(file, []byte("---\nname: keys\ndescription: written by hand\ntype: reference\n---\nplain "+token+"\nkeep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "memory_get", Arguments: GetInput{Name: "keys"}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	structured, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	for what, got := range map[string]string{"text content": text, "structured content": string(structured)} {
		if strings.Contains(got, "aBcDeF") || !strings.Contains(got, "withheld by strata") || !strings.Contains(got, "keep") {
			t.Errorf("%s: %s", what, got)
		}
	}
	if got := strings.Count(logs.String(), "withheld lines that look like secrets"); got != 1 {
		t.Fatalf("%d log records, want 1:\n%s", got, logs.String())
	}
	if !strings.Contains(logs.String(), "lines=1") {
		t.Errorf("the log counts the line twice:\n%s", logs.String())
	}
}

// anySecret, the scan of a result's JSON where its strings lie, says "secret" exactly when the
// full walk over the decoded value withholds a line: same strings (values, not keys), same
// unescaping, same scanner.
func TestAnySecretAgreesWithWalk(t *testing.T) {
	const token = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
	cases := map[string]any{
		"clean":              SearchOutput{Results: []SearchHit{{Memory: MemoryInfo{Name: "部署"}, Content: "line one\nline <two> & \"three\"\n"}}, Searched: 3},
		"value":              SearchOutput{Results: []SearchHit{{Content: "ok\nplain " + token + "\n"}}},
		"nested value":       map[string]any{"a": []any{1, true, nil, map[string]any{"b": []any{"x", "CI token: " + token}}}},
		"key only":           map[string]any{token: "clean"},
		"quoted key text":    map[string]any{"k": `a": "` + token},
		"split over lines":   map[string]any{"k": "ghp_aBcDeFgHiJkLmNo\nPqRsTuVwXyZ0123456789"},
		"zero-width space":   map[string]any{"k": "ghp_aBcDeFgHiJ\u200bkLmNoPqRsTuVwXyZ0123456789"},
		"escaped separators": map[string]any{"k": "x\u2028" + token + "\\"},
		"base64":             map[string]any{"k": base64.StdEncoding.EncodeToString([]byte("GITHUB_TOKEN=" + token))},
		"long clean":         map[string]any{"k": strings.Repeat("长文本 long text\n", 200)},
		"empty":              map[string]any{"": ""},
	}
	for name, v := range cases {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		_, n, ok := withheldValue(data)
		if !ok {
			t.Fatalf("%s: does not decode", name)
		}
		if got := anySecret(string(data)); got != (n > 0) {
			t.Errorf("%s: anySecret = %v, the walk withholds %d lines", name, got, n)
		}
	}
	// The cases cover both answers.
	if data, _ := json.Marshal(cases["clean"]); anySecret(string(data)) {
		t.Error("a clean result is said to hold a secret")
	}
	if data, _ := json.Marshal(cases["split over lines"]); !anySecret(string(data)) {
		t.Error("a token split over lines is missed")
	}
}

func FuzzAnySecret(f *testing.F) {
	f.Add("k", "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789")
	f.Add("ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", "v")
	f.Add("a\":", "AKIAIOSFODNN7EXAMPLE\n\"\\")
	f.Add("k", "password = hunter2hunter2\r\n中文")
	f.Fuzz(func(t *testing.T, key, value string) {
		data, err := json.Marshal(map[string]any{key: value, "list": []any{value, map[string]any{key: 1}}})
		if err != nil {
			return
		}
		_, n, ok := withheldValue(data)
		if !ok {
			t.Fatalf("%s does not decode", data)
		}
		if got := anySecret(string(data)); got != (n > 0) {
			t.Errorf("%s: anySecret = %v, the walk withholds %d lines", data, got, n)
		}
	})
}

// unescapeJSON decodes a string literal's body as encoding/json does.
func TestUnescapeJSON(t *testing.T) {
	for _, lit := range []string{`"plain 中文"`, `"a\nb\r\tc\"d\\e\/f\b\f"`, `"\u003cb\u003e \u0026 \u2028"`,
		`"\ud83d\ude00 pair"`, `"\ud83d lone"`, `"\ud83dx"`, `"\ude00\ud83d"`, `"\ud83d\u0041"`, `"end\ud83d"`} {
		var want string
		if err := json.Unmarshal([]byte(lit), &want); err != nil {
			t.Fatal(err)
		}
		if got, ok := unescapeJSON(lit[1 : len(lit)-1]); !ok || got != want {
			t.Errorf("unescapeJSON(%s) = %q, %v; want %q", lit, got, ok, want)
		}
	}
	for _, body := range []string{`\`, `\x`, `\u12`, `\u12g4`} {
		if _, ok := unescapeJSON(body); ok {
			t.Errorf("unescapeJSON(%s) accepted a malformed escape", body)
		}
	}
}

func FuzzUnescapeJSON(f *testing.F) {
	f.Add("line\nnext \"q\" \\ <tag> & \u2028 \x01 \xff")
	f.Fuzz(func(t *testing.T, s string) {
		lit, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var want string
		if err := json.Unmarshal(lit, &want); err != nil {
			t.Fatal(err)
		}
		if got, ok := unescapeJSON(string(lit[1 : len(lit)-1])); !ok || got != want {
			t.Errorf("unescapeJSON(%s) = %q, %v; want %q", lit, got, ok, want)
		}
	})
}
