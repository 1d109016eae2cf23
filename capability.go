package mnemo

import "context"

// Optional store capabilities.
//
// A Store is all a caller may count on. A store may do more, and says so by
// implementing one of the interfaces below; callers find them by type
// assertion and fall back when a store lacks one, so every capability is
// an optimisation or a refinement, never a condition of a correct answer.
// Which store has which, and why:
//
//	capability      interface      sqlite  postgres
//	idf             IDFSource      yes     no
//	term-idf        TermIDFSource  yes     no
//	term-keyword    TermKeyworder  yes     no
//	record-terms    RecordTermer   yes     no
//	next-in-thread  ThreadFollower yes     yes
//	refs            RefResolver    yes     yes
//	warm            Warmer         yes     yes
//	rank-fields     RankIndex      yes     no
//
// The first four come with an in-memory BM25 index: sqlite keeps one per
// namespace (memindex), with per-clearance document frequencies, so it
// knows a term's IDF among the records a caller sees and can search terms
// already cut and stemmed as it cuts them. postgres ranks keywords with
// PostgreSQL's full-text search, which keeps no document frequencies (see
// Searcher). Without them the engine weighs every query word alike — in the
// hash embedder's query vector and in the relevance floor's share of query
// words a record holds — keeps a query expansion's related terms without
// checking that some visible record holds them and few do, and passes
// those terms to Keyword as text, which cuts them again. Both stores find records by the end of
// their id (an indexed query) and keep an in-memory index per namespace,
// which holds each thread's order (next-in-thread) and which Warm loads
// ahead of the first search.
//
// The conformance suite (storetest) checks that a store implements exactly
// the capabilities its tests claim for it, and that it honours each.
type Capability string

// The capabilities, each naming the interface that provides it.
const (
	CapIDF         Capability = "idf"            // IDFSource
	CapTermIDF     Capability = "term-idf"       // TermIDFSource
	CapTermKeyword Capability = "term-keyword"   // TermKeyworder
	CapRecordTerms Capability = "record-terms"   // RecordTermer
	CapNextTurn    Capability = "next-in-thread" // ThreadFollower
	CapRefs        Capability = "refs"           // RefResolver
	CapWarm        Capability = "warm"           // Warmer
	CapRankFields  Capability = "rank-fields"    // RankIndex
)

// Capabilities returns the optional capabilities s implements, in the
// order of the constants above.
func Capabilities(s Store) []Capability {
	var out []Capability
	if _, ok := s.(IDFSource); ok {
		out = append(out, CapIDF)
	}
	if _, ok := s.(TermIDFSource); ok {
		out = append(out, CapTermIDF)
	}
	if _, ok := s.(TermKeyworder); ok {
		out = append(out, CapTermKeyword)
	}
	if _, ok := s.(RecordTermer); ok {
		out = append(out, CapRecordTerms)
	}
	if _, ok := s.(ThreadFollower); ok {
		out = append(out, CapNextTurn)
	}
	if _, ok := s.(RefResolver); ok {
		out = append(out, CapRefs)
	}
	if _, ok := s.(Warmer); ok {
		out = append(out, CapWarm)
	}
	if _, ok := s.(RankIndex); ok {
		out = append(out, CapRankFields)
	}
	return out
}

// IDFSource is a store that knows the inverse document frequencies of its
// keyword index over the records a scope sees (capability idf).
type IDFSource interface {
	// IDF cuts text as Keyword cuts a query and returns, for each of its
	// index terms, ln(1 + (N − n + 0.5)/(n + 0.5)) — N the records of sc's
	// namespace that sc's clearance sees (forgotten and superseded ones
	// included, as in the keyword statistics), n those of them holding the
	// term — and the IDF of a term no such record holds, ln(1 + (N +
	// 0.5)/0.5). A record above the clearance changes nothing.
	IDF(ctx context.Context, sc Scope, text string) (idf map[string]float64, unseen float64, err error)
}

// TermIDFSource is IDFSource for terms already cut and stemmed as the
// keyword index cuts them (memindex.Terms), which a second cutting would
// change (capability term-idf).
type TermIDFSource interface {
	IDFTerms(ctx context.Context, sc Scope, terms []string) (idf map[string]float64, unseen float64, err error)
}

// TermKeyworder is a store that searches index terms already cut (the
// related terms of a query expansion) as Keyword searches the terms it
// cuts from a query (capability term-keyword).
type TermKeyworder interface {
	KeywordTerms(ctx context.Context, sc Scope, terms []string, f Filter, n int) ([]Hit, error)
}

// RecordTermer is a store whose keyword index holds the distinct index
// terms of each record (cut and stemmed as memindex.Terms cuts them), so a
// caller that needs them — the relevance floor, the learned channel — need
// not cut the record's text again (capability record-terms).
type RecordTermer interface {
	// RecordTerms returns the distinct index terms of the records of ids
	// in sc's namespace that sc's clearance sees, by id, in no particular
	// order; ids it does not hold are left out. The slices are the
	// caller's.
	RecordTerms(ctx context.Context, sc Scope, ids []string) (map[string][]string, error)
}

// ThreadFollower is a store that knows the order of each thread's records
// (capability next-in-thread), so that the turn answering a question turn
// can be found.
type ThreadFollower interface {
	// NextInThread returns, for each record of ids that names a thread
	// and that sc and f see, the id of the nearest record after it in its
	// thread (in time, then id order) that sc and f see; records without
	// one are left out.
	NextInThread(ctx context.Context, sc Scope, f Filter, ids []string) (map[string]string, error)
}

// Warmer is a store that keeps per-namespace in-memory indexes and can
// load one ahead of its first search (capability warm). Warm may decline
// to load one when a bound on the indexes' memory is reached.
type Warmer interface {
	Warm(ctx context.Context, namespace string) error
}

// RankIndex is a store whose in-memory index holds what ranking needs of
// a record, so a search can rank its candidates without reading their
// rows and read only the rows of what it shows (capability rank-fields).
type RankIndex interface {
	// VectorCodes is Vector scored from the index's quantised vectors
	// alone: each score is within a small bound of the exact cosine (for
	// int8 codes of unit vectors, about 0.01 at most), and no row is read.
	VectorCodes(ctx context.Context, sc Scope, q []float32, f Filter, n int) ([]Hit, error)
	// RankFields returns the ranking fields of each record of ids in sc's
	// namespace that sc's clearance sees and that is not forgotten, in no
	// particular order; ids it does not hold are left out. Sem is the
	// cosine similarity of the record's vector to q as VectorCodes scores
	// it (HasSem false when the record has no vector of q's dimension).
	RankFields(ctx context.Context, sc Scope, ids []string, q []float32) ([]RankFields, error)
}

// RankFields is what ranking needs of a record. Record holds the record's
// id, namespace, layer, kind, scope, component, mission, thread, tags,
// importance, confidence, criticality, access level, access count, the
// times (created, updated, valid from and to) and its token count; Source
// is SourceExtracted for an extracted memory and empty otherwise. Its
// text, body, provenance and vector are left out: a caller reads the row
// (GetMany) before it shows the record. Speakers are the lower-case names
// the record is by (SpeakerNames).
type RankFields struct {
	Record   *Record
	Speakers []string
	Sem      float64
	HasSem   bool
}
