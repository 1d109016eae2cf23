package bench

import (
	"context"
	"fmt"
	"github.com/mnemo-dev/mnemo/thesaurus"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/score"
	"github.com/mnemo-dev/mnemo/sqlite"
	"github.com/mnemo-dev/mnemo/tokenize"
)

// Method names, in table order.
const (
	MethodHybrid     = "hybrid"      // the engine's default ranking (Recall, Digest)
	MethodBM25       = "bm25"        // store.Keyword only
	MethodBM25Thread = "bm25-thread" // store.Keyword reranked with the thread factor (ThreadRerank)
	MethodVector     = "vector"      // store.Vector only
	MethodRecency    = "recency"     // most recent turns first
)

// Methods lists the methods every LoCoMo run compares.
var Methods = []string{MethodHybrid, MethodBM25, MethodBM25Thread, MethodVector, MethodRecency}

// Default LoCoMo settings.
var (
	DefaultKs      = []int{5, 10, 20}
	DefaultBudgets = []int{500, 1000, 2000}
)

// DefaultDepth is the length of each method's ranked list (MRR is MRR@depth).
const DefaultDepth = 100

// LoCoMoOptions configure RunLoCoMo. The zero value runs the hash embedder,
// the default preset, k = 5, 10, 20 and budgets 500, 1000, 2000.
type LoCoMoOptions struct {
	Embedder  mnemo.Embedder  // nil: embed.NewHash(0)
	Tokenizer mnemo.Tokenizer // nil: tokenize.New("")
	Preset    string          // scoring preset of the hybrid method; "" = default
	Ks        []int           // recall@k cut-offs
	Budgets   []int           // token budgets of "recall within budget"
	Depth     int             // ranked-list length; DefaultDepth when 0
	Dir       string          // where the temporary store goes; "" = a new temp dir, removed after
	Workers   int             // conversations evaluated in parallel; 0 = min(2, GOMAXPROCS)
	// Thesaurus expands the hybrid's queries (nil: none), as the engine of
	// `mnemo serve` does with the thesauri installed.
	Thesaurus *thesaurus.Thesaurus
	// NoLearned leaves out the semantic channel learned from the store;
	// by default each conversation's model is trained after loading it, as
	// `mnemo serve` does in the background.
	NoLearned bool
	// Progress, when set, is called after each question with the number done
	// and the total (calls are serialised).
	Progress func(done, total int)

	threadWeight float64 // bm25-thread's weight, set by RunLoCoMo
}

// LoCoMoReport is the outcome of a run. Its JSON form is
// {"questions", "skipped_evidence", "methods": [...]}; the other fields
// describe the run for the Markdown report.
type LoCoMoReport struct {
	Questions       int            `json:"questions"`        // questions scored (with evidence), all categories
	SkippedEvidence int            `json:"skipped_evidence"` // evidence references that did not resolve
	Methods         []MethodResult `json:"methods"`

	Conversations    int           `json:"-"`
	Turns            int           `json:"-"`
	Unscorable       int           `json:"-"` // questions left out: no evidence turn resolved
	RepairedEvidence int           `json:"-"`
	Embedder         string        `json:"-"`
	Learned          bool          `json:"learned"`  // the semantic channel learned from each conversation was on
	Thesauri         []string      `json:"thesauri"` // the thesauri expanding the hybrid's queries
	Preset           string        `json:"-"`
	Tokenizer        string        `json:"-"`
	ThreadWeight     float64       `json:"-"` // bm25-thread's weight of the thread factor
	Ks               []int         `json:"-"`
	Budgets          []int         `json:"-"`
	Depth            int           `json:"-"`
	Elapsed          time.Duration `json:"-"`
}

// Method returns the named method's result, or nil.
func (r *LoCoMoReport) Method(name string) *MethodResult {
	for i := range r.Methods {
		if r.Methods[i].Name == name {
			return &r.Methods[i]
		}
	}
	return nil
}

// quietStore is the benchmark's store: the real SQLite store, except that
// access counters and the retrieval log are not written, so that one
// question's retrieval never changes the ranking of the next (the frequency
// factor) and questions can be answered in any order.
type quietStore struct{ *sqlite.Store }

func (quietStore) Touch(context.Context, string, []string, time.Time) error  { return nil }
func (quietStore) LogRetrieval(context.Context, ...mnemo.RetrievalLog) error { return nil }

