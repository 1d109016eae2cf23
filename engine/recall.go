package engine

import (
	"context"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/score"
)

// MaxQueryBytes bounds a query or task description.
const MaxQueryBytes = 16 << 10

// ranking is the result of scoring the candidates of one query.
type ranking struct {
	intent  score.Intent
	by      string // what classified the intent: IntentByRequest, IntentByRules or IntentByModel
	preset  score.Preset
	weights map[string]float64
	triage  *mnemo.Triage
	hits    []mnemo.ScoredRecord // best first; near-duplicates are dropped by the caller
	dedup   float64              // the near-duplicate threshold (cosine)
	ratio   float64              // a digest's min_score_ratio (0 for filter-only requests)
	// partial names the hits whose Record holds the ranking fields only
	// (mnemo.RankFields): fill reads their rows when they are shown.
	partial map[string]bool
	sc      mnemo.Scope
}

// Recall returns the k best records for a query, each with its factor
// breakdown. Errors: EINVALID for an empty or oversized query, a bad filter,
// preset or intent.
func (s *Service) Recall(ctx context.Context, req mnemo.RecallRequest) (*mnemo.RecallResult, error) {
	ctx = mnemo.WithReadSession(ctx) // one read, one state of the store
	c, sc, err := reader(ctx)
	if err != nil {
		return nil, err
	}
	if req.K == 0 {
		req.K = 10
	}
	if req.K < 0 || req.K > 1000 {
		return nil, mnemo.Errorf(mnemo.EINVALID, "k %d is outside 1..1000", req.K)
	}
	if req.Filter.AsKnownAt != nil {
		return s.recallKnownAt(ctx, sc, req) // transaction time: asknown.go
	}
	rk, err := s.rank(ctx, sc, req.Query, req.Filter, req.Preset, req.Intent, false, req.MinRelevance)
	if err != nil {
		return nil, err
	}
	dd := dedup{threshold: rk.dedup}
	for i := 0; i < len(rk.hits) && len(dd.kept) < req.K; i++ {
		if err := s.fill(ctx, rk, rk.hits, i, req.K-len(dd.kept)+fillSlack); err != nil {
			return nil, err
		}
		if h := rk.hits[i]; h.Record != nil && !dd.dup(h) {
			dd.add(h)
		}
	}
	hits := dd.kept
	res := &mnemo.RecallResult{Intent: string(rk.intent), IntentBy: rk.by, Preset: rk.preset.Name, Weights: rk.weights, Triage: rk.triage, Hits: make([]mnemo.RecallHit, len(hits))}
	for i, h := range hits {
		r := h.Record
		res.Hits[i] = mnemo.RecallHit{ID: r.ID, Score: h.Score, Factors: h.Factors, Text: r.Text, Layer: r.Layer, Kind: r.Kind,
			Scope: r.Scope, Provenance: nonNil(r.Provenance), CreatedAt: r.CreatedAt, Why: h.Why}
	}
	res.RetrievalID = s.logRetrieval(c, sc.Namespace, "recall", req.Query, hits)
	return res, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func checkQuery(q, what string) error {
	if strings.TrimSpace(q) == "" {
		return mnemo.Errorf(mnemo.EINVALID, "%s is empty: give one, or a filter to list its records by importance and recency", what)
	}
	if len(q) > MaxQueryBytes {
		return mnemo.Errorf(mnemo.ETOOLARGE, "%s is %d bytes, over the limit of %d", what, len(q), MaxQueryBytes)
	}
	if !utf8.ValidString(q) {
		return mnemo.Errorf(mnemo.EINVALID, "%s is not valid UTF-8", what)
	}
	return nil
}

// rank gathers candidates (keyword top-N ∪ vector top-N, plus pinned core
// records when withCore), scores them and sorts them best first.
// Candidates without evidence of relevance to the query are left out
// (see floor); minRel is the request's min_relevance.
func (s *Service) rank(ctx context.Context, sc mnemo.Scope, query string, f mnemo.Filter, presetName, intentName string, withCore bool, minRel *float64) (*ranking, error) {
	return s.rankWith(ctx, sc, query, f, presetName, intentName, withCore, nil, minRel)
}

// rankWith is rank with the preset's base weights replaced by override
// when it is set; otherwise the default preset takes the namespace's
// active tuning (Tune), if any.
func (s *Service) rankWith(ctx context.Context, sc mnemo.Scope, query string, f mnemo.Filter, presetName, intentName string,
	withCore bool, override *mnemo.Weights, minRel *float64) (*ranking, error) {
	// One read: its store calls see one state of the store, checked once.
	ctx = mnemo.WithReadSession(ctx)
	byFilter := filterOnly(query, f)
	if !byFilter {
		if err := checkQuery(query, "query"); err != nil {
			return nil, err
		}
	}
	if minRel != nil && (*minRel < 0 || *minRel > 1 || math.IsNaN(*minRel)) {
		return nil, mnemo.Errorf(mnemo.EINVALID, "min_relevance %v is outside 0..1", *minRel)
	}
	if err := validateFilter(f); err != nil {
		return nil, err
	}
	p, err := s.Preset(presetName)
	if err != nil {
		return nil, err
	}
	// The namespace's active scoring configuration (versions: tune, config
	// apply, the cold loop): weights per intent, half-lives, floor,
	// candidate count, relevance floor, near-duplicate threshold.
	rc, err := s.rankConfig(ctx, sc.Namespace, p, override, minRel)
	if err != nil {
		return nil, err
	}
	p, minRel = rc.Preset, rc.MinRelevance
	intent, err := score.ParseIntent(intentName)
	if err != nil {
		return nil, err
	}
	// The query is cut once; every reader below takes its part.
	cq := cutQuery(query)
	by := IntentByRequest
	if intent == "" {
		intent, by = s.classifyIntent(sc.Namespace, query, cq.intent) // the rules, or the model's earlier answer: intent_model.go
	}
	w := rc.Weights(intent)
	rk := &ranking{intent: intent, by: by, preset: p, weights: w.Map(), dedup: rc.DedupThreshold, ratio: rc.ScoreRatio, sc: sc}
	if byFilter {
		rk.ratio = 0 // a listing by filter: priors order it, none is "weaker"
		return s.rankFiltered(ctx, sc, f, p, w, withCore, rk)
	}
	if p.ThreadWeight > 0 {
		rk.weights[mnemo.FactorThread] = p.ThreadWeight
	}

	// The channels search the query's content words only: a stopword, a
	// question word or a file extension is no evidence of anything.
	now := s.now()
	cq.at(now)
	iv, names := cq.iv, cq.names
	fl := &floor{q: cq, min: minRel, off: minRel != nil && *minRel == 0, terms: s.termCache.of}
	if err := s.prepareFloor(ctx, sc, fl); err != nil {
		return nil, err
	}
	if cq.text == "" && !withCore {
		return rk, nil // nothing to search for
	}
	searchText := cq.text
	if searchText == "" {
		searchText = query // only core records will pass
	}
	// Related terms (thesauri, the semantic channel learned from the
	// store) join the keyword channel and the floor at their lower weight.
	var lm *learned
	var qLearn []float32
	if cq.text != "" {
		lm = s.semanticModel(ctx, sc.Namespace)
	}
	if lm != nil {
		fl.learnedNull = lm.textNull
		qLearn = lm.m.EmbedPieces(cq.pieces)
		rk.weights[mnemo.FactorLearned] = score.LearnedWeight
	}
	exps, err := s.keepExpansions(ctx, sc, fl, s.expand(cq, lm))
	if err != nil {
		return nil, err
	}
	for _, e := range exps {
		for _, t := range e.terms {
			fl.addExpansion(t, e.weight[t], e.origin[t], e.source)
		}
	}
	// Related terms stay out of the query's vector: on the evaluation's
	// choice half they blurred it more than they helped.
	var st *queryStats
	if searchText == cq.text {
		st = fl.stats // read once for the floor and the query's vector
	}
	qv, err := s.embedQuery(ctx, sc, searchText, st)
	if err != nil {
		return nil, err
	}

	var (
		wg            sync.WaitGroup
		kwHits, vHits []mnemo.Hit
		kwErr, vErr   error
		core          []*mnemo.Record
		coreErr       error
	)
	wg.Add(1)
	// With a store's rank index, candidates are ranked from the fields it
	// holds and only the rows of what is shown are read (fill).
	ri, byFields := s.store.(mnemo.RankIndex)
	go func() {
		defer wg.Done()
		switch {
		case cq.text == "":
		case byFields:
			vHits, vErr = ri.VectorCodes(ctx, sc, qv, f, rc.Candidates)
		default:
			vHits, vErr = s.store.Vector(ctx, sc, qv, f, rc.Candidates)
		}
	}()
	if withCore {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cf := mnemo.Filter{Kinds: []mnemo.Kind{mnemo.KindCore}, AsOf: f.AsOf}
			core, coreErr = s.store.List(ctx, sc, mnemo.ListOptions{Filter: cf, Limit: 50})
		}()
	}
	if cq.text != "" {
		kwHits, kwErr = s.keywordQuery(ctx, sc, cq, f, rc.Candidates)
	}
	if kwErr == nil {
		// Feedback words order the candidates; unlike the related terms
		// above they never join the floor.
		var fb *expansion
		if fb, kwErr = s.feedbackExpansion(ctx, sc, cq, fl, kwHits); fb != nil {
			exps = append(exps, fb)
		}
	}
	expHits := make([][]mnemo.Hit, len(exps))
	for i, e := range exps {
		if kwErr == nil {
			expHits[i], kwErr = s.keywordExpansion(ctx, sc, e, f, rc.Candidates)
		}
	}
	wg.Wait()
	for _, e := range []error{kwErr, vErr, coreErr} {
		if e != nil {
			return nil, e
		}
	}

	// Collect ids, then load the records not already in hand.
	type cand struct {
		rec      *mnemo.Record
		kw, sem  float64
		bm25     float64 // the keyword score of the query's own terms
		kwHit    bool    // found by a keyword search (own or related terms)
		inVector bool
		why      *mnemo.Why
		learned  float64  // the learned channel's strength (learned.strength)
		speakers []string // who the record is by (mnemo.SpeakerNames); nil until needed for a full record
		partial  bool     // rec holds the ranking fields only
	}
	cands := make(map[string]*cand, len(kwHits)+len(vHits)+len(core))
	get := func(id string) *cand {
		c := cands[id]
		if c == nil {
			c = &cand{}
			cands[id] = c
		}
		return c
	}
	// Keyword score: BM25 of the query's terms plus, at their weight, of
	// the related terms; normalised by the best.
	kwRaw := make(map[string]float64, len(kwHits))
	// Every keyword search that returned fewer hits than asked returned
	// every record holding its terms: a candidate none of them found holds
	// none of the query's terms (nor related ones).
	complete := len(kwHits) < rc.Candidates
	for _, h := range kwHits {
		kwRaw[h.ID] += h.Score
		c := get(h.ID)
		c.bm25, c.kwHit = h.Score, true
	}
	for i, hs := range expHits {
		complete = complete && len(hs) < rc.Candidates
		for _, h := range hs {
			kwRaw[h.ID] += expansionWeight * exps[i].mean * h.Score
			get(h.ID).kwHit = true
		}
	}
	maxKW := 0.0
	for _, x := range kwRaw {
		maxKW = math.Max(maxKW, x)
	}
	for id, x := range kwRaw {
		if maxKW > 0 {
			get(id).kw = x / maxKW
		}
	}
	for _, h := range vHits {
		c := get(h.ID)
		c.sem = clamp01(h.Score)
		c.inVector = true
	}
	for _, r := range core {
		get(r.ID).rec = r
	}
	var missing []string
	for id, c := range cands {
		if c.rec == nil {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 && byFields {
		fs, err := ri.RankFields(ctx, sc, missing, qv)
		if err != nil {
			return nil, err
		}
		missing = missing[:0]
		for _, x := range fs {
			c := cands[x.Record.ID]
			c.rec, c.speakers, c.partial = x.Record, x.Speakers, true
			if !c.inVector && x.HasSem {
				c.sem = clamp01(x.Sem)
			}
			if x.Record.Source == mnemo.SourceExtracted {
				// A digest folds an extracted memory's messages by its
				// provenance: read its row now (there are few).
				missing = append(missing, x.Record.ID)
			}
		}
	}
	if len(missing) > 0 {
		recs, err := s.store.GetMany(ctx, sc, missing)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			c := cands[r.ID]
			c.rec, c.partial = r, false
		}
	}
	// The candidates' index terms, for the floor and the learned channel:
	// from the store's index when it keeps them, else cut from each text
	// when first needed.
	if _, ok := s.store.(mnemo.RecordTermer); ok && len(cands) > 0 {
		ids := make([]string, 0, len(cands))
		for id := range cands {
			ids = append(ids, id)
		}
		known, err := s.recordTerms(ctx, sc, ids, nil)
		if err != nil {
			return nil, err
		}
		fl.terms = func(r *mnemo.Record) []string {
			if ts, ok := known[r.ID]; ok {
				return ts
			}
			return s.termCache.of(r)
		}
	}

	var alpha float64
	if s.triageCap > 0 {
		rate, err := s.rates.perMinute(ctx, sc.Namespace, now, s.triageCap)
		if err != nil {
			return nil, err
		}
		alpha = score.TriageAlpha(rate, s.triageCap)
		if alpha > 0 {
			rk.triage = &mnemo.Triage{Active: true, Alpha: alpha, Rate: rate, Limit: s.triageCap}
			rk.weights = map[string]float64{mnemo.FactorCriticality: alpha, mnemo.FactorSemantic: 1 - alpha}
		}
	}
	maxRel := 0.0
	// The relevance mass of each thread among the candidates, for the
	// thread factor (score.ThreadFactor).
	var threadMass map[string]float64
	bestThread := 0.0
	if p.ThreadWeight > 0 && alpha == 0 {
		threadMass = map[string]float64{}
	}
	for id, c := range cands {
		if r := c.rec; r != nil {
			if !c.inVector && len(r.Embedding) == len(qv) {
				c.sem = clamp01(dot(qv, r.Embedding))
			}
			// The learned similarity is evidence of relevance; it does not
			// replace the embedder's in the semantic factor (on the
			// evaluation's choice half, taking the larger of the two lost
			// ranking quality; the related terms in the keyword channel
			// gained it).
			var learnedSim func() float64
			if qLearn != nil {
				learnedSim = func() float64 { return lm.sim(qLearn, r, func() []string { return fl.terms(r) }) }
			}
			why, ok := fl.judge(r, c.sem, c.bm25, c.kwHit || !complete, learnedSim)
			if ok && qLearn != nil {
				c.learned = lm.strength(qLearn, r, func() []string { return fl.terms(r) })
			}
			if !ok && r.Kind == mnemo.KindCore && withCore {
				why.Evidence, ok = "core", true
			}
			if !ok {
				delete(cands, id)
				continue
			}
			c.why = why
			rel := score.Relevance(w, score.Factors{Semantic: c.sem, Keyword: c.kw})
			maxRel = math.Max(maxRel, rel)
			if threadMass != nil && r.Thread != "" {
				threadMass[r.Thread] += rel
				bestThread = math.Max(bestThread, threadMass[r.Thread])
			}
		}
	}
	// Every candidate's factors fuse into its score (score.Ranking.Fuse).
	fuse := score.Ranking{Preset: p, Weights: w, Intent: intent, Alpha: alpha, MaxRelevance: maxRel, Learned: qLearn != nil}
	rk.hits = make([]mnemo.ScoredRecord, 0, len(cands))
	for _, c := range cands {
		r := c.rec
		if r == nil { // not visible any more
			continue
		}
		age := now.Sub(r.CreatedAt).Hours() / 24
		fa := score.Factors{
			Semantic:   c.sem,
			Keyword:    c.kw,
			Recency:    score.Recency(age, p.HalfLife(r.Scope), p.Floor),
			Importance: r.Importance,
			Confidence: r.Confidence,
			Frequency:  score.Frequency(r.AccessCount),
		}
		sp := c.speakers
		if sp == nil && !c.partial && len(names) > 0 {
			sp = mnemo.SpeakerNames(r.Text, r.Provenance)
		}
		cs := score.Candidate{Factors: fa, Criticality: r.Criticality, Kind: r.Kind, Learned: c.learned,
			HasThread: threadMass != nil && r.Thread != "", InInterval: iv.contains(r.CreatedAt), ByName: byName(sp, names), OfComponent: ofComponent(r, names)}
		if cs.HasThread {
			cs.Thread = score.ThreadFactor(threadMass[r.Thread], bestThread)
		}
		sv, factors := fuse.Fuse(cs)
		if iv != nil && c.why != nil {
			c.why.Interval = iv.String()
		}
		rk.hits = append(rk.hits, mnemo.ScoredRecord{Record: r, ID: r.ID, Score: sv, Factors: factors, Why: c.why})
		if c.partial {
			if rk.partial == nil {
				rk.partial = map[string]bool{}
			}
			rk.partial[r.ID] = true
		}
	}
	scaleHits(rk.hits)
	sortHits(rk.hits)
	if cq.text != "" {
		// The replies follow the questions among the first hits, whose
		// text tells them.
		if err := s.fill(ctx, rk, rk.hits, 0, replyDepth); err != nil {
			return nil, err
		}
		rk.hits = slices.DeleteFunc(rk.hits, func(h mnemo.ScoredRecord) bool { return h.Record == nil })
		if rk.hits, err = s.placeReplies(ctx, sc, f, rk.hits); err != nil {
			return nil, err
		}
	}
	return rk, nil
}

// scaleHits brings the scores of hits back within 0..1 (score.Scale).
func scaleHits(hits []mnemo.ScoredRecord) {
	scores, factors := make([]float64, len(hits)), make([]map[string]float64, len(hits))
	for i, h := range hits {
		scores[i], factors[i] = h.Score, h.Factors
	}
	if score.Scale(scores, factors) != 1 {
		for i := range hits {
			hits[i].Score = scores[i]
		}
	}
}

// sortHits orders hits best first, ties by descending id.
func sortHits(hits []mnemo.ScoredRecord) {
	slices.SortFunc(hits, func(a, b mnemo.ScoredRecord) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(b.ID, a.ID)
	})
}

