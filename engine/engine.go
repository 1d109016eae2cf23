// Package engine is mnemo's service: it ties a Store, an Embedder, a
// Tokenizer and the scoring math together into remember, recall and digest.
// Every surface (CLI, REST, MCP) is a thin adapter over a *Service.
package engine

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/vec"
	"github.com/mnemo-dev/mnemo/llm"
	"github.com/mnemo-dev/mnemo/score"
	"github.com/mnemo-dev/mnemo/thesaurus"
)

// Config wires a Service. Store, Embedder and Tokenizer are required.
type Config struct {
	Store     mnemo.Store
	Embedder  mnemo.Embedder
	Tokenizer mnemo.Tokenizer

	Now   func() time.Time // defaults to time.Now
	NewID func() string    // defaults to a monotonic ULID

	Limits        mnemo.Limits
	DefaultPreset string // "" = score's default preset
	// HalfLives, when set, replaces the half-life table of every preset but aura
	// (aura's table is the reference table and never changes).
	HalfLives []mnemo.HalfLife
	// CandidateN is how many candidates each channel (keyword, vector) yields; default 100.
	CandidateN int
	// ThreadsWritten, when set, is told after each write that added
	// records to threads: the write's namespace and those threads, each
	// once, in the order of the write. It runs on the writer's goroutine
	// and must not block (extraction on write: episodes.Queue.Add).
	ThreadsWritten func(ns string, threads []string)
	// Chat, when set, is the optional chat model that writes episodes in
	// the background (never on recall or digest), with the rules as
	// fallback; nil: the rules only.
	Chat llm.Model
	// IntentModel, with Chat, asks the chat model in the background for
	// the intent of the queries the rules call general, and lets later
	// requests with the same query use its answer (intent_model.go); for
	// long-running processes (serve, mcp), whose later requests can.
	IntentModel bool
	// TriageCapacity is the number of events per minute a namespace handles
	// before ranking degrades to triage; 0 disables triage.
	TriageCapacity float64
	// AllowMismatch opens a store built by another embedder (for reembed).
	AllowMismatch bool
	// Thesaurus, when set, expands queries with related words (synonyms,
	// broader terms) at a lower weight; nil expands with none.
	Thesaurus *thesaurus.Thesaurus
	// NoLearned turns the semantic channel learned from the store off
	// (TrainSemantic then refuses, and no stored model is read).
	NoLearned bool
	// Logger receives failures of background work (retrieval log, access
	// counters); nil discards them.
	Logger *slog.Logger
}

// Service is the memory engine. It is safe for concurrent use.
type Service struct {
	store  mnemo.Store
	emb    mnemo.Embedder
	tok    mnemo.Tokenizer
	now    func() time.Time
	newID  func() string
	limits mnemo.Limits
	preset string
	halfs  []mnemo.HalfLife
	candN  int

	triageCap float64
	rates     *rateTracker

	log    *slog.Logger
	bg     chan job
	bgDone chan struct{}
	closed sync.Once

	tokCache textCounts // token counts of short, repeated strings (countCached)

	threads    threadLocks  // writes to one thread, one at a time
	calib      calibrator   // the embedder's null similarity, for the relevance floor
	termCache  termCache    // cut record texts, for the relevance floor
	bodyTokens countCache   // token counts of entry bodies (entryTokens)
	learn      learnedCache // each namespace's semantic model
	noLearned  bool         // Config.NoLearned
	thes       *thesaurus.Thesaurus

	chat    llm.Model                         // Config.Chat
	written func(ns string, threads []string) // Config.ThreadsWritten
	intents *intentModel                      // Config.IntentModel; nil: the rules alone

	tuned configCache // each namespace's active configuration, cached (config.go)
}

