package shell

import (
	"slices"
	"testing"
)

func TestWrites(t *testing.T) {
	for _, tt := range []struct {
		cmd  string
		want []int
	}{
		{"git log --output=/tmp/x", []int{2}},
		{"git log --output /tmp/x -p", []int{2}},
		{"git diff --outp=x", []int{2}},              // git takes unique abbreviations
		{"git format-patch -o out HEAD~3", []int{2}}, // -o is an output directory here
		{"git format-patch --output-directory=d", []int{2}},
		{"git commit -o f -m x", nil}, // -o is --only in commit
		{"git log --oneline", nil},
		{"git log -o", nil},
		{"sort -o out in", []int{1}},
		{"sort -nro out in", []int{1}}, // bundled
		{"sort -oout in", []int{1}},    // value attached
		{"sort --output=out in", []int{1}},
		{"sort -n in", nil},
		{"sort -- -o", nil}, // an operand after --
		{"tree -o f", []int{1}},
		{"curl -sSLo f https://x", []int{1}},
		{"curl -O https://x -D h", []int{1, 3}},
		{"curl --cookie-jar c https://x", []int{1}},
		{"curl -sSL https://x", nil},
		{"/usr/bin/sort -o f", []int{1}},
		{"SORT.EXE -o f", []int{1}},
		{"ls -o", nil}, // not a program that writes through options
		{"sort", nil},
		{"go build -o /home/u/.bashrc .", []int{2}},
		{"go test -o=/tmp/x ./...", []int{2}},
		{"go test --o /tmp/x", []int{2}},
		{"go test -coverprofile=c.out ./...", []int{2}},
		{"go test -outputdir /tmp -cpuprofile c.out", []int{2, 4}},
		{"go test ./... -args -test.trace=t.out", []int{4}},
		{"go test -json -v -run TestX -count=1 ./...", nil}, // -json holds an o, not the flag -o
		{"go vet ./...", nil},
	} {
		s, err := Parse(tt.cmd)
		if err != nil {
			t.Fatalf("%q: %v", tt.cmd, err)
		}
		c, ok := s.Simple()
		if !ok {
			t.Fatalf("%q is not one simple command", tt.cmd)
		}
		if got := Writes(c.Words); !slices.Equal(got, tt.want) {
			t.Errorf("Writes(%q) = %v, want %v", tt.cmd, got, tt.want)
		}
	}
}
