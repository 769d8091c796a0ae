package memdir

import (
	"strings"
	"testing"
)

func TestScanSecretsFinds(t *testing.T) {
	tests := []struct{ text, kind string }{
		{"key: AKIAIOSFODNN7EXAMPLE", "AWS access key ID"},
		{"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "AWS secret access key"},
		{"maps key AIzaSyA1234567890abcdefghijklmnopqrstuv", "GCP API key"},
		{"Authorization: Bearer ya29.a0AfH6SMBx3abcdefghijklmnop", "GCP OAuth access token"},
		{`"private_key_id": "0123456789abcdef0123456789abcdef01234567",`, "GCP service account key"},
		{"use ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 for CI", "GitHub token"},
		{"github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "GitHub token"},
		{"GITLAB glpat-abcdefghij0123456789", "GitLab token"},
		{"slack: xoxb-1234567890-abcdefghijkl", "Slack token"},
		{"https://hooks.slack.com/services/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", "Slack webhook URL"},
		{"ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789", "Anthropic API key"},
		{"sk-proj-abcdefghijklmnopqrstT3BlbkFJabcdefghijklmnop", "OpenAI API key"},
		{"sk-abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV", "OpenAI API key"},
		{"token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "JSON Web Token"},
		{"-----BEGIN RSA PRIVATE KEY-----", "PEM private key"},
		{"-----BEGIN PRIVATE KEY-----", "PEM private key"},
		{"-----BEGIN OPENSSH PRIVATE KEY-----", "PEM private key"},
		{"db_password = Xk9#mQ2$vL8pR4wZ", `high-entropy value assigned to "db_password"`},
		{`"client_secret": "8f14e45fceea167a5a36dedd4bea2543"`, `high-entropy value assigned to "client_secret"`},
		{"API_TOKEN: a1B2c3D4e5F6g7H8i9J0", `high-entropy value assigned to "API_TOKEN"`},
		{"authToken = 'Zq8vN3kLp0Xw7RtY2mBc'", `high-entropy value assigned to "authToken"`},
		{"export SIGNING_KEY=Zq8vN3kLp0Xw7RtY2mBc", `high-entropy value assigned to "SIGNING_KEY"`},
		{"password: Zq8vN3kLp0Xw7!", `high-entropy value assigned to "password"`},
	}
	for _, tt := range tests {
		got := ScanSecrets("first line\n" + tt.text + "\nlast line")
		if len(got) != 1 || got[0].Kind != tt.kind || got[0].Line != 2 {
			t.Errorf("ScanSecrets(%q) = %+v, want %s on line 2", tt.text, got, tt.kind)
		}
	}
}

// TestScanSecretsIgnoresProseAndCode guards against false positives: memories talk about
// tokens, passwords and keys all the time.
func TestScanSecretsIgnoresProseAndCode(t *testing.T) {
	for _, text := range cleanTexts {
		if got := ScanSecrets(text); len(got) != 0 {
			t.Errorf("ScanSecrets(%q) = %+v, want nothing", text, got)
		}
	}
}

func FuzzScanSecrets(f *testing.F) {
	for _, s := range []string{"password = Xk9#mQ2$vL8pR4", "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", "token: 口令", "a=b\nc:d",
		"ghp_aBcDeFgHiJkLmNo\nPqRsTuVwXyZ0123456789", "Z2hwX2FCY0RlRmdIaUprTG1Ob1BxUnNUdVZ3WHlaMDEyMzQ1Njc4OQ==", "ｇｈｐ＿\u200b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		lines := strings.Count(text, "\n") + 1
		found := ScanSecrets(text)
		for _, fd := range found {
			if fd.Line < 1 || fd.Lines < 1 || fd.Line+fd.Lines-1 > lines || fd.Kind == "" {
				t.Fatalf("bad finding %+v for %q", fd, text)
			}
		}
		// Withholding leaves nothing a second scan finds, and keeps a clean text as it is.
		out, withheld := WithholdSecrets(text)
		if len(withheld) != len(found) || len(found) == 0 && out != text {
			t.Fatalf("WithholdSecrets(%q) = %q, %d findings; ScanSecrets found %d", text, out, len(withheld), len(found))
		}
		if again := ScanSecrets(out); len(again) != 0 {
			t.Fatalf("after withholding %q: %+v", out, again)
		}
	})
}

// cleanTexts are prose and code about secrets that hold none.
var cleanTexts = []string{
	"The auth token is refreshed every hour; never log it.",
	"token: see the wiki page on rotation",
	"password: hunter2",
	// References and sample values from real instruction files (Claude Code shows these lines).
	"  apiKey: process.env.OPENAI_API_KEY!,",
	"    'password': 'password123',",
	`const token = process.env.GITHUB_TOKEN!;`,
	"max_tokens: 4096",
	"token_budget = 25000 tokens",
	`api_key = os.Getenv("API_KEY")`,
	"TOKEN=${GITHUB_TOKEN}",
	"secret_key: <your key here>",
	"password := cfg.Database.Password",
	"passwordHash := bcrypt.GenerateFromPassword(pw)",
	"accessToken = getAccessToken()",
	"secretName: prod-db-credentials-v2",
	"SECRET_KEY=changeme-in-production",
	"token: xxxxxxxxxxxxxxxxxxxx",
	"password: ********",
	"credentials: ~/.aws/credentials",
	"the password: 口令要足够长，至少十二个字符",
	"密码：见保险库 vault://prod/db",
	"commit 3f9a8c2d1e4b5a6c7d8e9f0a1b2c3d4e5f6a7b8c fixed the bug",
	"sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
	"uuid 123e4567-e89b-12d3-a456-426614174000",
	"Use `sk-` prefixed keys from the OpenAI dashboard.",
	"GitHub tokens start with ghp_ and GitLab ones with glpat-.",
	"Rotate the AWS keys (AKIA…) every 90 days.",
	"func (s *Store) Token() string { return s.token }",
	"-----BEGIN CERTIFICATE-----",
	"-----BEGIN PUBLIC KEY-----",
	"See https://jwt.io for decoding eyJ-style tokens.",
	"version: 2.15.0, released 2026-01-02",
	"GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
	"https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
	`"prompt_tokens_details": map[string]any{"cached_tokens": n}`,
	`{"input_tokens": 33854, "output_tokens": 12, "token_usage": "Optional[str]"}`,
	`total_tokens: 33854\ntool_uses: 3`,
	"tokenizer = AutoTokenizer.from_pretrained(name)",
	"token = tokens[index]",
	`--password "${CLICKHOUSE_PASSWORD:-clickhouse}"`,
	"passwordHash = hashAndSalt(pw2Input)",
	"secretName: prod-db-credentials-v2",
}
