package memsync

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/strata-mem/strata/internal/fsutil"
)

// statCacheFile, in the git directory, remembers each shared file's blob id by its stamp, so a
// sync reads only the files that changed since the last one (as git's index does).
const statCacheFile = "strata-sync.stat"

// racyWindow: a file whose mtime is this close to (or after) when the cache was written may
// have changed again within the clock's resolution without changing its stamp; it is read
// again.
const racyWindow = 2 * time.Second

// stamp is what says a file is unchanged: size, mtime, inode and ctime.
type stamp struct {
	size, mtime, ino, ctime int64
}

func stampOf(fi fs.FileInfo) stamp {
	ino, ctime := sysStamp(fi)
	return stamp{size: fi.Size(), mtime: fi.ModTime().UnixNano(), ino: ino, ctime: ctime}
}

// statCache maps path → stamp and id, as of written.
type statCache struct {
	written int64 // UnixNano
	entries map[string]cacheEntry
}

type cacheEntry struct {
	st stamp
	id string
}

// loadStatCache reads the cache; a missing or unreadable one is empty (every file is read).
func loadStatCache(gitDir string) statCache {
	c := statCache{entries: map[string]cacheEntry{}}
	data, err := fsutil.ReadRegular(filepath.Join(gitDir, statCacheFile), 256<<20)
	if err != nil {
		return c
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	if !sc.Scan() {
		return c
	}
	head := strings.Fields(sc.Text())
	if len(head) != 3 || head[0] != "strata-sync-stat" || head[1] != "1" {
		return c
	}
	if c.written, err = strconv.ParseInt(head[2], 10, 64); err != nil {
		return statCache{entries: map[string]cacheEntry{}}
	}
	for sc.Scan() {
		meta, p, ok := strings.Cut(sc.Text(), "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 5 {
			return statCache{entries: map[string]cacheEntry{}}
		}
		var n [4]int64
		for i := range n {
			if n[i], err = strconv.ParseInt(f[i+1], 10, 64); err != nil {
				return statCache{entries: map[string]cacheEntry{}}
			}
		}
		c.entries[p] = cacheEntry{st: stamp{n[0], n[1], n[2], n[3]}, id: f[0]}
	}
	return c
}

// lookup returns the cached id of p when its stamp is unchanged and not racy.
func (c statCache) lookup(p string, st stamp) (string, bool) {
	e, ok := c.entries[p]
	if !ok || e.st != st || st.mtime >= c.written-int64(racyWindow) || st.ctime >= c.written-int64(racyWindow) {
		return "", false
	}
	return e.id, true
}

// saveStatCache writes the stamps and ids of a scan.
func saveStatCache(gitDir string, now time.Time, stamps map[string]stamp, ids map[string]string) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "strata-sync-stat 1 %d\n", now.UnixNano())
	for p, st := range stamps {
		if id, ok := ids[p]; ok {
			fmt.Fprintf(&b, "%s %d %d %d %d\t%s\n", id, st.size, st.mtime, st.ino, st.ctime, p)
		}
	}
	return fsutil.WriteFile(filepath.Join(gitDir, statCacheFile), b.Bytes(), fsutil.FileMode)
}
