package memsync

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/memdir"
)

var (
	flagSchedules = flag.Int("memsync.schedules", 0, "schedules of the property test (default 100, 12 with -short; more find more)")
	flagSeed      = flag.Uint64("memsync.seed", 0, "run only the property-test schedule with this seed")
	flagOps       = flag.Int("memsync.ops", 12, "operations per schedule of the property test")
)

// propertyNames are the memories a schedule works on: few, so that replicas collide, in
// three scripts.
var propertyNames = []string{"deploy", "style guide", "部署流程", "배포 절차", "oncall"}

// TestSyncProperty is the "done when": a bare remote and three clones; random
// interleavings of add, edit, forget (delete or archive) and sync on the three replicas; after
// a final round (each replica syncs twice, in turn) the replicas hold identical files, every
// edit that no later operation saw is present (as the memory, or as a proposal in the inbox),
// and `memory lint` finds nothing. Each schedule is reproducible from its seed, printed on
// failure (-memsync.seed=N reruns one).
func TestSyncProperty(t *testing.T) {
	n := *flagSchedules
	if n == 0 {
		n = 100 // inside the default 10-minute timeout on a loaded 2-core machine
		if testing.Short() {
			n = 12
		}
	}
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	if *flagSeed != 0 {
		seeds = []uint64{*flagSeed}
	}
	tmpl := newCluster(t, 3)
	start := time.Now()
	for _, seed := range seeds {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			t.Parallel()
			runSchedule(t, tmpl.copy(t), seed, *flagOps)
		})
	}
	t.Cleanup(func() {
		t.Logf("%d schedules of %d operations in %s", len(seeds), *flagOps, time.Since(start).Round(time.Millisecond))
	})
}

// replicaModel is what a schedule knows of one replica: which edit token each memory's
// file held when the replica last looked.
type propertyRun struct {
	t      *testing.T
	c      *cluster
	seed   uint64
	log    []string
	next   int
	heads  map[string]bool // edit tokens no later operation saw
	stores []*memdir.Store
}

func runSchedule(t *testing.T, c *cluster, seed uint64, ops int) {
	ctx := context.Background()
	r := &propertyRun{t: t, c: c, seed: seed, heads: map[string]bool{}}
	for i := range c.clones {
		r.stores = append(r.stores, c.store(t, i))
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	defer func() {
		if t.Failed() {
			t.Logf("seed %d (rerun with -run 'TestSyncProperty/seed=%d$' -memsync.seed=%d); operations:\n  %s", seed, seed, seed, strings.Join(r.log, "\n  "))
		}
	}()
	for range ops {
		rep := rng.IntN(len(c.clones))
		name := propertyNames[rng.IntN(len(propertyNames))]
		switch k := rng.IntN(10); {
		case k < 4:
			r.edit(ctx, rep, name)
		case k < 6:
			r.forget(ctx, rep, name, k == 5)
		default:
			r.sync(rep)
		}
		if t.Failed() {
			return
		}
	}
	for range 2 {
		for i := range c.clones {
			r.sync(i)
		}
	}
	r.check(ctx)
}

// seen marks the edit token that replica rep's file for name holds as seen by a later
// operation: it is no longer a head.
func (r *propertyRun) seen(ctx context.Context, rep int, name string) (exists bool) {
	m, err := r.stores[rep].Get(ctx, name)
	if err != nil {
		return false
	}
	for _, tok := range tokens(m.Body) {
		delete(r.heads, tok)
	}
	return true
}

func (r *propertyRun) edit(ctx context.Context, rep int, name string) {
	r.seen(ctx, rep, name)
	r.next++
	tok := fmt.Sprintf("⟦%d⟧", r.next)
	r.heads[tok] = true
	r.log = append(r.log, fmt.Sprintf("%d: edit %q %s", rep, name, tok))
	_, err := r.stores[rep].Add(ctx, memdir.Input{Name: name, Description: fmt.Sprintf("%s, version %d", name, r.next), Type: memdir.TypeProject, Body: "Body " + tok + "\n"})
	if err != nil {
		r.t.Fatalf("edit: %v", err)
	}
}

func (r *propertyRun) forget(ctx context.Context, rep int, name string, archive bool) {
	if !r.seen(ctx, rep, name) {
		return
	}
	r.log = append(r.log, fmt.Sprintf("%d: forget %q archive=%v", rep, name, archive))
	if _, err := r.stores[rep].Forget(ctx, name, archive); err != nil {
		r.t.Fatalf("forget: %v", err)
	}
}

func (r *propertyRun) sync(rep int) {
	r.log = append(r.log, fmt.Sprintf("%d: sync", rep))
	res, err := Sync(context.Background(), r.c.clones[rep], r.c.opts())
	if err != nil {
		r.t.Errorf("sync %d: %v", rep, err)
		return
	}
	if res.Offline || !res.Pushed && res.Head != "" {
		r.t.Errorf("sync %d did not push: %+v", rep, res)
	}
	for _, k := range res.Conflicts {
		r.log = append(r.log, fmt.Sprintf("   conflict %s %s kept %s %s", k.File, k.Kind, k.Kept, k.Proposal))
	}
	if len(res.IndexProblems) > 0 {
		r.t.Errorf("sync %d: index problems %v", rep, res.IndexProblems)
	}
}

// tokens returns the edit tokens in text.
func tokens(text string) []string {
	var out []string
	for {
		i := strings.Index(text, "⟦")
		if i < 0 {
			return out
		}
		j := strings.Index(text[i:], "⟧")
		if j < 0 {
			return out
		}
		out = append(out, text[i:i+j+len("⟧")])
		text = text[i+j+len("⟧"):]
	}
}

func (r *propertyRun) check(ctx context.Context) {
	t := r.t
	want := r.c.files(t, 0)
	for i := 1; i < len(r.c.clones); i++ {
		if diff := cmp.Diff(want, r.c.files(t, i)); diff != "" {
			t.Errorf("replica %d differs from replica 0 (-0 +%d):\n%s", i, i, diff)
		}
	}
	present := map[string]bool{}
	for p, text := range want {
		if strings.HasPrefix(p, memdir.ArchiveDir+"/") {
			continue
		}
		for _, tok := range tokens(text) {
			present[tok] = true
		}
	}
	var lost []string
	for tok := range r.heads {
		if !present[tok] {
			lost = append(lost, tok)
		}
	}
	sort.Strings(lost)
	if len(lost) > 0 {
		t.Errorf("edits lost: %v\nfiles: %v", lost, want)
	}
	for i, s := range r.stores {
		diags, err := s.Lint(ctx)
		if err != nil || len(diags) > 0 {
			t.Errorf("memory lint on replica %d: %v %v\nMEMORY.md:\n%s", i, diags, err, want[memdir.IndexFile])
		}
	}
}

// copy makes a new cluster from c's files (a bare remote and clones that point at it), faster
// than cloning anew.
func (c *cluster) copy(t testing.TB) *cluster {
	t.Helper()
	top := t.TempDir()
	n := &cluster{env: c.env, remote: filepath.Join(top, "remote.git")}
	copyDir(t, c.remote, n.remote)
	for _, d := range c.clones {
		nd := filepath.Join(top, filepath.Base(d))
		copyDir(t, d, nd)
		cfg := filepath.Join(nd, ".git", "config")
		data, err := os.ReadFile(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cfg, []byte(strings.ReplaceAll(string(data), c.remote, n.remote)), 0o600); err != nil {
			t.Fatal(err)
		}
		n.clones = append(n.clones, nd)
	}
	return n
}

func copyDir(t testing.TB, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o700)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}
