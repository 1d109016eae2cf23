package server

import (
	"net"
	"net/http"
	"strconv"
	"sync"

	"github.com/mnemo-dev/mnemo"
)

// slots bounds how many of one thing each holder runs at once.
type slots struct {
	mu   sync.Mutex
	max  int
	busy map[string]int
}

func newSlots(max int) *slots { return &slots{max: max, busy: map[string]int{}} }

// acquire takes a slot for holder; ok is false when all of its slots are busy.
func (s *slots) acquire(holder string) (release func(), ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy[holder] >= s.max {
		return nil, false
	}
	s.busy[holder]++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.busy[holder]--; s.busy[holder] <= 0 {
				delete(s.busy, holder)
			}
		})
	}, true
}

// exporter names who runs an export: the key, else the client's address.
func exporter(p mnemo.Principal, r *http.Request) string {
	if p.KeyID != "" {
		return p.KeyID
	}
	host, _, _ := net.SplitHostPort(r.RemoteAddr)
	return "addr:" + host
}

// streamExport writes the namespace as JSONL while it is read from the
// store. The record count comes as the trailer Mnemo-Record-Count. A failure
// before the first byte is an error answer; a failure later aborts the
// response, so a client never takes a cut export for a whole one.
func (s *Server) streamExport(w http.ResponseWriter, r *http.Request, p mnemo.Principal) {
	lw := &lazyWriter{w: w, start: func() {
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.Header().Set("Trailer", "Mnemo-Record-Count")
		w.WriteHeader(http.StatusOK)
	}}
	n, err := s.svc.Export(r.Context(), lw)
	if err != nil {
		if !lw.started {
			s.writeError(w, r, err)
			return
		}
		s.log.Error("export failed after it started", "namespace", p.Namespace, "records", n, "err", err)
		panic(http.ErrAbortHandler)
	}
	if !lw.started {
		lw.start()
	}
	w.Header().Set("Mnemo-Record-Count", strconv.Itoa(n))
}

// lazyWriter sends the response header with the first byte written.
type lazyWriter struct {
	w       http.ResponseWriter
	start   func()
	started bool
}

func (l *lazyWriter) Write(b []byte) (int, error) {
	if !l.started {
		l.started = true
		l.start()
	}
	return l.w.Write(b)
}
