package toolcall

import (
	"encoding/json"
	"errors"
	"maps"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-mem/strata/work"
)

func resolver(p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join("/cwd", p)
	}
	return filepath.Clean(p)
}

func TestDecodeAccepts(t *testing.T) {
	tests := []struct {
		tool, in string
		want     Call
	}{
		{"Read", `{"file_path":"src/a.go","offset":3,"limit":10}`, &Read{FilePath: "/cwd/src/a.go", Offset: 3, Limit: 10}},
		{"Read", `{"file_path":""}`, &Read{}},
		{"Write", `{"file_path":"/abs/x.txt","content":"中文\n"}`, &Write{FilePath: "/abs/x.txt", Content: "中文\n"}},
		{"Edit", `{"file_path":"x","old_string":"a","new_string":"b","replace_all":true}`, &Edit{FilePath: "/cwd/x", OldString: "a", NewString: "b", ReplaceAll: true}},
		{"Glob", `{"pattern":"**/*.go"}`, &Glob{Pattern: "**/*.go", Path: "/cwd"}},
		{"Grep", `{"pattern":"x","path":"sub","-i":true,"-C":2,"output_mode":"content","head_limit":5,"glob":"*.go"}`,
			&Grep{Pattern: "x", Path: "/cwd/sub", Insens: true, Context: 2, OutputMode: "content", HeadLimit: 5, Glob: "*.go"}},
		{"Bash", `{"command":"ls","timeout":1000,"description":"list"}`, &Bash{Command: "ls", Timeout: 1000, Description: "list"}},
		{"TodoWrite", `{"todos":[{"content":"a","activeForm":"doing a","status":"pending"}]}`,
			&TodoWrite{Todos: []work.Todo{{Content: "a", ActiveForm: "doing a", Status: work.TodoPending}}}},
		{"TodoWrite", `{"todos":[]}`, &TodoWrite{Todos: []work.Todo{}}},
		{"memory_save", `{"name":"n","description":"d","type":"user","body":"b"}`, &MemorySave{Name: "n", Description: "d", Type: "user", Body: "b"}},
		{"memory_forget", `{"name":"n"}`, &MemoryForget{Name: "n"}},
		{"memory_search", ` {"query":"q","limit":3} `, &MemorySearch{Query: "q", Limit: 3}},
	}
	for _, tt := range tests {
		got, err := Decode(tt.tool, []byte(tt.in), resolver)
		if err != nil {
			t.Errorf("Decode(%s, %s): %v", tt.tool, tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Decode(%s, %s) (-want +got):\n%s", tt.tool, tt.in, diff)
		}
		if got.Tool() != tt.tool {
			t.Errorf("Decode(%s).Tool() = %s", tt.tool, got.Tool())
		}
	}
}

func TestDecodeRefuses(t *testing.T) {
	tests := []struct {
		tool, in, want string
	}{
		{"Write", `{"file_path":"src/ok.txt","FILE_PATH":"/outside.txt","content":"x"}`, `"file_path" and "FILE_PATH" are the same key`},
		{"Write", `{"FILE_PATH":"/outside.txt","file_path":"src/ok.txt","content":"x"}`, `unknown key "FILE_PATH"`},
		{"Edit", `{"file_path":"a","File_Path":"/b","old_string":"x","new_string":"y"}`, "same key in a different letter case"},
		{"Write", `{"file_path":"a","file_path":"/b","content":"x"}`, `key "file_path" appears twice`},
		{"Bash", `{"command":"ls","COMMAND":"rm -rf /"}`, "same key"},
		{"Bash", `{"command":"ls","co\u006dmand":"rm -rf /"}`, "appears twice"},
		{"Write", `{"FILE_PATH":"/outside.txt","content":"x"}`, `unknown key "FILE_PATH" (keys are case-sensitive: the key is "file_path")`},
		{"Read", "{\"file_path\":\"a\",\"\u212Aey\":1}", "unknown key"},
		{"Read", `{"file_path":"a","offset":1,"extra":true}`, `unknown key "extra"; the keys are "file_path", "limit", "offset"`},
		{"Write", `{"file_path":"a"}`, `missing required key "content"`},
		{"Read", `{}`, `missing required key "file_path"`},
		{"Read", ``, `missing required key "file_path"`},
		{"Read", `{"file_path":7}`, `"file_path" must be a string, not the number 7`},
		{"Read", `{"file_path":null}`, `"file_path" must be a string, not null`},
		{"Read", `{"file_path":"a","offset":1.5}`, `"offset" must be an integer`},
		{"Read", `{"file_path":"a","offset":"1"}`, `"offset" must be an integer`},
		{"Edit", `{"file_path":"a","old_string":"x","new_string":"y","replace_all":"yes"}`, `"replace_all" must be a boolean`},
		{"Read", `["file_path"]`, "the input must be an object, not an array"},
		{"Read", `"x"`, "the input must be an object"},
		{"Read", `{"file_path":"a"} {"file_path":"/b"}`, "more than one JSON value"},
		{"Read", `{"file_path":"a"`, "not valid JSON"},
		{"Read", `not json`, "not valid JSON"},
		{"TodoWrite", `{"todos":[{"content":"a","activeForm":"b","status":"pending","id":"1"}]}`, `unknown key "id" in "todos[0]"`},
		{"TodoWrite", `{"todos":[{"content":"a","activeForm":"b","status":"pending","STATUS":"completed"}]}`, `same key in a different letter case in "todos[0]"`},
		{"TodoWrite", `{"todos":[{"content":"a","status":"pending"}]}`, `missing required key "activeForm" in "todos[0]"`},
		{"TodoWrite", `{"todos":{}}`, `"todos" must be an array, not an object`},
	}
	for _, tt := range tests {
		c, err := Decode(tt.tool, []byte(tt.in), resolver)
		if err == nil {
			t.Errorf("Decode(%s, %s) = %#v, want an error containing %q", tt.tool, tt.in, c, tt.want)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "invalid input: ") {
			t.Errorf("Decode(%s, %s): %v, want %q", tt.tool, tt.in, err, tt.want)
		}
	}
	if _, err := Decode("Teleport", []byte(`{}`), nil); !errors.Is(err, ErrUnknownTool) {
		t.Errorf("unknown tool: %v", err)
	}
}

// The schemas offered to the model are the ones Decode enforces, and each is valid JSON.
func TestSchemas(t *testing.T) {
	for _, name := range slices.Sorted(maps.Keys(specs)) {
		raw, err := Schema(name)
		if err != nil || !json.Valid(raw) {
			t.Errorf("Schema(%s): %v", name, err)
		}
		c := specs[name].new()
		if c.Tool() != name {
			t.Errorf("%s's input says it is for %s", name, c.Tool())
		}
		// Every property of the schema is a field of the typed input, and back.
		var props []string
		for p := range parsedSchemas()[name].Properties {
			props = append(props, p)
		}
		var fields []string
		rt := reflect.TypeOf(c).Elem()
		for i := range rt.NumField() {
			fields = append(fields, strings.Split(rt.Field(i).Tag.Get("json"), ",")[0])
		}
		slices.Sort(props)
		slices.Sort(fields)
		if diff := cmp.Diff(props, fields); diff != "" {
			t.Errorf("%s: schema properties vs fields (-schema +fields):\n%s", name, diff)
		}
	}
	if _, err := Schema("nope"); !errors.Is(err, ErrUnknownTool) {
		t.Errorf("Schema(nope) = %v", err)
	}
}

// FuzzDecodeToolInput: an input is refused, or every key it holds is a key of the schema,
// spelled exactly and given once, and the decoded value holds exactly what the input says
// under those keys: no other reading of the input (first key wins, last key wins, case
// folded or not) could see a different value than the tool runs.
func FuzzDecodeToolInput(f *testing.F) {
	for _, s := range []struct{ tool, in string }{
		{"Write", `{"file_path":"src/ok.txt","FILE_PATH":"/outside.txt","content":"x"}`},
		{"Edit", `{"file_path":"a","old_string":"x","new_string":"y","replace_all":true}`},
		{"Read", `{"file_path":"a","offset":1,"limit":2}`},
		{"Bash", `{"command":"ls","timeout":5}`},
		{"Grep", `{"pattern":"x","-i":true,"-C":1}`},
		{"TodoWrite", `{"todos":[{"content":"a","activeForm":"b","status":"pending"}]}`},
		{"memory_save", `{"name":"n","description":"d","type":"user","body":"b"}`},
		{"Glob", "{\"pattern\":\"*\",\"pat\u212Aern\":\"x\"}"},
	} {
		f.Add(s.tool, s.in)
	}
	f.Fuzz(func(t *testing.T, tool, in string) {
		c, err := Decode(tool, []byte(in), nil)
		if err != nil {
			return
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal([]byte(in), &raw); err != nil && strings.TrimSpace(in) != "" {
			t.Fatalf("accepted %s input %q that is not a JSON object: %v", tool, in, err)
		}
		if n := len(keySeparator.FindAllStringIndex(in, -1)); len(raw) > n { // JSON allows space before the colon
			t.Fatalf("more keys than key separators")
		}
		back, _ := json.Marshal(c)
		var got map[string]json.RawMessage
		json.Unmarshal(back, &got)
		for k, v := range raw {
			prop := parsedSchemas()[tool].Properties[k]
			if prop == nil {
				t.Fatalf("accepted unknown key %q in %q", k, in)
			}
			var want, have any
			json.Unmarshal(v, &want)
			json.Unmarshal(got[k], &have)
			if prop.Type == "array" || prop.Type == "object" {
				continue // nested values are checked by their own keys below
			}
			if !reflect.DeepEqual(want, have) {
				t.Fatalf("%s %q: key %q says %v, the decoded call holds %v", tool, in, k, want, have)
			}
		}
		// No key appears twice in any letter case (counted on the text, not through a map).
		dec := json.NewDecoder(strings.NewReader(in))
		depth, seen := 0, map[string]bool{}
		for expectKey := false; ; {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			switch v := tok.(type) {
			case json.Delim:
				if v == '{' || v == '[' {
					depth++
					expectKey = v == '{' && depth == 1
				} else {
					depth--
					expectKey = depth == 1
				}
				continue
			case string:
				if depth == 1 && expectKey {
					if seen[strings.ToLower(v)] {
						t.Fatalf("%s %q: key %q twice", tool, in, v)
					}
					seen[strings.ToLower(v)] = true
					expectKey = false
					continue
				}
			}
			if depth == 1 {
				expectKey = true
			}
		}
	})
}

// keySeparator is the end of an object key and its colon, with the white space JSON allows
// between them.
var keySeparator = regexp.MustCompile(`"[ \t\r\n]*:`)

func TestSummary(t *testing.T) {
	long := strings.Repeat("x", 130)
	for in, want := range map[string]string{
		`{"content":"a","file_path":"/p/f.go"}`: `file_path="/p/f.go"`,
		`{"command":"ls\u0000"}`:                `command="ls\x00"`,
		`{"query":"` + long + `"}`:              `query="` + long[:120] + `…"`,
		`{"todos":[]}`:                          "",
		`[1]`:                                   "(input not a JSON object)",
	} {
		if got := Summary([]byte(in)); got != want {
			t.Errorf("Summary(%s) = %s, want %s", in, got, want)
		}
	}
}
