package recall

import (
	"testing"
)

func TestSplitCamel(t *testing.T) {
	for in, want := range map[string]string{
		"branchPolicy": "branch Policy", "HTTPServer": "HTTP Server", "parseHTTPHeader": "parse HTTP Header",
		"plain": "plain", "feedback_branch-policy-strict": "feedback_branch-policy-strict", "部署流程": "部署流程", "": "",
	} {
		if got := splitCamel(in); got != want {
			t.Errorf("splitCamel(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFieldTextsFileName(t *testing.T) {
	for _, tt := range []struct {
		name, file, want string
	}{
		{"prefer-tabs", "prefer-tabs.md", "prefer-tabs"}, // strata's own file name adds nothing
		{"Prefer Tabs", "prefer_tabs.md", "Prefer Tabs"}, // nor one differing in case and separators
		{"부서 정책", "feedback_branch-policy-strict.md", "부서 정책\nfeedback_branch-policy-strict"},
		{"deploy", "sub/deployFlow.md", "deploy\ndeploy Flow"},
	} {
		got := fieldTexts(mem(tt.file, tt.name, "", ""))[fieldName]
		if got != tt.want {
			t.Errorf("fieldTexts(%q, %q) name = %q, want %q", tt.name, tt.file, got, tt.want)
		}
	}
}

// TestFileNamesAreSearchable: a memory is found by the words of its file name, in any script,
// through both index builders (Put, and the cold build a Ranker's first Refresh does).
func TestFileNamesAreSearchable(t *testing.T) {
	dir := t.TempDir()
	type memFile struct{ file, name, desc, body string }
	mems := []memFile{
		{"feedback_branch-policy-strict.md", "브랜치 정책", "메인 브랜치 병합 전 승인 필요", "리뷰어 승인 없이 병합하지 않는다."},
		{"部署流程.md", "deploy steps", "how releases go out", "Run the release script, then tag."},
		{"project_releaseTrain.md", "출시 일정", "매주 목요일 출시", "목요일 오후에 출시한다."},
		{"user_role.md", "역할", "사용자는 데이터 엔지니어", "파이프라인을 주로 다룬다."},
		{"reference_dashboards.md", "대시보드", "그라파나 위치", "모니터링 링크 모음."},
	}
	ix := NewIndex(DefaultParams())
	for _, m := range mems {
		writeMem(t, dir, m.file, m.name, "project", m.desc, m.body)
		ix.Put(mem(m.file, m.name, m.desc, m.body))
	}
	r := NewRanker(DirSource{Dir: dir}, RankerOptions{})
	if _, _, err := r.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]string{
		"branch policy":      "feedback_branch-policy-strict.md",
		"strict branch rule": "feedback_branch-policy-strict.md",
		"部署流程":               "部署流程.md",
		"release train":      "project_releaseTrain.md",
		"dashboards":         "reference_dashboards.md",
	} {
		for how, hits := range map[string][]Hit{"put": ix.Search(q, 5), "cold": r.Search(q, 5)} {
			if len(hits) == 0 || hits[0].Memory.File != want {
				t.Errorf("%s: Search(%q) = %v, want %s first", how, q, files(hits), want)
			}
		}
	}
}
