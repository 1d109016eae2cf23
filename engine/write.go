package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/access"
)

// Remember validates, counts tokens, embeds, deduplicates and stores new
// records in the namespace, all in one batch committed in one transaction
// (mnemo.WriteBatch). Errors: EINVALID/ETOOLARGE for bad input, ENOTFOUND
// for a missing superseded record, ECONFLICT for a forgotten one; on any
// of them nothing is written.
func (s *Service) Remember(ctx context.Context, in []mnemo.NewRecord, opt mnemo.WriteOptions) ([]mnemo.Written, error) {
	c, sc, err := writer(ctx)
	if err != nil {
		return nil, err
	}
	now := s.now().UTC()
	recs := make([]*mnemo.Record, len(in))
	for i, n := range in {
		r := n.Record()
		r.Namespace = sc.Namespace
		if r.ID == "" {
			r.ID = s.newID()
		}
		r.Normalize(now)
		r.UpdatedAt = now
		if err := s.check(r, c); err != nil {
			if len(in) > 1 {
				return nil, mnemo.Errorf(mnemo.ErrorCode(err), "record %d: %s", i+1, mnemo.ErrorMessage(err))
			}
			return nil, err
		}
		recs[i] = r
	}
	// Writes to one thread go one at a time (threadLocks).
	threads := make([]string, len(recs))
	for i, r := range recs {
		threads[i] = r.Thread
	}
	defer s.threads.lock(sc.Namespace, threads...)()
	// An id given by the caller must be new to the namespace (ids are
	// unique per namespace; another namespace's ids are never looked at):
	// writing over a record is Update's job.
	var given []string
	dup := map[string]bool{}
	for i, n := range in {
		if n.ID == "" {
			continue
		}
		if dup[n.ID] {
			return nil, mnemo.Errorf(mnemo.EINVALID, "record %d: id %s appears twice in the batch", i+1, n.ID)
		}
		dup[n.ID] = true
		given = append(given, n.ID)
	}
	if len(given) > 0 {
		taken, err := s.store.Existing(ctx, sc.Namespace, given)
		if err != nil {
			return nil, err
		}
		for i, n := range in {
			if _, ok := taken[n.ID]; ok && n.ID != "" {
				msg := fmt.Sprintf("record id %s already exists: change it with edit, or omit the id", n.ID)
				if len(in) > 1 {
					msg = fmt.Sprintf("record %d: %s", i+1, msg)
				}
				return nil, mnemo.Errorf(mnemo.ECONFLICT, "%s", msg)
			}
		}
	}
	// Supersession targets must exist and be visible before anything is written.
	supersede := map[int]*mnemo.Record{}
	for i, n := range in {
		if n.Supersedes == "" {
			continue
		}
		id, err := s.resolveID(ctx, sc, n.Supersedes)
		if err != nil {
			return nil, err
		}
		old, err := s.store.Get(ctx, sc, id)
		if err != nil {
			return nil, err
		}
		if old.DeletedAt != nil {
			return nil, mnemo.Errorf(mnemo.ECONFLICT, "record %s is forgotten: restore it before superseding it", old.ID)
		}
		supersede[i] = old
	}
	// Cited principles must be principles the caller sees (principles.go).
	if err := s.checkPrinciples(ctx, sc, recs); err != nil {
		return nil, err
	}
	// A large batch is embedded as the store inserts it (pipelined); any
	// other before the write begins.
	var restamped []*mnemo.Record
	var piped *preparation
	if s.pipelined(recs, opt.Dedup) {
		piped = s.startPrepare(ctx, recs, pipedChunk)
		defer piped.cancel()
	} else if restamped, err = s.prepare(ctx, recs); err != nil {
		return nil, err
	}
	// Everything the write stores goes in one batch, committed together:
	// the new records, the merges, the vectors the new records re-chain and
	// the supersessions. A supersession that fails (its record purged,
	// forgotten or lowered out of sight since it was read) leaves nothing.
	out := make([]mnemo.Written, len(recs))
	var fresh []*mnemo.Record
	var merges []mnemo.RecordUpdate
	merged := map[string]*mnemo.Record{} // records merged into so far, by id
	for i, r := range recs {
		if opt.Dedup && supersede[i] == nil {
			m, err := s.mergeDuplicate(ctx, sc, r, now, merged)
			if err != nil {
				return nil, err
			}
			if m != nil {
				merged[m.ID] = m
				c := *m // the revision shows the record as this merge left it
				merges = append(merges, mnemo.RecordUpdate{Record: &c, Action: "merge"})
				out[i] = mnemo.Written{Record: m, Merged: true}
				continue
			}
		}
		out[i] = mnemo.Written{Record: r}
		fresh = append(fresh, r)
	}
	batch := mnemo.WriteBatch{Insert: fresh, InsertAction: "create", Actor: c.Name, Updates: merges,
		Embeddings: vectorsOf(restamped)}
	if piped != nil {
		batch.Ready = piped.wait // fresh is recs: no merges without dedup
	}
	for i := range recs {
		if old := supersede[i]; old != nil {
			batch.Supersede = append(batch.Supersede, mnemo.Supersession{Scope: sc, ID: old.ID, By: recs[i].ID,
				At: recs[i].ValidFrom, UpdatedAt: now})
		}
	}
	if !batch.Empty() {
		if _, err := s.store.Write(ctx, batch); err != nil {
			return nil, err
		}
	}
	if piped != nil {
		// The store waited for every record; this only makes sure.
		if err := piped.wait(len(recs)); err != nil {
			return nil, err
		}
	}
	// A record of a thread merged into an existing one of the same thread
	// was context for the records after it, and the existing one may have
	// taken its text: chain the thread again from the earlier of the two.
	// This reads the thread as stored, so it follows the batch; it changes
	// vectors only (derived data, which reembed rebuilds).
	for i, w := range out {
		if w.Merged && recs[i].Thread != "" {
			from := recs[i].CreatedAt
			if w.CreatedAt.Before(from) {
				from = w.CreatedAt
			}
			if err := s.rechain(ctx, sc.Namespace, recs[i].Thread, from); err != nil {
				return nil, err
			}
		}
	}
	if s.written != nil {
		var threads []string
		seen := map[string]bool{}
		for _, r := range fresh {
			if r.Thread != "" && !seen[r.Thread] {
				seen[r.Thread] = true
				threads = append(threads, r.Thread)
			}
		}
		if len(threads) > 0 {
			s.written(sc.Namespace, threads)
		}
	}
	events := 0
	for _, r := range recs {
		if r.Kind == mnemo.KindEvent {
			events++
		}
	}
	if events > 0 {
		s.rates.add(sc.Namespace, now, events)
	}
	return out, nil
}

