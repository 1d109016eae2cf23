package engine

import (
	"context"
	"encoding/binary"
	"math"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memindex"
)

// Transaction time: a recall or digest with Filter.AsKnownAt answers from
// what the memory held at that instant — each record as its latest
// revision at or before it, records written later or forgotten by then
// absent — instead of the records as they are now.
//
// It is the slow path. The store lists the namespace's past state from its
// revisions (Store.List with AsKnownAt, a scan of the revisions); the
// engine builds a throwaway in-memory index of it (keyword postings,
// vectors: the current vector of a record whose text is unchanged, else
// the record's own text embedded again, without its thread's context) and
// runs the usual ranking over a view of the store that answers every read
// from that state. Nothing is cached between requests.
//
// Clearance holds twice: the store leaves out every record whose current
// row is above the caller's clearance (it shows nothing of its past), and
// every revision above it (a record lowered later is absent before).
//
// Validity (valid_from, valid_to) is judged at as_of when it is given too,
// else at as_known_at: what a read at that time would have answered.

// knownAtLimit bounds the records of one past state.
const knownAtLimit = 200_000

// recallKnownAt is Recall over the namespace as it was known at
// *req.Filter.AsKnownAt.
func (s *Service) recallKnownAt(ctx context.Context, sc mnemo.Scope, req mnemo.RecallRequest) (*mnemo.RecallResult, error) {
	v, f, err := s.knownAt(ctx, sc, req.Filter)
	if err != nil {
		return nil, err
	}
	req.Filter = f
	return v.Recall(ctx, req)
}

// digestKnownAt is Digest over the namespace as it was known at
// *req.Filter.AsKnownAt.
func (s *Service) digestKnownAt(ctx context.Context, sc mnemo.Scope, req mnemo.DigestRequest) (*mnemo.Digest, error) {
	v, f, err := s.knownAt(ctx, sc, req.Filter)
	if err != nil {
		return nil, err
	}
	req.Filter = f
	return v.Digest(ctx, req)
}

// knownAt returns a service whose store answers from sc's namespace as it
// was known at *f.AsKnownAt, and the filter to pass it: AsKnownAt cleared,
// AsOf set to it unless given.
func (s *Service) knownAt(ctx context.Context, sc mnemo.Scope, f mnemo.Filter) (*Service, mnemo.Filter, error) {
	if err := validateFilter(f); err != nil {
		return nil, f, err
	}
	at := f.AsKnownAt.UTC()
	var recs []*mnemo.Record
	opt := mnemo.ListOptions{Filter: mnemo.Filter{AsKnownAt: &at}, Limit: 10000, IncludeDeleted: true, IncludeHistory: true}
	for {
		page, err := s.store.List(ctx, sc, opt)
		if err != nil {
			return nil, f, err
		}
		recs = append(recs, page...)
		if len(page) < opt.Limit {
			break
		}
		if len(recs) >= knownAtLimit {
			return nil, f, mnemo.Errorf(mnemo.ETOOLARGE, "as_known_at reads at most %d records of a namespace", knownAtLimit)
		}
		opt.After = page[len(page)-1].ID
	}
	view, err := s.newKnownView(ctx, sc, at, recs)
	if err != nil {
		return nil, f, err
	}
	f.AsKnownAt = nil
	if f.AsOf == nil {
		f.AsOf = &at
	}
	return s.over(view), f, nil
}

