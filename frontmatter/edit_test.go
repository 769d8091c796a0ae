package frontmatter

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const claudeCodeRaw = `name: prefer tabs
description: Indent with tabs
# a note kept by hand
metadata:
  type: feedback
  modified: 2026-04-30T09:12:44.120Z
  originSessionId: 14c32944-3478-476d-8048-90bfb1869d63
  node_type: memory
tags:
- style
`

func TestMetaString(t *testing.T) {
	doc, err := Parse([]byte("---\n" + claudeCodeRaw + "---\nbody\n"))
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"name": "prefer tabs", "type": "feedback", "modified": "2026-04-30T09:12:44.12Z", // read as a time
		"originSessionId": "14c32944-3478-476d-8048-90bfb1869d63", "node_type": "memory", "absent": "",
	} {
		if got := doc.MetaString(key); got != want {
			t.Errorf("MetaString(%q) = %q, want %q", key, got, want)
		}
	}
	// The top level wins over the block.
	doc, _ = Parse([]byte("---\ntype: user\nmetadata:\n  type: feedback\n---\n"))
	if got := doc.MetaString("type"); got != "user" {
		t.Errorf("MetaString(type) = %q, want the top-level user", got)
	}
	if p, ok := doc.Locate("type"); !ok || p != "" {
		t.Errorf("Locate(type) = %q, %v", p, ok)
	}
}

func TestSet(t *testing.T) {
	tests := []struct {
		name, raw, parent, key, value, want string
	}{
		{"replace nested", claudeCodeRaw, MetaKey, "modified", "2026-05-01T00:00:00.000Z",
			strings.Replace(claudeCodeRaw, "2026-04-30T09:12:44.120Z", "2026-05-01T00:00:00.000Z", 1)},
		{"replace top", claudeCodeRaw, "", "description", "Tabs: always",
			strings.Replace(claudeCodeRaw, "Indent with tabs", "'Tabs: always'", 1)},
		{"add nested", "name: x\nmetadata:\n    type: user\nother: 1\n", MetaKey, "modified", "2026-05-01",
			"name: x\nmetadata:\n    type: user\n    modified: \"2026-05-01\"\nother: 1\n"},
		{"add top", "name: x\n", "", "type", "user", "name: x\ntype: user\n"},
		{"plain timestamp", "modified: 2026-04-30T09:12:44Z\n", "", "modified", "2026-05-01T00:00:00.000Z", "modified: 2026-05-01T00:00:00.000Z\n"},
		{"multi-line value replaced whole", "description: >-\n  two\n  lines\nname: x\n", "", "description", "one",
			"description: one\nname: x\n"},
		{"list value kept", "tags:\n- a\n- b\nname: x\n", "", "name", "other", "tags:\n- a\n- b\nname: other\n"},
		{"key prefix is another key", "names: a\nname: x\n", "", "name", "other", "names: a\nname: other\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Set(tt.raw, tt.parent, tt.key, tt.value)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Set (-want +got):\n%s", diff)
			}
		})
	}
	for _, bad := range []struct{ raw, parent, key string }{
		{"metadata: {type: user}\n", MetaKey, "type"}, // flow mapping
		{"name: x\nname: y\n", "", "name"},            // given twice: read back differs
		{"name: x\n", MetaKey, "type"},                // no block
	} {
		if got, err := Set(bad.raw, bad.parent, bad.key, "z"); err == nil {
			t.Errorf("Set(%q, %q) = %q, want an error", bad.raw, bad.key, got)
		}
	}
}

// FuzzSet: whatever Set returns without an error reads back as the value asked for, and every
// other top-level key and metadata key keeps its value.
func FuzzSet(f *testing.F) {
	f.Add(claudeCodeRaw, true, "type", "project")
	f.Add("name: x\ndescription: >-\n  a\n  b\n", false, "description", "one: two")
	f.Add("metadata:\n  type: user\n", true, "modified", "2026-05-01T00:00:00.000Z")
	f.Fuzz(func(t *testing.T, raw string, nested bool, key, value string) {
		parent := ""
		if nested {
			parent = MetaKey
		}
		before := Doc{Raw: raw}
		if decode(&before) != nil {
			return
		}
		got, err := Set(raw, parent, key, value)
		if err != nil {
			return
		}
		after := Doc{Raw: got}
		if err := decode(&after); err != nil {
			t.Fatalf("Set(%q, %q, %q, %q) = %q, which does not parse: %v", raw, parent, key, value, got, err)
		}
		for k, v := range before.Fields {
			if k == key && parent == "" || k == parent {
				continue
			}
			if !cmp.Equal(v, after.Fields[k]) {
				t.Errorf("Set(%q, %q, %q) changed %q: %v → %v", raw, parent, key, k, v, after.Fields[k])
			}
		}
		if parent != "" {
			for k, v := range before.Meta() {
				if k != key && !cmp.Equal(v, after.Meta()[k]) {
					t.Errorf("Set(%q, meta, %q) changed metadata %q: %v → %v", raw, key, k, v, after.Meta()[k])
				}
			}
		}
	})
}