// nearDuplicate is the cosine similarity above which two records say the
// same thing; the better-ranked one is kept.
const nearDuplicate = 0.97

// dedup remembers the records kept so far and tells whether a candidate is
// a near-duplicate of one of them: of the same layer and kind (as the write
// path's merge requires), almost the same vector and, by the write
// path's rule (IsDuplicate), the same content words — at least three shared
// keywords, so two short remarks such as "Thanks!" are never merged away.
// Callers check candidates lazily, in rank order, against what they have
// already kept, so the cost is candidates × kept rather than candidates².
// The first prefixDims dimensions of every kept vector sit in one
// contiguous slice: almost every pair is told apart by them alone, without
// touching the scattered full vectors.
type dedup struct {
	kept      []mnemo.ScoredRecord
	prefix    []float32
	threshold float64 // cosine; 0 = nearDuplicate
}

const prefixDims = 64

// add records h as kept.
func (d *dedup) add(h mnemo.ScoredRecord) {
	d.kept = append(d.kept, h)
	var p [prefixDims]float32
	copy(p[:], h.Record.Embedding)
	d.prefix = append(d.prefix, p[:]...)
}

// dup reports whether h is a near-duplicate of a kept record.
func (d *dedup) dup(h mnemo.ScoredRecord) bool {
	e := h.Record.Embedding
	if len(e) == 0 {
		return false
	}
	thr := d.threshold
	if thr <= 0 {
		thr = nearDuplicate
	}
	limit := float32(2 * (1 - thr))
	var head [prefixDims]float32
	copy(head[:], e)
	var kw map[string]struct{}
	for i, k := range d.kept {
		if k.Record.Kind != h.Record.Kind || k.Record.Layer != h.Record.Layer {
			continue // near-duplicates are told apart within a layer and kind
		}
		p := d.prefix[i*prefixDims : (i+1)*prefixDims]
		// The distance over the first 16 dimensions already exceeds the
		// limit for almost every pair; only the rest read all 64.
		var dist float32
		for j, x := range head[:16] {
			y := x - p[j]
			dist += y * y
		}
		if dist > limit {
			continue
		}
		for j := 16; j < prefixDims; j++ {
			y := head[j] - p[j]
			dist += y * y
		}
		if dist > limit {
			continue
		}
		if ke := k.Record.Embedding; len(ke) == len(e) && closeVectors(e, ke, limit) {
			if kw == nil {
				kw = keywords(h.Record.Text)
			}
			if IsDuplicate(kw, keywords(k.Record.Text)) {
				return true
			}
		}
	}
	return false
}