// check validates a record and the caller's right to write it.
func (s *Service) check(r *mnemo.Record, c mnemo.Caller) error {
	if err := r.Validate(s.limits); err != nil {
		return err
	}
	if r.AccessLevel > c.Clearance {
		return mnemo.Errorf(mnemo.EFORBIDDEN, "access_level %d is above the caller's clearance %d", r.AccessLevel, c.Clearance)
	}
	return nil
}

// prepare counts tokens of the rendered entry and embeds every record,
// giving the records of a thread their context (threadContext). It returns
// the stored records whose vectors change with the batch, to be stored
// (storeVectors) once the batch is written.
func (s *Service) prepare(ctx context.Context, recs []*mnemo.Record) ([]*mnemo.Record, error) {
	// A share of the batch for each core, in calls of at most embedCall.
	chunk := embedCall
	if len(recs) >= 64 {
		w := min(runtime.GOMAXPROCS(0), 8)
		chunk = max(1, min(embedCall, (len(recs)+w-1)/w))
	}
	p := s.startPrepare(ctx, recs, chunk)
	err := p.wait(len(recs))
	p.cancel()
	if err != nil {
		return nil, err
	}
	return s.threadContext(ctx, recs)
}

// embedCall is how many texts one Embed call of a write takes, and
// pipedChunk how many a write that inserts as it embeds (pipelined) takes:
// the first records reach the store sooner.
const (
	embedCall  = 256
	pipedChunk = 64
	// pipelineMin is the fewest records a write inserts as it embeds:
	// below, the store takes them in one part anyway.
	pipelineMin = 256
)

