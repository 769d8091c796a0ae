package memdir

import (
	"encoding/base64"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// scanCases are texts every check of the scan meets: the finding and clean texts of the other
// tests, hidden characters, CJK, bytes that are not UTF-8, split keys, base64.
func scanCases() []string {
	cases := []string{"", "x", "a=b\nc:d", "ghp_aBcDeFgHiJkLmNo\nPqRsTuVwXyZ0123456789", "ｇｈｐ＿\u200b",
		"部署前先在预发布环境验证 token = " + "Xk9#mQ2$vL8pR4wZ", "비밀번호: Xk9#mQ2$vL8pR4wZ", "bad \xff\xfe utf-8 AKIA\xffIOSFODNN7EXAMPLF",
		"AKIAIOSFODNN7EXAMPLE\u200bX", "foo s\nk-ant-api03-abcdefghijklmnopqrstuvwxyz012", "aws", "AwS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'",
		base64.StdEncoding.EncodeToString([]byte("sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789")),
		"  xo\n  xb-1234567890-abcdefghijkl", "ＰＡＳＳＷＯＲＤ＝Xk9#mQ2$vL8pR4wZ", "p\u00adassword = Xk9#mQ2$vL8pR4wZ"}
	cases = append(cases, cleanTexts...)
	for _, c := range cleanTexts {
		cases = append(cases, fullWidth(c))
	}
	return cases
}

// The scan with its prefilters finds exactly what the line-by-line scan before them found.
func TestScanSecretsAsReference(t *testing.T) {
	texts := scanCases()
	texts = append(texts, strings.Join(texts, "\n"))
	for _, text := range texts {
		if diff := cmp.Diff(refScanSecrets(text), scanSecrets(text)); diff != "" {
			t.Errorf("scanSecrets(%q) (-reference +fast):\n%s", text, diff)
		}
	}
}

// The same on every real instruction file of the shared corpus.
func TestScanSecretsAsReferenceCorpus(t *testing.T) {
	for _, text := range corpusInstructionTexts(t) {
		if diff := cmp.Diff(refScanSecrets(text), scanSecrets(text)); diff != "" {
			t.Errorf("scanSecrets(%.80q…) (-reference +fast):\n%s", text, diff)
		}
	}
}

func FuzzScanSecretsAsReference(f *testing.F) {
	for _, s := range scanCases() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if diff := cmp.Diff(refScanSecrets(text), scanSecrets(text)); diff != "" {
			t.Errorf("scanSecrets(%q) (-reference +fast):\n%s", text, diff)
		}
	})
}

// unhide leaves text that needs no change as it is, without copying it.
func TestUnhideKeepsPlainText(t *testing.T) {
	for _, s := range []string{"plain", "部署前先在预发布环境验证", "한국어 문장", "ｇｈｐ＿", "a\u200bb", "\xff", "a\u3000b"} {
		got := unhide(s)
		if got != refUnhide(s) {
			t.Errorf("unhide(%q) = %q, want %q", s, got, refUnhide(s))
		}
		if got == s && len(s) > 0 && unsafe.StringData(got) != unsafe.StringData(s) {
			t.Errorf("unhide(%q) copied a text it did not change", s)
		}
	}
}

// The cache answers a text scanned before without a scan, and a changed text — a file edited
// to hold a secret, or a reused buffer — is scanned again.
func TestScanSecretsCache(t *testing.T) {
	var c secretCache
	clean := strings.Repeat("Fragment text that the instruction file imports; a shared style guide.\n", 10)
	if got := c.scan(clean); got != nil {
		t.Fatalf("clean text: %+v", got)
	}
	if got := c.scan(clean); got != nil || c.hits != 1 {
		t.Fatalf("clean text again: %+v, %d hits, want none and 1", got, c.hits)
	}
	// The same file with a token added on its third line: a new key, scanned.
	lines := strings.Split(clean, "\n")
	lines[2] = "use " + ghToken + " for CI"
	changed := strings.Join(lines, "\n")
	want := []SecretFinding{{Kind: "GitHub token", Line: 3, Lines: 1}}
	if diff := cmp.Diff(want, c.scan(changed)); diff != "" || c.hits != 1 {
		t.Fatalf("changed text (-want +got), %d hits:\n%s", c.hits, diff)
	}
	// A cached answer is the caller's to change.
	got := c.scan(changed)
	got[0].Kind = "changed by the caller"
	if diff := cmp.Diff(want, c.scan(changed)); diff != "" || c.hits != 3 {
		t.Fatalf("after the caller changed an answer (-want +got), %d hits:\n%s", c.hits, diff)
	}
	// A view of a buffer that is then overwritten in place (as the instruction loader's
	// pooled read buffers are): the cache kept a copy, so the new bytes are scanned.
	buf := []byte(clean)
	view := unsafe.String(&buf[0], len(buf))
	c.scan(view)
	copy(buf, changed)
	if diff := cmp.Diff(want, c.scan(unsafe.String(&buf[0], len(changed)))); diff != "" {
		t.Fatalf("reused buffer (-want +got):\n%s", diff)
	}
}

// Very short texts are not kept, and the cache never keeps more than secretCacheBytes of text.
func TestScanSecretsCacheBounds(t *testing.T) {
	var c secretCache
	short := "use " + ghToken
	c.scan(short)
	c.scan(short)
	if c.hits != 0 || len(c.found) != 0 {
		t.Fatalf("short text: %d hits, %d kept; want none", c.hits, len(c.found))
	}
	// A short CLAUDE.md (an instruction load meets one per directory) is kept, and the same
	// text with a token on its last line is a new key, scanned.
	md := "# Level 3\n\nConventions for this part of the tree.\n\nSee @frag.md for the shared guide.\n"
	if len(md) < secretCacheMin {
		t.Fatalf("the CLAUDE.md of the synthetic repository (%d bytes) is below secretCacheMin", len(md))
	}
	c.scan(md)
	if got := c.scan(md); got != nil || c.hits != 1 {
		t.Fatalf("short CLAUDE.md again: %+v, %d hits; want none and 1", got, c.hits)
	}
	if got := c.scan(md + short + "\n"); len(got) != 1 || got[0].Line != 6 || c.hits != 1 {
		t.Fatalf("short CLAUDE.md with a token: %+v, %d hits; want the token on line 6 and 1 hit", got, c.hits)
	}
	if c.bytes != 2*secretEntryBytes+2*len(md)+len(short)+1 {
		t.Fatalf("%d bytes counted, want the texts and %d for each entry", c.bytes, secretEntryBytes)
	}
	c = secretCache{}
	text := strings.Repeat("x", secretCacheBytes/3)
	for i, want := range []int{1, 2, 1, 2} { // the third text does not fit: the cache is emptied
		c.scan(text + string(rune('a'+i)))
		if c.bytes > secretCacheBytes || len(c.found) != want {
			t.Fatalf("after %d texts the cache keeps %d texts, %d bytes; want %d texts, at most %d bytes", i+1, len(c.found), c.bytes, want, secretCacheBytes)
		}
	}
	c.scan(strings.Repeat("y", secretCacheBytes+1))
	if len(c.found) != 2 {
		t.Errorf("a text over the bound changed the cache: %d kept", len(c.found))
	}
}
