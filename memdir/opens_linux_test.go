package memdir

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// opensDuring counts the files opened in dir (inotify IN_OPEN: files and the directory itself)
// while fn runs.
func opensDuring(t *testing.T, dir string, fn func()) int {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		t.Skipf("inotify: %v", err)
	}
	defer syscall.Close(fd)
	if _, err := syscall.InotifyAddWatch(fd, dir, syscall.IN_OPEN); err != nil {
		t.Skipf("inotify watch: %v", err)
	}
	fn()
	n := 0
	buf := make([]byte, 64<<10)
	for {
		k, err := syscall.Read(fd, buf)
		if k <= 0 || err != nil {
			break
		}
		for off := 0; off < k; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
			n++
			off += syscall.SizeofInotifyEvent + int(ev.Len)
		}
	}
	return n
}

// One write of a new name costs a bounded number of opens, whatever the size of the store:
// the name map, not a read of every file, says that no memory has the name.
func TestAddOpensBoundedFiles(t *testing.T) {
	counts := map[int]int{}
	for _, n := range []int{200, 3000} {
		s := newTestStore(t, Options{MaxIndexLines: 100000, MaxIndexBytes: 1 << 30})
		mustAdd(t, s, "first", "creates the dir")
		for i := range n {
			text := fmt.Sprintf("---\nname: hand %d\ndescription: d\ntype: project\n---\nbody %d\n", i, i)
			if err := os.WriteFile(filepath.Join(s.Dir(), fmt.Sprintf("hand-%d.md", i)), []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		mustAdd(t, s, "warm", "reads every file once, for the name map")
		counts[n] = opensDuring(t, s.Dir(), func() { mustAdd(t, s, "new one", "a name no memory has") })
		// And an update of a memory only the name map knows (not in the index).
		if got := opensDuring(t, s.Dir(), func() { mustAdd(t, s, fmt.Sprintf("hand %d", n/2), "updated") }); got > 40 {
			t.Errorf("%d memories: an update opened %d files", n, got)
		}
		data, _ := os.ReadFile(filepath.Join(s.Dir(), fmt.Sprintf("hand-%d.md", n/2)))
		if !strings.Contains(string(data), "description: updated") {
			t.Errorf("the update of a memory known only to the name map went elsewhere: %s", data)
		}
		for i := range n { // the hand-written files are not indexed: out of the cleanup's check
			os.Remove(filepath.Join(s.Dir(), fmt.Sprintf("hand-%d.md", i)))
		}
		if _, err := s.Reindex(t.Context(), fmt.Sprintf("hand-%d.md", n/2)); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("opens for one add of a new name: %v", counts)
	if counts[3000] > 40 || counts[3000] > counts[200]+5 {
		t.Errorf("one add opened %d files on 3000 memories (%d on 200); want a bound that does not grow", counts[3000], counts[200])
	}
}
