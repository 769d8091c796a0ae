package bench

import (
	"errors"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/strata-mem/strata/internal/bench/synth"
)

func TestTranscripts(t *testing.T) {
	var log strings.Builder
	var probed []string
	rep, err := Transcripts(t.Context(), TranscriptsOptions{Sessions: 6, SessionMB: 0.02, BigMB: 0.3, Appends: 20, Log: &log,
		PeakRSS: func(path string, full bool) (float64, error) {
			probed = append(probed, filepath.Base(path)+" "+strconv.FormatBool(full))
			if full {
				return 2, nil
			}
			return 1, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(log.String(), "generating 6 sessions of 0.0 MB and one of 0 MB in ") {
		t.Errorf("log %q", log.String())
	}
	if strings.Join(probed, ",") != "big.jsonl false,big.jsonl true" {
		t.Errorf("PeakRSS calls %v, want the big session resumed, then in full", probed)
	}
	if rep.Sessions != 6 || rep.ResumeRSSMB != 1 || rep.FullRSSMB != 2 || rep.Targets.ListRatio != 0.05 || rep.Targets.ResumeRatio != 0.15 || rep.Targets.ResumeRSSMB != 200 {
		t.Errorf("report %+v", rep)
	}
	for name, v := range map[string]float64{"list": rep.ListMs, "list without index": rep.ListColdMs, "read all": rep.ReadAllMs,
		"resume": rep.ResumeMs, "full load": rep.FullLoadMs, "append": rep.AppendPerS, "append with fsync": rep.AppendSyncPS} {
		if v <= 0 {
			t.Errorf("%s = %v, want a measured figure", name, v)
		}
	}
	if want := rep.ListMs / rep.ReadAllMs; rep.ListRatio < want*0.9 || rep.ListRatio > want*1.1 {
		t.Errorf("list ratio %v, want list / read all (%v)", rep.ListRatio, want)
	}

	failing := func(string, bool) (float64, error) { return 0, errors.New("no probe") }
	if _, err := Transcripts(t.Context(), TranscriptsOptions{Sessions: 1, SessionMB: 0.01, BigMB: 0.05, Appends: 10, PeakRSS: failing}); err == nil || !strings.Contains(err.Error(), "no probe") {
		t.Errorf("a failing probe: got %v", err)
	}
	if _, err := Transcripts(t.Context(), TranscriptsOptions{Sessions: 1, SessionMB: 0.01, BigMB: 0.05, Appends: 10}); err == nil {
		t.Error("no PeakRSS: want an error")
	}
}

func TestLoadRSS(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if err := synth.Session(p, synth.SessionOptions{SessionID: "s", CWD: "/w", Size: 20_000, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	kb, err := LoadRSS(t.Context(), p, false)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "linux" {
		if v, err := strconv.ParseFloat(kb, 64); err != nil || v <= 0 {
			t.Errorf("LoadRSS = %q, want the peak in KB", kb)
		}
	}
	if _, err := LoadRSS(t.Context(), filepath.Join(t.TempDir(), "missing.jsonl"), false); err == nil {
		t.Error("a missing transcript: want an error")
	}
}