// closeVectors reports whether two unit vectors have cosine similarity of
// at least the threshold t, that is a squared distance of at most limit,
// 2·(1 − t). The distance is summed 16 dimensions at a time and
// the check stops as soon as the partial sum exceeds the limit, which for
// unrelated vectors happens within the first few blocks.
func closeVectors(a, b []float32, limit float32) bool {
	var d float32
	for i := 0; i < len(a); i += 16 {
		end := min(i+16, len(a))
		for j := i; j < end; j++ {
			x := a[j] - b[j]
			d += x * x
		}
		if d > limit {
			return false
		}
	}
	return true
}

func clamp01(x float64) float64 {
	if x < 0 || math.IsNaN(x) {
		return 0
	}
	if x > 1 {
		return 1
	}
	return x
}

func round4(x float64) float64 { return score.Round4(x) }

// logRetrieval records the retrieval and bumps access counters off the
// request path. It returns the retrieval's id, which a correction names
// (retrieval_id) to say which answer it followed.
func (s *Service) logRetrieval(c mnemo.Caller, ns, op, query string, hits []mnemo.ScoredRecord) string {
	at := s.now().UTC()
	l := mnemo.RetrievalLog{ID: s.newID(), Namespace: ns, At: at, Operation: op, Query: query,
		Caller: c.Name, Session: c.Session, IDs: make([]string, len(hits)), Scores: make([]float64, len(hits))}
	for i, h := range hits {
		l.IDs[i] = h.ID
		l.Scores[i] = h.Score
	}
	s.enqueue(l)
	return l.ID
}