// RunLoCoMo evaluates retrieval on a LoCoMo data set: every conversation is
// loaded into its own namespace of one temporary SQLite store (one record per
// turn: "Speaker: text", the session's date as the record time, "dia:<id>" as
// provenance); then, for each question, each method ranks the turns and is
// scored against the question's evidence turns. The engine's clock is set
// to one hour after the conversation's last session.
//
// Methods: hybrid is Service.Recall (k = depth) for recall@k and MRR and
// Service.Digest with the question as the task for recall within budget;
// bm25 is Store.Keyword, vector is Store.Vector on the embedded question,
// recency is every turn newest first; bm25-thread is Store.Keyword reranked
// by ThreadRerank with the default preset's ThreadWeight (each session is a
// thread). The baselines have no digest: their ranked turns are packed
// greedily into the budget by each record's Tokens (the token count of its
// rendered digest entry), skipping a turn that does not fit; they pay no
// title, section header or score prefix, so the comparison slightly favours
// them.
//
// Every method is also scored on each half of the conversations in file
// order (1–5 and 6–10 of ten; see Half), and the precision of its packed
// context is measured as tokens per evidence turn found (the digest's
// used_tokens for the hybrid, the packed records' tokens for the
// baselines).
func RunLoCoMo(ctx context.Context, ds *Dataset, opt LoCoMoOptions) (*LoCoMoReport, error) {
	start := time.Now()
	if ds == nil || len(ds.Conversations) == 0 {
		return nil, mnemo.Errorf(mnemo.EINVALID, "no conversations to evaluate")
	}
	if opt.Embedder == nil {
		opt.Embedder = embed.NewHash(0)
	}
	if opt.Tokenizer == nil {
		tok, err := tokenize.New("")
		if err != nil {
			return nil, err
		}
		opt.Tokenizer = tok
	}
	if len(opt.Ks) == 0 {
		opt.Ks = DefaultKs
	}
	if len(opt.Budgets) == 0 {
		opt.Budgets = DefaultBudgets
	}
	for _, k := range opt.Ks {
		if k <= 0 || k > 1000 {
			return nil, mnemo.Errorf(mnemo.EINVALID, "k %d is outside 1..1000", k)
		}
	}
	for _, b := range opt.Budgets {
		if b <= 0 || b > engine.MaxTokenBudget {
			return nil, mnemo.Errorf(mnemo.EINVALID, "budget %d is outside 1..%d", b, engine.MaxTokenBudget)
		}
	}
	pr, err := score.Lookup(opt.Preset)
	if err != nil {
		return nil, err
	}
	def, err := score.Lookup("")
	if err != nil {
		return nil, err
	}
	if opt.Depth == 0 {
		opt.Depth = DefaultDepth
	}
	opt.Depth = max(opt.Depth, slices.Max(opt.Ks))
	if opt.Workers <= 0 {
		opt.Workers = min(2, runtime.GOMAXPROCS(0))
	}
	emb := embed.NewCached(opt.Embedder, 4096)
	dir, cleanup, err := workDir(opt.Dir, "mnemo-locomo-")
	if err != nil {
		return nil, err
	}
	defer cleanup()
	st, err := sqlite.Open(ctx, sqlite.Options{Path: filepath.Join(dir, "locomo.db")})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	store := quietStore{st}
	// Record the embedder once, before workers race to do it.
	if err := st.SetEmbedder(ctx, emb.Info(), false); err != nil {
		return nil, err
	}

	rep := &LoCoMoReport{Conversations: len(ds.Conversations), SkippedEvidence: ds.SkippedEvidence,
		RepairedEvidence: ds.RepairedEvidence, Embedder: emb.Info().Name, Preset: pr.Name, Tokenizer: opt.Tokenizer.Name(),
		Ks: opt.Ks, Budgets: opt.Budgets, Depth: opt.Depth, ThreadWeight: def.ThreadWeight,
		Learned: !opt.NoLearned, Thesauri: []string{}}
	for _, src := range opt.Thesaurus.Sources() {
		rep.Thesauri = append(rep.Thesauri, src.Name)
	}
	opt.threadWeight = def.ThreadWeight
	accs := map[string]*accumulator{}
	for _, m := range Methods {
		accs[m] = newAccumulator(opt.Ks, opt.Budgets)
	}
	split := halves(len(ds.Conversations))
	halfAccs := make([]map[string]*accumulator, len(split))
	halfOf := make([]int, len(ds.Conversations)) // conversation index -> half
	for h, r := range split {
		halfAccs[h] = map[string]*accumulator{}
		for _, m := range Methods {
			halfAccs[h][m] = newAccumulator(opt.Ks, opt.Budgets)
		}
		for i := r[0] - 1; i < r[1]; i++ {
			halfOf[i] = h
		}
	}
	var mu sync.Mutex // guards accs, rep counters and progress
	total, done := ds.Questions(), 0
	tick := func() {
		done++
		if opt.Progress != nil {
			opt.Progress(done, total)
		}
	}

	jobs := make(chan int)
	errs := make(chan error, opt.Workers)
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range opt.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ci := range jobs {
				if err := evalConversation(ctx, store, emb, opt, &ds.Conversations[ci], func(cat int, scores map[string]QuestionScore, turns int) {
					mu.Lock()
					defer mu.Unlock()
					if scores == nil {
						if turns > 0 {
							rep.Turns += turns
							return
						}
						rep.Unscorable++
						tick()
						return
					}
					rep.Questions++
					for m, qs := range scores {
						accs[m].add(cat, qs)
						if len(split) > 0 {
							halfAccs[halfOf[ci]][m].add(cat, qs)
						}
					}
					tick()
				}); err != nil {
					errs <- err
					cancel()
					return
				}
			}
		}()
	}
	for i := range ds.Conversations {
		select {
		case jobs <- i:
		case <-ctx.Done():
		}
	}
	close(jobs)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, m := range Methods {
		res := accs[m].result(m)
		for h, r := range split {
			res.Halves = append(res.Halves, halfAccs[h][m].half(r[0], r[1]))
		}
		rep.Methods = append(rep.Methods, res)
	}
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// seededIDs returns a ULID source that gives the same ids in every run for
// the same conversation, so record ids, and with them the token counts of
// rendered entries and the order of equal scores, are reproducible.
func seededIDs(conv string, at time.Time) func() string {
	var seed [32]byte
	copy(seed[:], conv)
	entropy := ulid.Monotonic(rand.NewChaCha8(seed), 0)
	var mu sync.Mutex
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		return ulid.MustNew(ulid.Timestamp(at), entropy).String()
	}
}

