package webui

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/strata-mem/strata/memsync"
	"github.com/strata-mem/strata/recall"
	"github.com/strata-mem/strata/workspace"
)

//go:embed assets
var assets embed.FS

// cookieName is the session cookie the one-time token is exchanged for.
const cookieName = "strata_ui"

// Options configure New.
type Options struct {
	// Workspace is the project shown: its memory stores, sessions and instructions.
	Workspace *workspace.Workspace
	// Addr is the host:port the server is reached at (the listener's address). Requests whose
	// Host header names anything but it, or the same port on localhost, are refused.
	Addr string
	// SessionIndex is the file in which listing sessions remembers what it read
	// (transcript.ListOptions.Index); "" reads every transcript's head and tail each time.
	// Each session's tokens and cost are remembered beside it, in the same name with the
	// extension .spend.
	SessionIndex string
	// Logger gets one line per refused request; nil discards.
	Logger *slog.Logger
	// Poll is how often an open page's event stream checks the files for changes; 0 means
	// 2 s.
	Poll time.Duration
}

// Server is the web view of one workspace. Its handler refuses every request that lacks the
// session (the cookie the one-time token in URL is exchanged for), that names another Host, or
// that comes from another Origin; every request that changes something must also carry the
// CSRF token of the page it was sent from.
type Server struct {
	ws       *workspace.Workspace
	opts     Options
	token    string      // the one-time token of URL
	used     atomic.Bool // the token was exchanged
	session  string      // the cookie's value
	csrf     string      // the forms' hidden field
	hosts    map[string]bool
	origins  map[string]bool
	pages    map[string]*template.Template
	log      *slog.Logger
	mu       sync.Mutex // guards rc, fresh, listed, stats, statsErr, scanning and syncs
	scan     sync.Mutex // held by the one rescan that runs
	scanning bool       // a background rescan runs
	bg       sync.WaitGroup
	bgctx    context.Context // cancelled by Close
	bgstop   context.CancelFunc
	rc       *recall.Recaller
	fresh    time.Time                   // when rc was last refreshed; zero after a write of ours
	listed   []memView                   // every memory of rc, newest first, as of fresh
	stats    map[string]recall.StatEntry // the project store's recall statistics, as of fresh
	statsErr error                       // why they could not be read
	spends   *spendIndex
	syncs    map[string]syncEntry // a synced store's directory → its status; guarded by mu
	poll     time.Duration
	static   http.Handler
	staticFS fs.FS
}

// New returns a server for opts.Workspace reachable at opts.Addr; Close stops its background
// work.
func New(opts Options) (*Server, error) {
	if opts.Workspace == nil {
		return nil, errors.New("webui: no workspace")
	}
	host, port, err := net.SplitHostPort(opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("webui: address %q: %w", opts.Addr, err)
	}
	s := &Server{ws: opts.Workspace, opts: opts, token: randomHex(), session: randomHex(), csrf: randomHex(),
		hosts: map[string]bool{}, origins: map[string]bool{}, log: opts.Logger}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.poll = cmp.Or(opts.Poll, refreshEvery)
	s.bgctx, s.bgstop = context.WithCancel(context.Background())
	s.spends = &spendIndex{}
	if opts.SessionIndex != "" {
		s.spends.path = strings.TrimSuffix(opts.SessionIndex, filepath.Ext(opts.SessionIndex)) + ".spend"
	}
	for _, h := range []string{host, "localhost", "127.0.0.1", "::1"} {
		hp := net.JoinHostPort(h, port)
		s.hosts[hp] = true
		s.origins["http://"+hp] = true
	}
	if s.pages, err = parsePages(); err != nil {
		return nil, err
	}
	sub, err := fs.Sub(assets, "assets/static")
	if err != nil {
		return nil, err
	}
	s.staticFS = sub
	s.static = http.StripPrefix("/static/", http.FileServerFS(sub))
	return s, nil
}

// randomHex is 32 random bytes in hex: a token nobody can guess.
func randomHex() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}

// URL is the address to open: the first request with it exchanges its token for a session
// cookie, after which the token is spent.
func (s *Server) URL() string {
	return "http://" + s.opts.Addr + "/?token=" + s.token
}