// newKnownView indexes recs, the state of sc's namespace at at.
func (s *Service) newKnownView(ctx context.Context, sc mnemo.Scope, at time.Time, recs []*mnemo.Record) (*knownView, error) {
	// Records whose text changed since have no vector: their own text
	// embedded again.
	var texts []string
	var which []int
	for i, r := range recs {
		if len(r.Embedding) == 0 && r.DeletedAt == nil {
			texts = append(texts, r.SearchText())
			which = append(which, i)
		}
	}
	if len(texts) > 0 {
		vecs, err := s.emb.Embed(ctx, texts)
		if err != nil {
			return nil, err
		}
		for j, i := range which {
			if j < len(vecs) {
				r := *recs[i]
				r.Embedding = vecs[j]
				recs[i] = &r
			}
		}
	}
	dim := 0
	for _, r := range recs {
		dim = max(dim, len(r.Embedding))
	}
	v := &knownView{Store: s.store, ns: sc.Namespace, at: at, recs: make(map[string]*mnemo.Record, len(recs)),
		idx: memindex.New[string](len(recs), dim)}
	var emb []byte
	for _, r := range recs {
		v.recs[r.ID] = r
		emb = emb[:0]
		if len(r.Embedding) == dim {
			for _, x := range r.Embedding {
				emb = binary.LittleEndian.AppendUint32(emb, math.Float32bits(x))
			}
		}
		v.idx.Put(r.ID, memindex.EntryOf(r), emb, []byte(r.SearchText()))
	}
	return v, nil
}

// The view answers the keyword capabilities itself, from its own index.
var (
	_ mnemo.IDFSource     = (*knownView)(nil)
	_ mnemo.TermIDFSource = (*knownView)(nil)
	_ mnemo.TermKeyworder = (*knownView)(nil)
)

// knownView is a read-only mnemo.Store over one namespace's past state:
// the reads a recall or digest makes come from it, everything else
// (settings, the retrieval log, counts) from the store underneath.
type knownView struct {
	mnemo.Store
	ns   string
	at   time.Time
	recs map[string]*mnemo.Record
	idx  *memindex.Namespace[string]
}

func (v *knownView) visible(sc mnemo.Scope, r *mnemo.Record) bool {
	return r != nil && sc.Namespace == v.ns && r.AccessLevel <= sc.Clearance
}

func (v *knownView) Get(_ context.Context, sc mnemo.Scope, id string) (*mnemo.Record, error) {
	if r := v.recs[id]; v.visible(sc, r) {
		return r, nil
	}
	return nil, mnemo.Errorf(mnemo.ENOTFOUND, "record %s not found", id)
}

func (v *knownView) GetMany(_ context.Context, sc mnemo.Scope, ids []string) ([]*mnemo.Record, error) {
	var out []*mnemo.Record
	for _, id := range ids {
		if r := v.recs[id]; v.visible(sc, r) {
			out = append(out, r)
		}
	}
	return out, nil
}

func (v *knownView) List(_ context.Context, sc mnemo.Scope, opt mnemo.ListOptions) ([]*mnemo.Record, error) {
	if sc.Namespace != v.ns {
		return nil, nil
	}
	known := make([]*mnemo.Record, 0, len(v.recs))
	for _, r := range v.recs {
		known = append(known, r)
	}
	opt.Filter.AsKnownAt = &v.at
	return memindex.ListKnownAt(known, sc, opt), nil
}

func (v *knownView) Keyword(_ context.Context, sc mnemo.Scope, query string, f mnemo.Filter, n int) ([]mnemo.Hit, error) {
	if n <= 0 || sc.Namespace != v.ns {
		return nil, nil
	}
	terms := memindex.Terms(memindex.QueryTokens(query), memindex.MaxQueryTokens)
	if len(terms) == 0 {
		return nil, nil
	}
	return v.KeywordTerms(context.Background(), sc, terms, f, n)
}

// KeywordTerms is Keyword for terms already cut (the engine's
// termKeyworder: the related terms of a query expansion).
func (v *knownView) KeywordTerms(_ context.Context, sc mnemo.Scope, terms []string, f mnemo.Filter, n int) ([]mnemo.Hit, error) {
	if n <= 0 || len(terms) == 0 || sc.Namespace != v.ns {
		return nil, nil
	}
	if len(terms) > memindex.MaxQueryTokens {
		terms = terms[:memindex.MaxQueryTokens]
	}
	return v.idx.Keyword(terms, knownPruneBudget, v.cond(sc, f), n), nil
}

// knownPruneBudget bounds the postings a keyword query visits, as the
// SQLite store's index does.
const knownPruneBudget = 5000

// IDFTerms is IDF for terms already cut (the engine's termIDFSource).
func (v *knownView) IDFTerms(_ context.Context, sc mnemo.Scope, terms []string) (map[string]float64, float64, error) {
	m, unseen := v.idx.IDF(terms, sc.Clearance)
	return m, unseen, nil
}