// pipelined reports whether a write of recs embeds and counts while the
// store inserts the records done (mnemo.WriteBatch.Ready): a large batch,
// a local embedder (no transaction stays open on a remote call), no
// near-duplicate merging (which reads the vectors before the write) and no
// record of a thread (whose vectors take their context from the others).
func (s *Service) pipelined(recs []*mnemo.Record, dedup bool) bool {
	if len(recs) < pipelineMin || dedup || !mnemo.IsLocal(s.emb) {
		return false
	}
	for _, r := range recs {
		if r.Thread != "" {
			return false
		}
	}
	return true
}

// preparation embeds a write's records and counts their tokens, a chunk
// at a time, the chunks taken in order by workers spread over the cores:
// embedding and exact token counts (a BPE pass over the rendered entry)
// are the costliest part of a write. wait(n) returns once the first n
// records are done, so a store can insert those while the rest are
// prepared (mnemo.WriteBatch.Ready).
type preparation struct {
	ctx   context.Context
	recs  []*mnemo.Record
	chunk int
	done  []chan struct{} // closed when the chunk is done or failed
	errs  []error         // the chunk's error, read after its done
	next  atomic.Int64    // the next chunk to take
	ready atomic.Int64    // records known done, a prefix (wait's fast path)
	stop  atomic.Bool     // set on the first failure, or by cancel
	first error           // the first failure, under mu
	mu    sync.Mutex
	wg    sync.WaitGroup
}

// errStopped marks a chunk left undone after a failure or a cancel.
var errStopped = errors.New("write preparation stopped")

// startPrepare starts preparing recs in chunks of chunk records.
func (s *Service) startPrepare(ctx context.Context, recs []*mnemo.Record, chunk int) *preparation {
	n := (len(recs) + chunk - 1) / chunk
	p := &preparation{ctx: ctx, recs: recs, chunk: chunk, done: make([]chan struct{}, n), errs: make([]error, n)}
	for c := range p.done {
		p.done[c] = make(chan struct{})
	}
	workers := 1
	if len(recs) >= 64 {
		workers = min(runtime.GOMAXPROCS(0), 8, n)
	}
	for range workers {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for {
				c := int(p.next.Add(1) - 1)
				if c >= n {
					return
				}
				err := errStopped
				if !p.stop.Load() {
					err = s.prepareChunk(ctx, recs[c*chunk:min((c+1)*chunk, len(recs))])
				}
				if err != nil && err != errStopped {
					p.mu.Lock()
					if p.first == nil {
						p.first = err
					}
					p.mu.Unlock()
					p.stop.Store(true)
				}
				p.errs[c] = err
				close(p.done[c])
				// A store waiting for the chunk (its rows to make, then its
				// insert) runs now rather than after this worker's next
				// chunk: Go preempts a running goroutine only after 10 ms.
				runtime.Gosched()
			}
		}()
	}
	return p
}

// prepareChunk embeds recs and counts their tokens.
func (s *Service) prepareChunk(ctx context.Context, recs []*mnemo.Record) error {
	texts := make([]string, len(recs))
	for i, r := range recs {
		texts[i] = embedText(r)
	}
	vecs, err := s.docEmbedder().Embed(ctx, texts)
	if err != nil {
		return err
	}
	if len(vecs) != len(recs) {
		return fmt.Errorf("embedder returned %d vectors for %d texts", len(vecs), len(recs))
	}
	for i, r := range recs {
		r.Embedding = vecs[i]
		r.Tokens = s.count(entryBody(r))
	}
	return nil
}

// docEmbedder is what the records of a write are embedded with: the
// embedder without its query cache (embed.Cached.Uncached), which a
// write's texts, each seen once, would only fill with vectors no query
// asks for, evicting those of repeated queries.
func (s *Service) docEmbedder() mnemo.Embedder {
	if u, ok := s.emb.(interface{ Uncached() mnemo.Embedder }); ok {
		return u.Uncached()
	}
	return s.emb
}