// Handler serves the pages behind the checks.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.memoryPage)
	mux.HandleFunc("GET /memory/search", s.memorySearch)
	mux.HandleFunc("GET /memory/edit", s.memoryEditPage)
	mux.HandleFunc("POST /memory/edit", s.memorySave)
	mux.HandleFunc("POST /memory/restore", s.memoryRestore)
	mux.HandleFunc("POST /memory/inbox", s.inboxDecide)
	mux.HandleFunc("GET /dream", s.dreamPage)
	mux.HandleFunc("POST /dream", s.dreamDecide)
	mux.HandleFunc("GET /sessions", s.sessionsPage)
	mux.HandleFunc("GET /session", s.sessionPage)
	mux.HandleFunc("GET /context", s.contextPage)
	mux.HandleFunc("GET /events", s.events)
	mux.Handle("GET /static/", s.static)
	return s.guard(mux)
}

// refuse answers a refused request with a short reason and logs it.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, code int, why string) {
	s.log.Warn("webui: refused", "method", r.Method, "path", r.URL.Path, "why", why)
	http.Error(w, "strata ui: "+why, code)
}

// guard runs the checks every request passes before next sees it.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin") // "no-referrer" would make Chromium send Origin: null on form posts
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cache-Control", "no-store")
		// DNS rebinding: a page of another site that resolves its name to 127.0.0.1 still
		// sends its own name as Host.
		if !s.hosts[r.Host] {
			s.refuse(w, r, http.StatusMisdirectedRequest, "unexpected Host "+fmt.Sprintf("%q", r.Host))
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !s.origins[o] {
			s.refuse(w, r, http.StatusForbidden, "request from another origin")
			return
		}
		if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
			s.refuse(w, r, http.StatusForbidden, "cross-site request")
			return
		}
		if t := r.URL.Query().Get("token"); t != "" {
			s.exchange(w, r, t)
			return
		}
		c, err := r.Cookie(cookieName)
		if err != nil || !equal(c.Value, s.session) {
			s.refuse(w, r, http.StatusForbidden, "no session: open the URL strata ui printed")
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			if r.Header.Get("Origin") == "" && r.Header.Get("Sec-Fetch-Site") == "" {
				s.refuse(w, r, http.StatusForbidden, "a change without Origin")
				return
			}
			if !equal(r.PostFormValue("csrf"), s.csrf) {
				s.refuse(w, r, http.StatusForbidden, "missing or wrong CSRF token")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// exchange trades the one-time token for the session cookie and redirects to the same page
// without the token, so it stays out of the history.
func (s *Server) exchange(w http.ResponseWriter, r *http.Request, t string) {
	if !equal(t, s.token) {
		s.refuse(w, r, http.StatusForbidden, "wrong token")
		return
	}
	if !s.used.CompareAndSwap(false, true) {
		s.refuse(w, r, http.StatusForbidden, "this link was used already: restart strata ui for a new one")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: s.session, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	q := r.URL.Query()
	q.Del("token")
	u := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
	http.Redirect(w, r, u.String(), http.StatusSeeOther)
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// refreshEvery is how long the recall index is trusted before the stores are scanned again:
// a scan stats every file (about 100 ms for 10,000 memories), too slow for a request, so it
// runs in the background while requests see the last one. The server's own writes scan at
// once, before they answer.
const refreshEvery = 2 * time.Second

// recaller returns the server's recaller and its memories, newest first: the one ranker
// strata memory search and recall use, its indexes kept warm between requests. The first call
// scans the stores; later ones return at once, starting a scan in the background when the last
// is older than refreshEvery.
func (s *Server) recaller(ctx context.Context) (*recall.Recaller, []memView, error) {
	s.mu.Lock()
	rc, listed, fresh := s.rc, s.listed, s.fresh
	due := rc != nil && !s.scanning && time.Since(fresh) >= refreshEvery
	if due {
		s.scanning = true
	}
	s.mu.Unlock()
	switch {
	case rc == nil || fresh.IsZero():
		if err := s.rescan(ctx); err != nil {
			return nil, nil, err
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.rc, s.listed, nil
	case due:
		s.bg.Go(func() {
			if err := s.rescan(s.bgctx); err != nil {
				s.log.Warn("webui: rescan of the memory stores", "err", err)
			}
			s.mu.Lock()
			s.scanning = false
			s.mu.Unlock()
		})
	}
	return rc, listed, nil
}

// rescan brings the recall index in step with the stores' files and lists them again; one
// runs at a time.
func (s *Server) rescan(ctx context.Context) error {
	s.scan.Lock()
	defer s.scan.Unlock()
	s.mu.Lock()
	rc := s.rc
	s.mu.Unlock()
	if rc == nil {
		var err error
		if rc, err = s.ws.Recaller(workspace.RecallOptions{NoStats: true}); err != nil {
			return err
		}
	}
	start := time.Now()
	if _, err := rc.Refresh(ctx); err != nil {
		return err
	}
	var stats map[string]recall.StatEntry
	var statsErr error
	if st, err := s.ws.Stats(); err != nil {
		statsErr = err
	} else if stats, err = st.Load(ctx); err != nil {
		statsErr = err
	}
	listed := newestFirst(rc, stats)
	s.mu.Lock()
	s.rc, s.fresh, s.listed, s.stats, s.statsErr = rc, start, listed, stats, statsErr
	s.mu.Unlock()
	return nil
}

// changed scans the stores again after a write of ours, so that the page the write redirects
// to shows it, and drops the sync states.
func (s *Server) changed(ctx context.Context) {
	s.mu.Lock()
	clear(s.syncs)
	s.mu.Unlock()
	if err := s.rescan(context.WithoutCancel(ctx)); err != nil {
		s.log.Warn("webui: rescan of the memory stores", "err", err)
	}
}

// Close stops the background scans and waits for them.
func (s *Server) Close() {
	s.bgstop()
	s.bg.Wait()
}

// syncEntry is a synced store's status as read at a time.
type syncEntry struct {
	at  time.Time
	st  memsync.Status
	err error
}

// syncEvery is how long a store's sync status is trusted: reading it runs git a few times.
const syncEvery = 10 * time.Second

// syncStatus is memsync's status of the store dir, read at most syncEvery ago.
func (s *Server) syncStatus(ctx context.Context, dir string) (memsync.Status, error) {
	s.mu.Lock()
	e, ok := s.syncs[dir]
	s.mu.Unlock()
	if ok && time.Since(e.at) < syncEvery {
		return e.st, e.err
	}
	st, err := memsync.ReadStatus(ctx, dir, memsync.Options{})
	s.mu.Lock()
	if s.syncs == nil {
		s.syncs = map[string]syncEntry{}
	}
	s.syncs[dir] = syncEntry{time.Now(), st, err}
	s.mu.Unlock()
	return st, err
}

// page is what every page's layout shows besides its own data.
type page struct {
	Title string
	Tab   string
	CSRF  string
	Root  string // the project root
	Data  any
}

// render executes the page template name with data.
func (s *Server) render(w http.ResponseWriter, name, title string, data any) {
	t := s.pages[name]
	var b strings.Builder
	if err := t.ExecuteTemplate(&b, "layout", page{Title: title, Tab: name, CSRF: s.csrf, Root: s.ws.Root(), Data: data}); err != nil {
		http.Error(w, "strata ui: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, b.String())
}

// fail shows err on a page with the status code.
func (s *Server) fail(w http.ResponseWriter, code int, err error) {
	w.WriteHeader(code)
	s.render(w, "error", "Error", err.Error())
}

// parsePages parses the layout with each page's template.
func parsePages() (map[string]*template.Template, error) {
	funcs := template.FuncMap{"age": age, "pct": pct, "count": count, "dollars": dollars, "inc": func(i int) int { return i + 1 }}
	layout, err := template.New("").Funcs(funcs).ParseFS(assets, "assets/layout.html")
	if err != nil {
		return nil, err
	}
	out := map[string]*template.Template{}
	for _, name := range []string{"memory", "edit", "dream", "sessions", "session", "context", "error"} {
		t, err := template.Must(layout.Clone()).ParseFS(assets, "assets/"+name+".html")
		if err != nil {
			return nil, err
		}
		out[name] = t
	}
	return out, nil
}

// age is how long ago t was, in the largest whole unit.
func age(now, t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	default:
		return fmt.Sprintf("%dd ago", int(d.Hours()/24))
	}
}

// count is n in a short form: 950, 12.3k, 4.5M.
func count(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	default:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	}
}

// dollars is d in dollars, to the cent from $1 on and to a hundredth of a cent below.
func dollars(d float64) string {
	if d >= 1 || d == 0 {
		return fmt.Sprintf("$%.2f", d)
	}
	return fmt.Sprintf("$%.4f", d)
}

// pct is n as a percentage of max, for bar widths.
func pct(n, max int) int {
	if max <= 0 {
		return 0
	}
	return n * 100 / max
}

// Serve answers requests on ln until ctx is done, then shuts down, waiting a few seconds for
// requests under way.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	// Requests see a context that Shutdown cancels, so that event streams end with it.
	base, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return base }}
	hs.RegisterOnShutdown(cancel)
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	err := hs.Shutdown(sctx)
	<-done
	return err
}

// Loopback reports whether addr (host:port) names a loopback address: "localhost" or an IP
// on the loopback network.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
