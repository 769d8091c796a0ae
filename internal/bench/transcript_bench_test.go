package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/internal/bench/synth"
	"github.com/strata-mem/strata/transcript"
)

var benchFiles = struct {
	sync.Once
	dir, listDir, big string
	err               error
}{}

// benchData writes 200 sessions of 256 KB and one of 20 MB with its last compact boundary at
// 97%, once per test binary run.
func benchData(b *testing.B) (listDir, big string) {
	benchFiles.Do(func() {
		dir, err := osMkdirTemp()
		if err != nil {
			benchFiles.err = err
			return
		}
		benchFiles.dir = dir
		benchFiles.listDir = filepath.Join(dir, "list")
		for i := range 200 {
			o := synth.SessionOptions{SessionID: fmt.Sprint(i), CWD: "/b", Size: 256 << 10, Seed: uint64(i)}
			if i%2 == 0 {
				o.Title = "t"
			}
			if err := synth.Session(filepath.Join(benchFiles.listDir, fmt.Sprintf("s%d.jsonl", i)), o); err != nil {
				benchFiles.err = err
				return
			}
		}
		benchFiles.big = filepath.Join(dir, "big", "big.jsonl")
		benchFiles.err = synth.Session(benchFiles.big, synth.SessionOptions{SessionID: "big", CWD: "/b", Size: 20 << 20, Boundaries: []float64{0.5, 0.97}, Seed: 1})
	})
	if benchFiles.err != nil {
		b.Fatal(benchFiles.err)
	}
	return benchFiles.listDir, benchFiles.big
}

func BenchmarkList(b *testing.B) {
	dir, _ := benchData(b)
	for b.Loop() {
		infos, err := transcript.List(b.Context(), dir, transcript.ListOptions{})
		if err != nil || len(infos) != 200 {
			b.Fatal(len(infos), err)
		}
	}
}

func BenchmarkStat(b *testing.B) {
	dir, _ := benchData(b)
	p := filepath.Join(dir, "s1.jsonl")
	for b.Loop() {
		if _, err := transcript.Stat(p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkResume(b *testing.B) {
	_, big := benchData(b)
	for _, full := range []bool{false, true} {
		b.Run(fmt.Sprintf("full=%v", full), func(b *testing.B) {
			for b.Loop() {
				s, err := transcript.Load(b.Context(), big, transcript.ReadOptions{Full: full})
				if err != nil || len(s.Chain) == 0 {
					b.Fatal(err)
				}
				b.SetBytes(s.File.Size - s.File.Start)
			}
		})
	}
}

func BenchmarkAppend(b *testing.B) {
	text := strings.Repeat("x", 900)
	for _, sync := range []bool{false, true} {
		b.Run(fmt.Sprintf("fsync-per-turn=%v", sync), func(b *testing.B) {
			j, err := transcript.Open(b.Context(), filepath.Join(b.TempDir(), "a.jsonl"), transcript.Options{SessionID: "a"})
			if err != nil {
				b.Fatal(err)
			}
			m := conversation.NewText(conversation.User, text)
			for b.Loop() {
				if _, err := j.AppendMessage(m, false); err != nil {
					b.Fatal(err)
				}
				if sync {
					if err := j.Sync(b.Context()); err != nil {
						b.Fatal(err)
					}
				}
			}
			if err := j.Close(b.Context()); err != nil {
				b.Fatal(err)
			}
		})
	}
}

func osMkdirTemp() (string, error) { return os.MkdirTemp("", "strata-transcript-bench-") }

func BenchmarkListIndexed(b *testing.B) {
	dir, _ := benchData(b)
	opts := transcript.ListOptions{Index: filepath.Join(b.TempDir(), "index.gob")}
	if _, err := transcript.List(b.Context(), dir, opts); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		infos, err := transcript.List(b.Context(), dir, opts)
		if err != nil || len(infos) != 200 {
			b.Fatal(len(infos), err)
		}
	}
}

var manyFiles = struct {
	sync.Once
	dir string
	err error
}{}

// manyData writes 1,000 small sessions (16 KB each: an indexed listing only stats them, so
// their size does not matter) once per test binary run, under a path as deep as a real one.
func manyData(b *testing.B) string {
	manyFiles.Do(func() {
		dir, err := osMkdirTemp()
		if err != nil {
			manyFiles.err = err
			return
		}
		manyFiles.dir = dir
		dir = filepath.Join(dir, "projects", "-home-user-src-project")
		for i := range 1000 {
			id := fmt.Sprintf("0199%04x-0000-7000-8000-%012x", i>>16, i)
			o := synth.SessionOptions{SessionID: id, CWD: "/home/user/src/project", Size: 16 << 10, Seed: uint64(i)}
			if i%2 == 0 {
				o.Title = "t"
			}
			if err := synth.Session(filepath.Join(dir, id+".jsonl"), o); err != nil {
				manyFiles.err = err
				return
			}
		}
	})
	if manyFiles.err != nil {
		b.Fatal(manyFiles.err)
	}
	return filepath.Join(manyFiles.dir, "projects", "-home-user-src-project")
}

// BenchmarkListIndexed1000 is the listing strata bench transcripts times: 1,000 unchanged
// sessions with the list index.
func BenchmarkListIndexed1000(b *testing.B) {
	dir := manyData(b)
	opts := transcript.ListOptions{Index: filepath.Join(b.TempDir(), "index")}
	if _, err := transcript.List(b.Context(), dir, opts); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		infos, err := transcript.List(b.Context(), dir, opts)
		if err != nil || len(infos) != 1000 {
			b.Fatal(len(infos), err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}
