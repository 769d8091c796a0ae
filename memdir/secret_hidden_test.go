package memdir

import (
	"encoding/base64"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const ghToken = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"

// fullWidth writes s in full-width letters, as a hostile text would to slip past a scanner.
func fullWidth(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r > ' ' && r < 0x7f {
			r += 0xFEE0
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Obfuscated secrets are found with their kind and line: invisible characters inside, full-width
// letters, a key split over lines, base64 of a key.
func TestScanSecretsObfuscated(t *testing.T) {
	tests := []struct {
		name, text, kind string
		lines            int
	}{
		{"zero-width space", "use ghp_aBcDeFgHiJ\u200bkLmNoPqRsTuVwXyZ0123456789 for CI", "GitHub token (hidden with invisible or full-width characters)", 1},
		{"zero-width joiner and BOM", "key: AKIA\u200dIOSFODNN7\ufeffEXAMPLF", "AWS access key ID (hidden with invisible or full-width characters)", 1},
		{"soft hyphen", "sk-ant-api03-abcdefghij\u00adklmnopqrstuvwxyz0123456789", "Anthropic API key (hidden with invisible or full-width characters)", 1},
		{"full-width letters", "token " + fullWidth(ghToken), "GitHub token (hidden with invisible or full-width characters)", 1},
		{"full-width assignment", fullWidth("db_password = Xk9#mQ2$vL8pR4wZ"), `high-entropy value assigned to "db_password" (hidden with invisible or full-width characters)`, 1},
		{"split over two lines", "ghp_aBcDeFgHiJkLmNo\nPqRsTuVwXyZ0123456789", "GitHub token (split over lines)", 2},
		{"split over three indented lines", "  sk-ant-api03-abcdef\n  ghijklmnopqrstu\n  vwxyz0123456789", "Anthropic API key (split over lines)", 3},
		{"base64 of a token", "config: " + base64.StdEncoding.EncodeToString([]byte("GITHUB_TOKEN="+ghToken)), "GitHub token (base64-encoded)", 1},
		{"url-safe base64 unpadded", base64.RawURLEncoding.EncodeToString([]byte("AKIAIOSFODNN7EXAMPLF")), "AWS access key ID (base64-encoded)", 1},
		{"base64 of a PEM header", base64.StdEncoding.EncodeToString([]byte("-----BEGIN RSA PRIVATE KEY-----\nMIIE")), "PEM private key (base64-encoded)", 1},
		{"base64 with hidden characters", "x " + "\u200b" + base64.StdEncoding.EncodeToString([]byte(ghToken)), "GitHub token (base64-encoded)", 1},
	}
	for _, tt := range tests {
		got := ScanSecrets("first line\n" + tt.text + "\nlast line")
		if len(got) != 1 || got[0].Kind != tt.kind || got[0].Line != 2 || got[0].Lines != tt.lines {
			t.Errorf("%s: ScanSecrets(%q) = %+v, want %s on line 2 over %d lines", tt.name, tt.text, got, tt.kind, tt.lines)
		}
	}
}

// The clean texts of TestScanSecretsIgnoresProseAndCode stay clean when read as one text (no
// split finding across them), when written full-width, and base64 of prose is not a finding.
func TestScanSecretsObfuscationNoFalsePositives(t *testing.T) {
	text := strings.Join(cleanTexts, "\n")
	if got := ScanSecrets(text); len(got) != 0 {
		t.Errorf("clean lines joined: %+v", got)
	}
	for _, c := range cleanTexts {
		if got := ScanSecrets(fullWidth(c)); len(got) != 0 {
			t.Errorf("ScanSecrets(full-width %q) = %+v, want nothing", c, got)
		}
	}
	for _, c := range []string{
		base64.StdEncoding.EncodeToString([]byte("just some prose that is encoded")),
		"sha256-" + base64.StdEncoding.EncodeToString([]byte{0x9f, 0x86, 0xd0, 0x81, 0x88, 0x4c, 0x7d, 0x65, 0x9a, 0x2f, 0xea, 0xa0, 0xc5, 0x5a, 0xd0, 0x15, 0xa3, 0xbf, 0x4f, 0x1b, 0x2b}),
		"记忆\u200b中文\u200d没有秘密，全角：ＡＢＣ",
		"See the setup guide\nghp_ tokens go in the vault\nnot here",
	} {
		if got := ScanSecrets(c); len(got) != 0 {
			t.Errorf("ScanSecrets(%q) = %+v, want nothing", c, got)
		}
	}
}

// WithholdSecrets replaces each line holding a secret (all lines of a split one) by a marker
// naming the kind and keeps every other line.
func TestWithholdSecrets(t *testing.T) {
	in := "# 部署\nuse " + ghToken + " in CI\nkeep this\nghp_aBcDeFgHiJkLmNo\nPqRsTuVwXyZ0123456789\nthe last line"
	got, found := WithholdSecrets(in)
	want := "# 部署\n" + SecretMarker("GitHub token") + "\nkeep this\n" + SecretMarker("GitHub token (split over lines)") + "\nthe last line"
	if got != want || len(found) != 2 {
		t.Errorf("WithholdSecrets = %q (%d findings), want %q", got, len(found), want)
	}
	if strings.Contains(got, "aBcDeF") {
		t.Error("a piece of the token survived")
	}
	if out, found := WithholdSecrets("nothing here\n"); out != "nothing here\n" || found != nil {
		t.Errorf("clean text changed: %q %v", out, found)
	}
	// A CRLF file (written on Windows) keeps its line ends: the marker is one more CRLF line.
	crlf := strings.ReplaceAll(in, "\n", "\r\n")
	got, _ = WithholdSecrets(crlf)
	if want := strings.ReplaceAll(want, "\n", "\r\n"); got != want {
		t.Errorf("WithholdSecrets(CRLF) = %q, want %q", got, want)
	}
}

// BenchmarkScanSecrets scans a typical memory: prose, a code block, a list — what every save,
// lint and MCP result pays.
func BenchmarkScanSecrets(b *testing.B) {
	text := strings.Repeat("The deploy script reads DEPLOY_TOKEN from the environment; never commit it.\n"+
		"```go\nfunc (s *Store) Add(ctx context.Context, in Input) (Result, error) {\n```\n"+
		"- 部署前先在预发布环境验证，再推送到生产环境。\n- See https://wiki.example.com/deploy for details\n", 10)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		scanSecrets(text) // the scan itself; ScanSecrets would answer from its cache
	}
}

// base64Runs finds what the regexp it replaces found.
func TestBase64RunsAsRegexp(t *testing.T) {
	re := regexp.MustCompile(`[A-Za-z0-9+/_\-]{20,}={0,2}`)
	for _, line := range []string{
		"", "short", "key: c2stYW50LWFwaTAzLWFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6MDEyMzQ1Njc4OQ== end",
		"a b c 0123456789012345678 01234567890123456789= x ===", "aGVsbG8gd29ybGQgaGVsbG8gd29ybGQ===",
		"部署 dXNlcjpwYXNzd29yZC1sb25nLWVub3VnaA 中文 -_-_-_-_-_-_-_-_-_-_-_", "https://example.com/path/to/a/very/long/url?q=1",
	} {
		if got, want := base64Runs(line), re.FindAllString(line, -1); !slices.Equal(got, want) {
			t.Errorf("base64Runs(%q) = %q, regexp %q", line, got, want)
		}
	}
}

func FuzzBase64Runs(f *testing.F) {
	f.Add("key=" + strings.Repeat("QUJD", 8) + "==")
	re := regexp.MustCompile(`[A-Za-z0-9+/_\-]{20,}={0,2}`)
	f.Fuzz(func(t *testing.T, line string) {
		if got, want := base64Runs(line), re.FindAllString(line, -1); !slices.Equal(got, want) {
			t.Errorf("base64Runs(%q) = %q, regexp %q", line, got, want)
		}
	})
}

// hasTokenCue is one pass over the line; it answers as a Contains of every cue would.
func FuzzHasTokenCue(f *testing.F) {
	for _, s := range []string{"AKIA1234", "use aWs keys", "plain prose", "xoxb-1", "中文 sk-ant", "-----BEGIN PRIVATE KEY-----"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := strings.Contains(strings.ToLower(s), "aws")
		for _, c := range tokenCues {
			want = want || strings.Contains(s, c)
		}
		if got := hasTokenCue(s); got != want {
			t.Errorf("hasTokenCue(%q) = %v, want %v", s, got, want)
		}
	})
}
