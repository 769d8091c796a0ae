package bench

import (
	"encoding/binary"
	"io"
	"os"
)

// Linking returns how the ELF executable at path is linked: "dynamic" when it names a program
// interpreter (the dynamic loader, which a Go program built with cgo needs and pays for at every
// start), "static" when it does not, "" when the file is not a 64-bit little-endian ELF
// executable or cannot be read (another system's format).
func Linking(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var h [64]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return ""
	}
	if string(h[:4]) != "\x7fELF" || h[4] != 2 || h[5] != 1 { // ELFCLASS64, ELFDATA2LSB
		return ""
	}
	le := binary.LittleEndian
	phoff, phentsize, phnum := le.Uint64(h[32:]), int(le.Uint16(h[54:])), int(le.Uint16(h[56:]))
	if phentsize < 4 || phnum == 0 || phnum > 1<<12 {
		return ""
	}
	ph := make([]byte, phentsize*phnum)
	if _, err := f.ReadAt(ph, int64(phoff)); err != nil {
		return ""
	}
	for i := 0; i < phnum; i++ {
		if le.Uint32(ph[i*phentsize:]) == 3 { // PT_INTERP
			return "dynamic"
		}
	}
	return "static"
}