var benchCaller = mnemo.Caller{Name: "bench", Clearance: mnemo.MaxAccessLevel, Role: mnemo.RoleAdmin}

// evalConversation loads one conversation into its namespace and scores
// every question. report is called once with the number of turns loaded
// (scores nil), then once per question: with nil scores when the question
// has no evidence to score against.
func evalConversation(ctx context.Context, store mnemo.Store, emb mnemo.Embedder, opt LoCoMoOptions, c *Conversation,
	report func(cat int, scores map[string]QuestionScore, turns int)) error {
	ns := "locomo-" + c.ID
	if err := mnemo.ValidateNamespace(ns); err != nil {
		return err
	}
	last := c.Sessions[len(c.Sessions)-1].At
	now := last.Add(time.Hour)
	svc, err := engine.New(ctx, engine.Config{Store: store, Embedder: emb, Tokenizer: opt.Tokenizer,
		Now: func() time.Time { return now }, NewID: seededIDs(c.ID, now), DefaultPreset: opt.Preset,
		Thesaurus: opt.Thesaurus, NoLearned: opt.NoLearned})
	if err != nil {
		return err
	}
	defer svc.Close()

	// Ingest: one record per turn, each session a thread (a chat sitting);
	// recency order is session, then position.
	var in []mnemo.NewRecord
	var diaOrder, threadOrder []string
	for _, s := range c.Sessions {
		at := s.At
		thread := fmt.Sprintf("%s/session-%d", c.ID, s.N)
		for _, t := range s.Turns {
			in = append(in, mnemo.NewRecord{Text: t.RecordText(), At: &at, Source: "import:locomo",
				Provenance: []string{"dia:" + t.DiaID}, Thread: thread})
			diaOrder = append(diaOrder, t.DiaID)
			threadOrder = append(threadOrder, thread)
		}
	}
	written, err := svc.Remember(mnemo.WithCallerIn(ctx, benchCaller, ns), in, mnemo.WriteOptions{Dedup: false})
	if err != nil {
		return fmt.Errorf("bench: load %s: %w", c.ID, err)
	}
	if !opt.NoLearned {
		if _, err := svc.TrainSemantic(ctx, ns); err != nil {
			return fmt.Errorf("bench: train %s: %w", c.ID, err)
		}
	}
	dia := make(map[string]string, len(written)) // record id -> dia_id
	tokens := make(map[string]int, len(written))
	threadOf := make(map[string]string, len(written)) // record id -> thread
	recency := make([]string, len(written))           // record ids, newest first
	for i, w := range written {
		dia[w.ID] = diaOrder[i]
		tokens[w.ID] = w.Tokens
		threadOf[w.ID] = threadOrder[i]
		recency[len(written)-1-i] = w.ID
	}
	report(0, nil, len(written))
	toDia := func(ids []string) []string {
		out := make([]string, len(ids))
		for i, id := range ids {
			out[i] = dia[id]
		}
		return out
	}
	cost := func(id string) int { return tokens[id] }
	// baseline scores a baseline's ranked record ids: the top depth for
	// recall@k and MRR, greedily packed into each budget for recall within
	// budget, with the packed records' tokens as what the context costs.
	baseline := func(ids []string, evidence []string) QuestionScore {
		packed, spent := map[int][]string{}, map[int]int{}
		for _, b := range opt.Budgets {
			p := packGreedy(ids, b, cost)
			for _, id := range p {
				spent[b] += cost(id)
			}
			packed[b] = toDia(p)
		}
		if len(ids) > opt.Depth {
			ids = ids[:opt.Depth]
		}
		qs := ScoreQuestion(toDia(ids), packed, evidence, opt.Ks)
		qs.PackedTokens = spent
		return qs
	}
	sc := mnemo.Scope{Namespace: ns, Clearance: mnemo.MaxAccessLevel}

	for _, q := range c.Questions {
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(q.Evidence) == 0 {
			report(q.Category, nil, 0)
			continue
		}
		scores := map[string]QuestionScore{}

		// hybrid
		res, err := svc.Recall(mnemo.WithCallerIn(ctx, benchCaller, ns), mnemo.RecallRequest{Query: q.Text, K: opt.Depth})
		if err != nil {
			return fmt.Errorf("bench: %s: recall %q: %w", c.ID, q.Text, err)
		}
		ranked := make([]string, len(res.Hits))
		for i, h := range res.Hits {
			ranked[i] = dia[h.ID]
		}
		packed, spent := map[int][]string{}, map[int]int{}
		for _, b := range opt.Budgets {
			d, err := svc.Digest(mnemo.WithCallerIn(ctx, benchCaller, ns), mnemo.DigestRequest{Task: q.Text, Budget: b})
			if err != nil {
				return fmt.Errorf("bench: %s: digest %q: %w", c.ID, q.Text, err)
			}
			ids := make([]string, len(d.Entries))
			for i, e := range d.Entries {
				ids[i] = dia[e.ID]
			}
			packed[b] = ids
			spent[b] = d.UsedTokens
		}
		hy := ScoreQuestion(ranked, packed, q.Evidence, opt.Ks)
		hy.PackedTokens = spent
		scores[MethodHybrid] = hy

		// bm25
		kw, err := store.Keyword(ctx, sc, q.Text, mnemo.Filter{}, opt.Depth)
		if err != nil {
			return fmt.Errorf("bench: %s: keyword %q: %w", c.ID, q.Text, err)
		}
		scores[MethodBM25] = baseline(hitIDs(kw), q.Evidence)
		scores[MethodBM25Thread] = baseline(ThreadRerank(kw, func(id string) string { return threadOf[id] }, opt.threadWeight), q.Evidence)

		// vector
		qv, err := svc.EmbedQuery(ctx, sc, q.Text) // the engine's query embedding
		if err != nil {
			return fmt.Errorf("bench: embed %q: %w", q.Text, err)
		}
		vh, err := store.Vector(ctx, sc, qv, mnemo.Filter{}, opt.Depth)
		if err != nil {
			return fmt.Errorf("bench: %s: vector %q: %w", c.ID, q.Text, err)
		}
		scores[MethodVector] = baseline(hitIDs(vh), q.Evidence)

		// recency
		scores[MethodRecency] = baseline(recency, q.Evidence)

		report(q.Category, scores, 0)
	}
	return nil
}

func hitIDs(hs []mnemo.Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.ID
	}
	return out
}