// New checks the store's embedder against cfg.Embedder and returns a Service.
// A store built by a different embedder or dimension is an EMISMATCH error
// unless cfg.AllowMismatch is set.
func New(ctx context.Context, cfg Config) (*Service, error) {
	if cfg.Store == nil || cfg.Embedder == nil || cfg.Tokenizer == nil {
		return nil, fmt.Errorf("engine: store, embedder and tokenizer are required")
	}
	if _, err := score.Lookup(cfg.DefaultPreset); err != nil {
		return nil, err
	}
	s := &Service{
		store: cfg.Store, emb: cfg.Embedder, tok: cfg.Tokenizer,
		now: cfg.Now, newID: cfg.NewID, limits: cfg.Limits, preset: cfg.DefaultPreset,
		halfs: cfg.HalfLives, candN: cfg.CandidateN, triageCap: cfg.TriageCapacity, noLearned: cfg.NoLearned, thes: cfg.Thesaurus,
		chat: cfg.Chat, written: cfg.ThreadsWritten,
		rates:  newRateTracker(cfg.Store),
		bg:     make(chan job, 4096),
		bgDone: make(chan struct{}),
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.log = cfg.Logger
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.newID == nil {
		s.newID = newULIDSource(s.now)
	}
	if s.limits.MaxTextBytes <= 0 {
		s.limits = mnemo.DefaultLimits
	}
	if s.candN <= 0 {
		s.candN = 100
	}
	want := cfg.Embedder.Info()
	have, err := cfg.Store.Embedder(ctx)
	if err != nil {
		return nil, err
	}
	switch {
	case have == (mnemo.EmbedderInfo{}):
		if err := cfg.Store.SetEmbedder(ctx, want, false); err != nil {
			return nil, err
		}
	case have != want && !cfg.AllowMismatch:
		return nil, mnemo.Errorf(mnemo.EMISMATCH,
			"this store was built with embedder %s (dim %d) but %s (dim %d) is configured: configure the same embedder, or run `mnemo reembed` to rebuild the vectors",
			have.Name, have.Dim, want.Name, want.Dim)
	}
	go s.background()
	if cfg.Chat != nil && cfg.IntentModel {
		s.intents = newIntentModel(cfg.Chat, s.log, s.now)
	}
	return s, nil
}

// Close waits for background work (access counters, retrieval log) to finish.
// It does not close the store.
func (s *Service) Close() error {
	s.closed.Do(func() {
		if s.intents != nil {
			s.intents.close()
		}
		close(s.bg)
		<-s.bgDone
	})
	return nil
}

// Flush waits until the background work queued so far (retrieval log,
// access counters) has been written, or ctx ends.
func (s *Service) Flush(ctx context.Context) error {
	done := make(chan struct{})
	queued := false
	func() {
		defer func() { _ = recover() }() // queue closed: nothing left to wait for
		select {
		case s.bg <- job{done: done}:
			queued = true
		case <-ctx.Done():
		}
	}()
	if !queued {
		return ctx.Err()
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Store returns the underlying store.
func (s *Service) Store() mnemo.Store { return s.store }

// Embedder returns the configured embedder.
func (s *Service) Embedder() mnemo.Embedder { return s.emb }

// Tokenizer returns the configured tokenizer.
func (s *Service) Tokenizer() mnemo.Tokenizer { return s.tok }

// Preset resolves a preset name ("" = the service default) with the
// configured half-life table applied.
func (s *Service) Preset(name string) (score.Preset, error) {
	if name == "" {
		name = s.preset
	}
	p, err := score.Lookup(name)
	if err != nil {
		return p, err
	}
	if len(s.halfs) > 0 && p.Name != "aura" {
		p.HalfLives = s.halfs
	}
	return p, nil
}

// job is background work: a retrieval to log (and whose hits to count as
// accessed), or a marker closed when everything queued before it is done.
type job struct {
	log  *mnemo.RetrievalLog
	done chan struct{}
}

// maxBatch bounds how many retrievals one background transaction writes,
// and batchWindow how long the writer gathers them: access counters are
// summed per record over the window, so a busy server rewrites a record
// hit by many digests once a second, not once per digest.
const (
	maxBatch    = 512
	batchWindow = time.Second
)

// background writes queued retrievals. Whatever has queued up while it was
// writing goes out together: one transaction for the log entries and one
// access-counter update per namespace, however busy the server is.
func (s *Service) background() {
	defer close(s.bgDone)
	for j := range s.bg {
		batch := []job{j}
		// Gather for a moment: every retrieval of a busy server costs one
		// row rewrite per hit, so fewer, larger batches (with repeated hits
		// merged) keep the writer off the readers' backs. A Flush marker
		// ends the wait at once.
		wait := time.NewTimer(batchWindow)
	gather:
		for len(batch) < maxBatch && j.done == nil {
			select {
			case j2, ok := <-s.bg:
				if !ok {
					break gather
				}
				batch = append(batch, j2)
				if j2.done != nil {
					break gather
				}
			case <-wait.C:
				break gather
			}
		}
		wait.Stop()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		s.writeBatch(ctx, batch)
		cancel()
	}
}

func (s *Service) writeBatch(ctx context.Context, batch []job) {
	var logs []mnemo.RetrievalLog
	touched := map[string][]string{} // namespace -> ids, repeated as often as retrieved
	last := map[string]time.Time{}
	var order []string
	for _, j := range batch {
		if j.log == nil {
			continue
		}
		l := *j.log
		logs = append(logs, l)
		if len(l.IDs) == 0 {
			continue
		}
		if _, ok := touched[l.Namespace]; !ok {
			order = append(order, l.Namespace)
		}
		touched[l.Namespace] = append(touched[l.Namespace], l.IDs...)
		if l.At.After(last[l.Namespace]) {
			last[l.Namespace] = l.At
		}
	}
	if len(logs) > 0 {
		if err := s.store.LogRetrieval(ctx, logs...); err != nil {
			s.log.Warn("retrieval log not written", "entries", len(logs), "err", err)
		}
	}
	for _, ns := range order {
		if err := s.store.Touch(ctx, ns, touched[ns], last[ns]); err != nil {
			s.log.Warn("access counters not updated", "namespace", ns, "err", err)
		}
	}
	for _, j := range batch {
		if j.done != nil {
			close(j.done)
		}
	}
}

// enqueue hands a retrieval to the background writer; when the queue is
// full it is dropped rather than slowing the caller (access counters are a
// signal, not a ledger).
func (s *Service) enqueue(l mnemo.RetrievalLog) {
	defer func() { _ = recover() }() // queue closed during shutdown
	select {
	case s.bg <- job{log: &l}:
	default:
		s.log.Warn("background queue full: retrieval log entry dropped")
	}
}

func newULIDSource(now func() time.Time) func() string {
	var mu sync.Mutex
	entropy := ulid.Monotonic(rand.Reader, 0)
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		return ulid.MustNew(ulid.Timestamp(now()), entropy).String()
	}
}

// dot is the dot product of a and b (vec.Dot).
func dot(a, b []float32) float64 { return vec.Dot(a, b) }

func (s *Service) count(text string) int { return s.tok.Count(text) }

// textCounts caches the token counts of short, repeated strings.
type textCounts struct {
	mu sync.Mutex
	m  map[string]int
}

// countCached counts short, repeated strings (headers, score prefixes).
func (s *Service) countCached(text string) int {
	c := &s.tokCache
	c.mu.Lock()
	n, ok := c.m[text]
	c.mu.Unlock()
	if ok {
		return n
	}
	n = s.tok.Count(text)
	c.mu.Lock()
	if c.m == nil || len(c.m) > 4096 {
		c.m = make(map[string]int)
	}
	c.m[text] = n
	c.mu.Unlock()
	return n
}

// Warm loads the in-memory indexes of every namespace of a store that keeps
// them (both built-in stores do), so that a server's first queries do not
// pay for it. It returns how many namespaces it loaded.
func (s *Service) Warm(ctx context.Context) (int, error) {
	w, ok := s.store.(mnemo.Warmer)
	if !ok {
		return 0, nil
	}
	nss, err := s.store.Namespaces(ctx)
	if err != nil {
		return 0, err
	}
	for i, ns := range nss {
		if err := w.Warm(ctx, ns); err != nil {
			return i, err
		}
	}
	return len(nss), nil
}