// wait returns once the first n records are prepared, or with the error
// that stopped their preparation (or ctx's). Safe for concurrent use.
func (p *preparation) wait(n int) error {
	if int64(n) <= p.ready.Load() {
		return nil
	}
	for c := 0; c*p.chunk < n; c++ {
		select {
		case <-p.done[c]:
		case <-p.ctx.Done():
			return p.ctx.Err()
		}
		if err := p.errs[c]; err != nil {
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.first != nil {
				return p.first
			}
			return err
		}
	}
	for {
		r := p.ready.Load()
		if int64(n) <= r || p.ready.CompareAndSwap(r, int64(n)) {
			return nil
		}
	}
}

// cancel stops the chunks not started and waits for the workers: no
// record changes after it returns.
func (p *preparation) cancel() {
	p.stop.Store(true)
	p.wg.Wait()
}

// embedText is what the embedder sees for a record: its text plus the
// structured body's words.
func embedText(r *mnemo.Record) string {
	t := r.Text
	if d := r.Decision; d != nil {
		t += " " + d.Title + " " + d.Decision + " " + d.Context + " " + d.Principle
	}
	if c := r.Correction; c != nil {
		t += " " + c.Summary + " " + c.Category + " " + c.Component
	}
	return t
}

// mergeDuplicate consolidates r into a stored near-duplicate, if one exists:
// the highest confidence and importance, the freshest source, and the union
// of provenance and tags are kept. It returns the merged record, for the
// caller to store, or nil. pending holds the records the same write merged
// into already, not yet stored: a candidate among them is taken from there.
func (s *Service) mergeDuplicate(ctx context.Context, sc mnemo.Scope, r *mnemo.Record, now time.Time, pending map[string]*mnemo.Record) (*mnemo.Record, error) {
	f := mnemo.Filter{Layers: []mnemo.Layer{r.Layer}, Kinds: []mnemo.Kind{r.Kind}}
	sc.Clearance = max(sc.Clearance, r.AccessLevel)
	hits, err := s.store.Keyword(ctx, sc, r.Text, f, 5)
	if err != nil || len(hits) == 0 {
		return nil, err
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	cands, err := s.store.GetMany(ctx, sc, ids)
	if err != nil {
		return nil, err
	}
	for i, old := range cands {
		if p := pending[old.ID]; p != nil {
			cands[i] = p
		}
	}
	kw := keywords(r.Text)
	for _, old := range cands {
		// Near-duplicates are merged within one access level and one thread:
		// two turns of different conversations stay two records.
		if old.AccessLevel != r.AccessLevel || old.Thread != r.Thread || !IsDuplicate(kw, keywords(old.Text)) {
			continue
		}
		if r.Confidence > old.Confidence || (r.Confidence == old.Confidence && r.Text != old.Text) {
			old.Text = r.Text
			old.Tokens = r.Tokens
			old.Embedding = r.Embedding
			old.Decision, old.Correction = r.Decision, r.Correction
		}
		old.Confidence = max(old.Confidence, r.Confidence)
		old.Importance = max(old.Importance, r.Importance)
		old.Criticality = max(old.Criticality, r.Criticality)
		old.Source = r.Source // the freshest source
		old.Provenance = union(old.Provenance, r.Provenance)
		old.Tags = union(old.Tags, r.Tags)
		old.UpdatedAt = now
		return old, nil
	}
	return nil, nil
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// Get returns one record visible to the caller (forgotten ones included).
// Errors: EINVALID for a malformed id (mnemo.ValidateID), ENOTFOUND.
func (s *Service) Get(ctx context.Context, id string) (*mnemo.Record, error) {
	_, sc, err := reader(ctx)
	if err != nil {
		return nil, err
	}
	id, err = s.resolveID(ctx, sc, id)
	if err != nil {
		return nil, err
	}
	return s.store.Get(ctx, sc, id)
}

// History returns a record's audit trail, oldest first. Every revision is
// judged by its own access level: one above the caller's clearance comes as
// a placeholder with its time, action and actor only (Revision.Redacted).
// Errors: ENOTFOUND when the record is missing or above the clearance.
func (s *Service) History(ctx context.Context, id string) ([]mnemo.Revision, error) {
	_, sc, err := reader(ctx)
	if err != nil {
		return nil, err
	}
	id, err = s.resolveID(ctx, sc, id)
	if err != nil {
		return nil, err
	}
	revs, err := s.store.History(ctx, sc, id)
	if err != nil {
		return nil, err
	}
	mnemo.RedactRevisions(revs, sc.Clearance)
	return revs, nil
}

// List returns records matching the options, newest first.
func (s *Service) List(ctx context.Context, opt mnemo.ListOptions) ([]*mnemo.Record, error) {
	_, sc, err := reader(ctx)
	if err != nil {
		return nil, err
	}
	if opt.Limit < 0 || opt.Limit > 10000 {
		return nil, mnemo.Errorf(mnemo.EINVALID, "limit %d is outside 0..10000", opt.Limit)
	}
	if err := validateFilter(opt.Filter); err != nil {
		return nil, err
	}
	return s.store.List(ctx, sc, opt)
}

// Update applies a patch to a record, re-counting tokens and re-embedding
// when its text changes (for a record of a thread, also when its thread or
// access level changes: they decide its context). Errors: ENOTFOUND, EINVALID (nothing is changed).
func (s *Service) Update(ctx context.Context, id string, p mnemo.RecordPatch) (*mnemo.Record, error) {
	c, sc, err := writer(ctx)
	if err != nil {
		return nil, err
	}
	if p.Empty() {
		return nil, mnemo.Errorf(mnemo.EINVALID, "nothing to change")
	}
	moveTo := ""
	if p.Thread != nil {
		moveTo = *p.Thread
	}
	r, unlock, err := s.getLocked(ctx, sc, id, moveTo)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if r.DeletedAt != nil {
		return nil, mnemo.Errorf(mnemo.ECONFLICT, "record %s is forgotten: restore it first", r.ID)
	}
	before, thread, level := embedText(r), r.Thread, r.AccessLevel
	p.Apply(r)
	if p.Scope != nil {
		r.Scope = normScope(r.Scope)
	}
	r.UpdatedAt = s.now().UTC()
	if err := s.check(r, c); err != nil {
		return nil, err
	}
	if p.Decision != nil || p.AccessLevel != nil || p.Kind != nil {
		if err := s.checkPrinciples(ctx, sc, []*mnemo.Record{r}); err != nil {
			return nil, err
		}
	}
	r.Tokens = s.count(entryBody(r))
	// The vector changes with the text, and for a record of a thread also
	// with its thread and access level (which decide its context).
	var restamped []*mnemo.Record
	if embedText(r) != before || (r.Thread != "" || thread != "") && (r.Thread != thread || r.AccessLevel != level) {
		vecs, err := s.emb.Embed(ctx, []string{embedText(r)})
		if err != nil {
			return nil, err
		}
		r.Embedding = vecs[0]
		if restamped, err = s.threadContext(ctx, []*mnemo.Record{r}); err != nil {
			return nil, err
		}
	}
	if err := s.store.Update(ctx, r, "update", c.Name); err != nil {
		return nil, err
	}
	if err := s.storeVectors(ctx, restamped); err != nil {
		return nil, err
	}
	if thread != "" && thread != r.Thread {
		// The record left its thread: the records after it lose its words.
		if err := s.rechain(ctx, r.Namespace, thread, r.CreatedAt); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func normScope(s string) string {
	for len(s) > 1 && s[len(s)-1] == '/' {
		s = s[:len(s)-1]
	}
	if s == "" {
		return "/"
	}
	return s
}

// Forget soft-deletes a record: it leaves every retrieval but stays
// restorable, and the action is audited.
func (s *Service) Forget(ctx context.Context, id string) (*mnemo.Record, error) {
	c, sc, err := writer(ctx)
	if err != nil {
		return nil, err
	}
	return s.softDelete(ctx, sc, id, "forget", c.Name, nil)
}

// softDelete marks a record deleted with the given audit action ("forget",
// "expire"), unless keep says otherwise of the record read under the
// thread lock. It returns the record, or nil when keep refused it.
func (s *Service) softDelete(ctx context.Context, sc mnemo.Scope, id, action, actor string, keep func(*mnemo.Record) bool) (*mnemo.Record, error) {
	r, unlock, err := s.getLocked(ctx, sc, id, "")
	if err != nil {
		return nil, err
	}
	defer unlock()
	if keep != nil && keep(r) {
		return nil, nil
	}
	if r.DeletedAt != nil {
		return r, nil
	}
	t := s.now().UTC()
	r.DeletedAt = &t
	r.UpdatedAt = t
	if err := s.store.Update(ctx, r, action, actor); err != nil {
		return nil, err
	}
	// The records after it in its thread no longer carry its words.
	return r, s.rechain(ctx, r.Namespace, r.Thread, r.CreatedAt)
}

// Restore undoes Forget.
func (s *Service) Restore(ctx context.Context, id string) (*mnemo.Record, error) {
	c, sc, err := writer(ctx)
	if err != nil {
		return nil, err
	}
	r, unlock, err := s.getLocked(ctx, sc, id, "")
	if err != nil {
		return nil, err
	}
	defer unlock()
	if r.DeletedAt == nil {
		return r, nil
	}
	r.DeletedAt = nil
	r.UpdatedAt = s.now().UTC()
	if err := s.store.Update(ctx, r, "restore", c.Name); err != nil {
		return nil, err
	}
	// It and the records after it in its thread take their context again.
	if err := s.rechain(ctx, r.Namespace, r.Thread, r.CreatedAt); err != nil {
		return nil, err
	}
	return s.store.Get(ctx, sc, r.ID)
}

func validateFilter(f mnemo.Filter) error {
	for _, l := range f.Layers {
		if !l.Valid() {
			return mnemo.Errorf(mnemo.EINVALID, "unknown layer %q in filter", l)
		}
	}
	for _, k := range f.Kinds {
		if !k.Valid() {
			return mnemo.Errorf(mnemo.EINVALID, "unknown kind %q in filter", k)
		}
	}
	if f.ScopePrefix != "" {
		if err := mnemo.ValidateScope(f.ScopePrefix); err != nil {
			return err
		}
	}
	if !(f.MinCriticality >= 0 && f.MinCriticality <= 1) {
		return mnemo.Errorf(mnemo.EINVALID, "criticality filter %v is outside 0..1", f.MinCriticality)
	}
	switch f.Outcome {
	case "", mnemo.OutcomeAccepted, mnemo.OutcomeRejected, mnemo.OutcomeModified:
	default:
		return mnemo.Errorf(mnemo.EINVALID, "unknown outcome %q in filter", f.Outcome)
	}
	if f.Since != nil && f.Until != nil && !f.Since.Before(*f.Until) {
		return mnemo.Errorf(mnemo.EINVALID, "time range is empty: since is not before until")
	}
	return nil
}

// getLocked reads a record and locks its thread (and extra, a thread it is
// moving to) for a write: unlock must be called. A record that changed
// thread between the read and the lock is read again.
func (s *Service) getLocked(ctx context.Context, sc mnemo.Scope, id, extra string) (*mnemo.Record, func(), error) {
	id, err := s.resolveID(ctx, sc, id)
	if err != nil {
		return nil, nil, err
	}
	r, err := s.store.Get(ctx, sc, id)
	if err != nil {
		return nil, nil, err
	}
	for {
		if r.Thread == "" && extra == "" {
			return r, func() {}, nil
		}
		held := r.Thread
		unlock := s.threads.lock(sc.Namespace, held, extra)
		if r, err = s.store.Get(ctx, sc, id); err != nil {
			unlock()
			return nil, nil, err
		}
		if r.Thread == held {
			return r, unlock, nil
		}
		unlock()
	}
}

// listAll lists every record matching opt visible to sc (access.ListAll).
func (s *Service) listAll(ctx context.Context, sc mnemo.Scope, opt mnemo.ListOptions) ([]*mnemo.Record, error) {
	return access.ListAll(ctx, s.store, sc, opt)
}