// weightedEmbedder is an Embedder that can weigh a query's words.
type weightedEmbedder interface {
	EmbedWeighted(ctx context.Context, text string, weight func(stem string) float64) ([]float32, error)
}

// EmbedQuery embeds a query as recall and digest do. When the embedder weighs words (the hash
// embedder) and the store knows its terms' IDF, each word weighs its IDF
// relative to an unseen term's, so that, as in BM25, a rare word counts for
// more than a common one in the semantic channel too. The IDF counts only
// the records sc sees, so the vector never depends on hidden ones.
func (s *Service) EmbedQuery(ctx context.Context, sc mnemo.Scope, query string) ([]float32, error) {
	return s.embedQuery(ctx, sc, query, nil)
}

// queryStats is the IDF of a query's terms over what a caller may see.
type queryStats struct {
	idf    map[string]float64
	unseen float64
}

// embedQuery is EmbedQuery with the query's IDF already read (st, when
// set, must be of the same text).
func (s *Service) embedQuery(ctx context.Context, sc mnemo.Scope, query string, st *queryStats) ([]float32, error) {
	we, ok1 := s.emb.(weightedEmbedder)
	src, ok2 := s.store.(mnemo.IDFSource)
	if ok1 && ok2 {
		if st == nil {
			idf, unseen, err := src.IDF(ctx, sc, query)
			if err != nil {
				return nil, err
			}
			st = &queryStats{idf, unseen}
		}
		idf, unseen := st.idf, st.unseen
		if unseen > 0 {
			return we.EmbedWeighted(ctx, query, func(stem string) float64 {
				if v, ok := idf[stem]; ok {
					return v / unseen
				}
				return 1
			})
		}
	}
	vecs, err := s.emb.Embed(ctx, []string{query})
	if err != nil {
		return nil, err
	}
	return vecs[0], nil
}

