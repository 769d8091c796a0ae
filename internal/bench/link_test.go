package bench

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// elfWith returns a minimal 64-bit little-endian ELF executable whose program headers have the
// given types.
func elfWith(types ...uint32) []byte {
	const phoff, phentsize = 64, 56
	b := make([]byte, phoff+phentsize*len(types))
	copy(b, "\x7fELF")
	b[4], b[5], b[6] = 2, 1, 1
	le := binary.LittleEndian
	le.PutUint16(b[16:], 2) // ET_EXEC
	le.PutUint64(b[32:], phoff)
	le.PutUint16(b[54:], phentsize)
	le.PutUint16(b[56:], uint16(len(types)))
	for i, t := range types {
		le.PutUint32(b[phoff+i*phentsize:], t)
	}
	return b
}

func TestLinking(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name string
		data []byte
		want string
	}{
		{"dynamic", elfWith(6, 3, 1, 1), "dynamic"}, // PT_PHDR, PT_INTERP, PT_LOAD …
		{"static", elfWith(1, 1, 4), "static"},
		{"script", []byte("#!/bin/sh\necho hi\n"), ""},
		{"truncated", elfWith(3)[:70], ""},
		{"32-bit", func() []byte { b := elfWith(3); b[4] = 1; return b }(), ""},
		{"empty", nil, ""},
	} {
		p := filepath.Join(dir, tt.name)
		if err := os.WriteFile(p, tt.data, 0o700); err != nil {
			t.Fatal(err)
		}
		if got := Linking(p); got != tt.want {
			t.Errorf("Linking(%s) = %q, want %q", tt.name, got, tt.want)
		}
	}
	if got := Linking(filepath.Join(dir, "missing")); got != "" {
		t.Errorf("Linking(missing) = %q, want \"\"", got)
	}
}
