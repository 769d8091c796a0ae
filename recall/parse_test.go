package recall

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/memdir"
)

var parseSeeds = []string{
	"---\nname: prefer-tabs\ndescription: The user prefers tabs\ntype: user\n---\n\nbody\n",
	"---\nname: \"quoted: name\"\ndescription: 'single'\ntype: feedback\n---\nbody",
	"---\nname: 数据库\ndescription: 数据库迁移文件\ntype: project\nmodified: \"2026-01-02\"\n---\n",
	"---\nname: x\nmodified: 2026-01-02T10:00:00Z\n---\nb",
	"---\nname: yes\n---\n",
	"---\nname: 123\n---\n",
	"---\nname: a # comment\n---\n",
	"---\nname: a\nname: b\n---\n",
	"---\r\nname: a\r\n---\r\nbody",
	"\xef\xbb\xbf---\nname: a\n---\n",
	"---\nname: a\n",
	"---\n---\nonly body",
	"no frontmatter",
	"---\nname: [a, b]\n---\n",
	"---\nname: a\\nb\n---\n",
	"---\nname:  two spaces\n---\n",
	"---\nnested:\n  key: v\n---\n",
	"---\nname: a\n...\nbody",
	"---\nname: \"a\"b\"\n---\n",
	"---\ndescription: ends with colon:\n---\n",
	"---\nname: ~\n---\n",
}

func TestParseMemoryMatchesParseFile(t *testing.T) {
	for _, s := range parseSeeds {
		checkParseSame(t, s)
	}
}

func checkParseSame(t *testing.T, s string) {
	t.Helper()
	wantM, wantD := memdir.ParseFile("/m/x.md", "x.md", []byte(s))
	gotM, gotD := parseMemory("/m/x.md", "x.md", []byte(s))
	if diff := cmp.Diff(wantM, gotM); diff != "" {
		t.Fatalf("%q: memory differs from ParseFile (-want +got):\n%s", s, diff)
	}
	if diff := cmp.Diff(wantD, gotD); diff != "" {
		t.Fatalf("%q: diagnostics differ from ParseFile (-want +got):\n%s", s, diff)
	}
}

func TestParseSimpleTakesTheFastPath(t *testing.T) {
	if _, ok := parseSimple("/m/x.md", "x.md", []byte(parseSeeds[0])); !ok {
		t.Error("strata's own frontmatter should take the fast path")
	}
}

func FuzzParseMemory(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkParseSame(t, s) })
}
