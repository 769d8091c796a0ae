package memdir

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/strata-mem/strata/internal/fsutil"
)

// LogPath returns the daily log file for day, relative to the memory dir:
// logs/YYYY/MM/YYYY-MM-DD.md (in day's location).
func LogPath(day time.Time) string {
	return path.Join(LogsDir, day.Format("2006"), day.Format("01"), day.Format("2006-01-02")+".md")
}

// AppendLog appends one timestamped bullet to today's log (Options.Now, local time) under the
// directory's lock and fsyncs it: "- HH:MM:SS first line", further lines indented by two
// spaces so the bullet stays one list item. A new log starts with a "# YYYY-MM-DD" heading.
// The text is refused when it looks like a secret (*SecretError; nothing is written). The log
// is opened through the memory dir's os.Root, so a symlinked logs/ leading elsewhere is never
// followed. It returns the log's absolute path.
func (s *Store) AppendLog(ctx context.Context, text string) (string, error) {
	text = strings.TrimSpace(strings.ReplaceAll(text, "\r\n", "\n"))
	if text == "" {
		return "", errors.New("memdir: append log: empty text")
	}
	now := s.opts.Now()
	rel := LogPath(now)
	abs := s.abs(rel)
	lines := strings.Split(text, "\n")
	var b strings.Builder
	b.WriteString("- " + now.Format("15:04:05") + " " + lines[0] + "\n")
	for _, l := range lines[1:] {
		if strings.TrimSpace(l) == "" {
			b.WriteString("\n")
			continue
		}
		b.WriteString("  " + l + "\n")
	}
	bullet := b.String()
	if f := ScanSecrets(bullet); len(f) > 0 {
		return "", &SecretError{Name: rel, Kind: f[0].Kind, Line: f[0].Line}
	}
	if len(bullet) > MaxFileBytes {
		return "", fmt.Errorf("memdir: %w: a log entry of %s is over the %s limit", ErrTooLarge, humanBytes(int64(len(bullet))), humanBytes(MaxFileBytes))
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return "", err
	}
	defer unlock()
	root, _, err := s.openRoot()
	if err != nil {
		return "", err
	}
	defer root.Close()
	exists, err := s.checkTarget(root, rel)
	if err != nil {
		return "", err
	}
	if !exists {
		if err := root.MkdirAll(filepath.FromSlash(path.Dir(rel)), fsutil.DirMode); err != nil {
			return "", fmt.Errorf("memdir: create %s: %w", filepath.Dir(abs), err)
		}
		if _, err := s.checkTarget(root, rel); err != nil {
			return "", err
		}
		bullet = "# " + now.Format("2006-01-02") + "\n\n" + bullet
	}
	f, err := root.OpenFile(filepath.FromSlash(rel), os.O_WRONLY|os.O_APPEND|os.O_CREATE, fsutil.FileMode)
	if err != nil {
		return "", fmt.Errorf("memdir: append %s: %w", abs, err)
	}
	if exists {
		// A hand-edited log may lack its final newline; start the bullet on a line of its own.
		if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
			last := make([]byte, 1)
			if rf, err := root.Open(filepath.FromSlash(rel)); err == nil {
				if _, err := rf.ReadAt(last, fi.Size()-1); err == nil && last[0] != '\n' {
					bullet = "\n" + bullet
				}
				rf.Close()
			}
		}
	}
	if _, err := f.Write([]byte(bullet)); err != nil {
		f.Close()
		return "", fmt.Errorf("memdir: append %s: %w", abs, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return "", fmt.Errorf("memdir: sync %s: %w", abs, err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("memdir: close %s: %w", abs, err)
	}
	if !exists {
		if err := s.opts.FS.SyncDir(filepath.Dir(abs)); err != nil {
			return abs, fmt.Errorf("memdir: sync dir %s: %w", filepath.Dir(abs), err)
		}
	}
	return abs, nil
}

// Logs lists the daily log files, oldest first, relative to the memory dir.
func (s *Store) Logs(ctx context.Context) ([]string, error) {
	root, ok, err := s.openRoot()
	if err != nil || !ok {
		return nil, err
	}
	defer root.Close()
	var out []string
	err = fs.WalkDir(root.FS(), LogsDir, func(p string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			if p == LogsDir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if !d.IsDir() && d.Type().IsRegular() && strings.HasSuffix(p, ".md") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("memdir: list logs in %s: %w", s.dir, err)
	}
	return out, nil
}