// fillSlack is how many hits past those still wanted fill reads at once:
// near-duplicates dropped on the way need no second read.
const fillSlack = 4

// fill reads the rows of the hits of hs[i:i+n] that hold ranking fields
// only (rk.partial), in one call of the store, and puts the records in
// their place. A record gone since it was ranked leaves its hit's Record
// nil: callers skip such hits. hs may be rk.hits or a reordering of it.
func (s *Service) fill(ctx context.Context, rk *ranking, hs []mnemo.ScoredRecord, i, n int) error {
	if len(rk.partial) == 0 || i >= len(hs) || !rk.partial[hs[i].ID] {
		return nil
	}
	end := min(len(hs), i+max(n, 1))
	var ids []string
	for _, h := range hs[i:end] {
		if h.Record != nil && rk.partial[h.ID] {
			ids = append(ids, h.ID)
		}
	}
	recs, err := s.store.GetMany(ctx, rk.sc, ids)
	if err != nil {
		return err
	}
	got := make(map[string]*mnemo.Record, len(recs))
	for _, r := range recs {
		got[r.ID] = r
	}
	for k := i; k < end; k++ {
		h := &hs[k]
		if h.Record == nil || !rk.partial[h.ID] {
			continue
		}
		h.Record = got[h.ID]
	}
	for _, id := range ids {
		if r := got[id]; r != nil {
			delete(rk.partial, id)
		}
	}
	return nil
}

// fillAll reads the rows of every hit that holds ranking fields only and
// drops the hits whose record is gone.
func (s *Service) fillAll(ctx context.Context, rk *ranking) error {
	for i := 0; i < len(rk.hits); i += 256 {
		if err := s.fill(ctx, rk, rk.hits, i, 256); err != nil {
			return err
		}
	}
	rk.hits = slices.DeleteFunc(rk.hits, func(h mnemo.ScoredRecord) bool { return h.Record == nil })
	return nil
}