// RecordTerms returns the index terms of the records as they were known.
func (v *knownView) RecordTerms(_ context.Context, sc mnemo.Scope, ids []string) (map[string][]string, error) {
	out := make(map[string][]string, len(ids))
	for _, id := range ids {
		if !v.visible(sc, v.recs[id]) {
			continue
		}
		if ts, ok := v.idx.TermsOf(id, sc.Clearance); ok {
			out[id] = ts
		}
	}
	return out, nil
}

// NextInThread follows the threads as they were known.
func (v *knownView) NextInThread(_ context.Context, sc mnemo.Scope, f mnemo.Filter, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	if sc.Namespace != v.ns {
		return out, nil
	}
	c := v.cond(sc, f)
	for _, id := range ids {
		if next, ok := v.idx.Next(id, c); ok {
			out[id] = next
		}
	}
	return out, nil
}

func (v *knownView) Vector(_ context.Context, sc mnemo.Scope, q []float32, f mnemo.Filter, n int) ([]mnemo.Hit, error) {
	if n <= 0 || sc.Namespace != v.ns {
		return nil, nil
	}
	q, err := memindex.Normalize(q)
	if err != nil || q == nil {
		return nil, err
	}
	return v.idx.Vector(q, v.cond(sc, f), n), nil
}

// IDF is the store's IDF (the engine's idfSource) over the past state.
func (v *knownView) IDF(_ context.Context, sc mnemo.Scope, text string) (map[string]float64, float64, error) {
	m, unseen := v.idx.IDF(memindex.Terms(memindex.QueryTokens(text), memindex.MaxQueryTokens), sc.Clearance)
	return m, unseen, nil
}

// cond compiles a filter for the past state: validity at AsOf, else at
// the view's time.
func (v *knownView) cond(sc mnemo.Scope, f mnemo.Filter) *memindex.Cond {
	f.AsKnownAt = nil
	return memindex.Compile(sc, f, v.at)
}

func (v *knownView) Count(_ context.Context, ns string) (int, error) {
	if ns != v.ns {
		return 0, nil
	}
	n := 0
	for _, r := range v.recs {
		if r.Live(v.at) {
			n++
		}
	}
	return n, nil
}

func (v *knownView) Threads(_ context.Context, sc mnemo.Scope) ([]mnemo.ThreadInfo, error) {
	return nil, nil
}

func (v *knownView) History(_ context.Context, _ mnemo.Scope, id string) ([]mnemo.Revision, error) {
	return nil, mnemo.Errorf(mnemo.EINVALID, "a past state has no history")
}

// The view is read-only.
func (v *knownView) Insert(context.Context, []*mnemo.Record, string, string) (int, error) {
	return 0, errKnownReadOnly
}
func (v *knownView) Write(context.Context, mnemo.WriteBatch) (int, error) {
	return 0, errKnownReadOnly
}
func (v *knownView) Update(context.Context, *mnemo.Record, string, string) error {
	return errKnownReadOnly
}
func (v *knownView) SetEmbeddings(context.Context, map[mnemo.RecordKey][]float32) error {
	return errKnownReadOnly
}
func (v *knownView) Purge(context.Context, mnemo.Scope, time.Time) (int, error) {
	return 0, errKnownReadOnly
}

var errKnownReadOnly = mnemo.Errorf(mnemo.EINVALID, "a read as_known_at cannot write")

// over returns a service like s whose reads go to st: the configuration,
// the background queue (retrieval log, access counters: the real store's)
// and the rate tracker are shared; the caches start empty (they are keyed
// on the records' current state); no extraction runs.
func (s *Service) over(st mnemo.Store) *Service {
	return &Service{
		store: st, emb: s.emb, tok: s.tok, now: s.now, newID: s.newID, limits: s.limits, preset: s.preset,
		halfs: s.halfs, candN: s.candN, triageCap: s.triageCap, rates: s.rates, log: s.log,
		bg: s.bg, bgDone: s.bgDone, noLearned: s.noLearned, thes: s.thes, chat: s.chat,
	}
}
