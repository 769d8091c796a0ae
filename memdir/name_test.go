package memdir

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFileName(t *testing.T) {
	tests := []struct{ name, want string }{
		{"Prefer tabs", "prefer-tabs.md"},
		{"  Prefer   tabs!  ", "prefer-tabs.md"},
		{"user_role", "user_role.md"},
		{"部署流程", "部署流程.md"},
		{"部署 流程（生产）", "部署-流程-生产.md"},
		{"Ünïcödé café", "ünïcödé-café.md"},
		{"API: v2 → v3", "api-v2-v3.md"},
		{".hidden", "hidden.md"},
		{"memory", "memory-" + nameHash("memory") + ".md"},
		{"MEMORY", "memory-" + nameHash("MEMORY") + ".md"},
		{"con", "con-" + nameHash("con") + ".md"},
		{"!!!", "memory-" + nameHash("!!!") + ".md"},
		{"🙂", "memory-" + nameHash("🙂") + ".md"},
	}
	for _, tt := range tests {
		if got := FileName(tt.name); got != tt.want {
			t.Errorf("FileName(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
	long := strings.Repeat("长", 100)
	if got := FileName(long); len(got) > maxStemBytes+len("-12345678.md") || !utf8.ValidString(got) || !strings.HasSuffix(got, "-"+nameHash(long)+".md") {
		t.Errorf("FileName(long) = %q", got)
	}
	if FileNameAlt("Prefer tabs") == FileName("Prefer tabs") || FileNameAlt(long) == FileName(long) {
		t.Errorf("FileNameAlt equals FileName")
	}
}

func TestValidateName(t *testing.T) {
	for _, ok := range []string{"a", "Prefer tabs", "部署流程", "a.b", "v1.2 notes", strings.Repeat("x", MaxNameRunes)} {
		if err := ValidateName(ok); err != nil {
			t.Errorf("ValidateName(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", " ", "a/b", `a\b`, "..", "../x", "a..b", "a\tb", "a\nb", "a\x7fb", "a\u2028b", "\xff", strings.Repeat("x", MaxNameRunes+1)} {
		if err := ValidateName(bad); !errors.Is(err, ErrBadName) {
			t.Errorf("ValidateName(%q) = %v, want ErrBadName", bad, err)
		}
	}
}

func FuzzFileName(f *testing.F) {
	for _, s := range []string{"Prefer tabs", "部署流程", "..", "a/b", "memory", "🙂", "", "\x00", strings.Repeat("長", 80)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if ValidateName(name) != nil {
			return
		}
		for _, got := range []string{FileName(name), FileNameAlt(name)} {
			if !strings.HasSuffix(got, ".md") || strings.ContainsAny(got, `/\`) || strings.Contains(got, "..") ||
				strings.HasPrefix(got, ".") || strings.HasPrefix(got, "-") || !utf8.ValidString(got) || len(got) > 200 ||
				strings.EqualFold(got, IndexFile) {
				t.Fatalf("unsafe file name %q for %q", got, name)
			}
			for _, r := range got {
				if r < 0x20 || r == 0x7f {
					t.Fatalf("control character in %q for %q", got, name)
				}
			}
		}
		if FileName(name) != FileName(name) || FileName(name) == FileNameAlt(name) {
			t.Fatalf("mapping of %q not deterministic or alt not distinct", name)
		}
	})
}
