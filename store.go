package mnemo

import (
	"context"
	"time"
)

// Scope says whose records a read may see.
type Scope struct {
	Namespace string
	Clearance int // the caller sees records with access_level <= Clearance
}

// RecordKey identifies a record in a store: its id is unique within its
// namespace.
type RecordKey struct {
	Namespace string
	ID        string
}

// Hit is a candidate id from one retrieval channel, with the channel's raw score.
type Hit struct {
	ID    string
	Score float64 // the channel's score, higher is better (see Searcher)
}

// Revision is one entry of a record's audit history.
type Revision struct {
	Seq    int64     `json:"seq"`
	At     time.Time `json:"at"`
	Action string    `json:"action"` // create, update, forget, restore, supersede, import, reembed, archive
	Actor  string    `json:"actor,omitempty"`
	Record *Record   `json:"record"` // the record as it was after the action; nil when redacted
	// Redacted is set when the record was, after this action, above the
	// caller's clearance: only the time, action and actor are shown.
	Redacted bool `json:"redacted,omitempty"`
}

// RedactRevisions replaces, in place, every revision whose record was above
// clearance (or is missing) by a placeholder that keeps only its sequence
// number, time, action and actor. Each revision is judged by its own
// access level: a record lowered to a clearance does not show the text it
// had above it.
func RedactRevisions(revs []Revision, clearance int) {
	for i := range revs {
		if r := revs[i].Record; r == nil || r.AccessLevel > clearance {
			revs[i].Record, revs[i].Redacted = nil, true
		}
	}
}

// RetrievalLog records one retrieval for the correction signal.
type RetrievalLog struct {
	ID        string    `json:"id"`
	Namespace string    `json:"namespace"`
	At        time.Time `json:"at"`
	Operation string    `json:"operation"` // recall, digest
	Query     string    `json:"query"`
	Caller    string    `json:"caller,omitempty"`
	Session   string    `json:"session,omitempty"`
	IDs       []string  `json:"ids"`
	Scores    []float64 `json:"scores"`
}

// ThreadInfo describes one thread of a namespace.
type ThreadInfo struct {
	Name    string    `json:"name"`
	Records int       `json:"records"` // live records
	First   time.Time `json:"first"`   // created_at of its oldest live record
	Last    time.Time `json:"last"`    // and of its newest
}

// EmbedderInfo identifies the embedder that built a store's vectors.
type EmbedderInfo struct {
	Name string `json:"name"` // e.g. "hash", "openai:text-embedding-3-small"
	Dim  int    `json:"dim"`
}

// ListOptions pages a List call. Records come newest first by id.
type ListOptions struct {
	Filter         Filter
	Limit          int    // 0 means 100
	After          string // id cursor: return records with id < After
	IncludeDeleted bool
	IncludeHistory bool // include superseded/expired records too
	// ByTime orders by created_at, newest first (equal times: larger id
	// first) instead of by id; After cannot be combined with it.
	ByTime bool
}

// Store persists records. Implementations: sqlite (embedded, default) and
// postgres; storetest is the conformance suite both pass. All methods are
// safe for concurrent use.
//
// A Store is the composition of role interfaces, each what one kind of
// caller uses: RecordStore (the records themselves), Searcher (the two
// retrieval channels), RetrievalStore (the retrieval log and access
// counters), SettingStore (the engine's settings), EmbeddingStore (the
// embedder and the vectors, for re-embedding and import) and Purger
// (retention). API keys are a separate interface, KeyStore, which both
// stores also implement. What a store may do beyond a Store is declared as
// optional capabilities (capability.go), which callers find by type
// assertion.
//
// Errors: ENOTFOUND when a record does not exist in the namespace or is above
// the caller's clearance; EINVALID for bad arguments; EMISMATCH when the
// embedder does not match the store.
type Store interface {
	RecordStore
	Searcher
	RetrievalStore
	SettingStore
	EmbeddingStore
	Purger
	// Close releases the store.
	Close() error
}

// RecordStore writes, reads and lists records.
type RecordStore interface {
	// Write commits a WriteBatch in one transaction: all of it or, on any
	// error, nothing. It returns how many of b.Insert it skipped.
	Write(ctx context.Context, b WriteBatch) (skipped int, err error)
	// Insert writes new records (ids, embeddings and tokens already set) in
	// one transaction and records a "create" revision for each (or the given
	// action). It is idempotent on id: an existing id is left unchanged and
	// reported in the returned skipped count.
	Insert(ctx context.Context, recs []*Record, action, actor string) (skipped int, err error)
	// Get returns one record visible to sc, deleted ones included.
	Get(ctx context.Context, sc Scope, id string) (*Record, error)
	// GetMany returns the visible records among ids, in no particular order,
	// skipping missing ones.
	GetMany(ctx context.Context, sc Scope, ids []string) ([]*Record, error)
	// Update replaces a stored record (matched by namespace and id) and
	// appends a revision with the action.
	Update(ctx context.Context, rec *Record, action, actor string) error
	// List returns records matching the options.
	List(ctx context.Context, sc Scope, opt ListOptions) ([]*Record, error)
	// Count returns the number of live records in a namespace (all clearances).
	Count(ctx context.Context, namespace string) (int, error)
	// History returns a record's revisions, oldest first, each revision
	// above sc's clearance redacted (RedactRevisions); ENOTFOUND when the
	// record itself is not visible.
	History(ctx context.Context, sc Scope, id string) ([]Revision, error)
	// Existing returns which of ids exist in the namespace, at any access
	// level, forgotten ones included. Record ids are unique within a
	// namespace only: the same id may live in another namespace, and no
	// method's answer depends on that.
	Existing(ctx context.Context, namespace string, ids []string) (map[string]bool, error)
	// Namespaces lists the namespaces that hold records.
	Namespaces(ctx context.Context) ([]string, error)
	// Threads lists the threads of a namespace that hold live records
	// visible to sc, most recently active first.
	Threads(ctx context.Context, sc Scope) ([]ThreadInfo, error)
}

// Searcher is the two retrieval channels: candidates by words and by
// meaning, inside sc's namespace and clearance and the filter, live
// records only. Both return at most n hits, best first; a Hit's score is
// comparable only with the other hits of the same call (the engine divides
// keyword scores by the best one).
//
// Keyword ranking differs between the stores; both cut the query into the
// same word tokens (memindex.QueryTokens), fold and stem them as the
// records' text was, OR them, and drop the most common ones when a query
// would rank too many records (the rarest is always kept), counting only
// the records sc sees:
//
//   - sqlite ranks with Okapi BM25 (k1 1.2, b 0.75; memindex/bm25.go) over
//     an in-memory inverted index, the statistics (record count, lengths,
//     document frequencies) counted over the records of the namespace the
//     caller's clearance sees, so a rare query word weighs more than a
//     common one and a hidden record moves no score. Forgotten, expired
//     and superseded records stay in the statistics, as they stay in the
//     index, though never in the results.
//   - postgres ranks with PostgreSQL's ts_rank_cd(fts, query, 32): cover
//     density — how often and how close together the query's words occur
//     in the record — scaled to rank/(rank+1). It has no inverse document
//     frequency: a rare word counts as much as a common one, and scores do
//     not depend on the other records at all (so nothing hidden moves
//     them either). Rankings of the two stores therefore differ for
//     queries mixing rare and common words, and so may recall answers.
//
// Vector ranking is the same code in both (memindex): cosine similarity to
// v over the records' normalised vectors, held in memory as int8 codes,
// the final candidates rescored from the stored float32 vectors (sqlite
// reads them from its record cache, postgres from the rows); records
// without a vector of v's dimension are skipped. Large namespaces are
// searched through sign sketches first, which may miss a candidate an
// exact scan would rank.
type Searcher interface {
	// Keyword returns up to n live ids ranked for a free-text query (see
	// above). Any user text is accepted: it is never parsed as query syntax.
	Keyword(ctx context.Context, sc Scope, query string, f Filter, n int) ([]Hit, error)
	// Vector returns up to n live ids ranked by cosine similarity to v.
	Vector(ctx context.Context, sc Scope, v []float32, f Filter, n int) ([]Hit, error)
}

// RetrievalStore keeps what retrievals did: the retrieval log (the
// correction signal reads it) and the access counters of the records they
// returned. The engine writes both from its background queue.
type RetrievalStore interface {
	// Touch bumps access counters of ids.
	Touch(ctx context.Context, namespace string, ids []string, at time.Time) error
	// LogRetrieval appends retrieval log entries, all in one transaction.
	LogRetrieval(ctx context.Context, logs ...RetrievalLog) error
	// Retrievals returns the most recent retrieval log entries of a namespace.
	Retrievals(ctx context.Context, namespace string, limit int) ([]RetrievalLog, error)
	// EachRetrieval calls fn with every retrieval log entry of a namespace
	// logged in [since, until), oldest first (a zero until means no end).
	// It reads in pages, so fn may write to the store.
	EachRetrieval(ctx context.Context, namespace string, since, until time.Time, fn func(RetrievalLog) error) error
}

// SettingStore keeps the engine's settings: tuning versions, scoring
// configurations, loop and push state, learned models.
type SettingStore interface {
	// Setting returns a stored setting (false when it is unset); SetSetting
	// stores one. Keys are the engine's (e.g. "tuning/<namespace>").
	Setting(ctx context.Context, key string) (string, bool, error)
	SetSetting(ctx context.Context, key, value string) error
}

// EmbeddingStore keeps which embedder built the vectors, and rewrites them
// (reembed, import).
type EmbeddingStore interface {
	// Embedder returns the embedder recorded for the store (zero if none yet).
	Embedder(ctx context.Context) (EmbedderInfo, error)
	// SetEmbedder records the embedder; with force it replaces a different one.
	SetEmbedder(ctx context.Context, info EmbedderInfo, force bool) error
	// EachRecord calls fn with every record of every namespace (deleted
	// included) in (id, namespace) order, for re-embedding; SetEmbeddings
	// stores new vectors.
	EachRecord(ctx context.Context, fn func(*Record) error) error
	// SetEmbeddings replaces the vectors of records (of any namespaces);
	// ENOTFOUND when one does not exist.
	SetEmbeddings(ctx context.Context, vecs map[RecordKey][]float32) error
}

// Purger deletes forgotten records for good (retention).
type Purger interface {
	// Purge hard-deletes the records of sc's namespace visible to sc that
	// were forgotten (or archived) before a time, with their revisions, and
	// returns how many. Live records and records above sc's clearance are
	// never touched (nor counted).
	Purge(ctx context.Context, sc Scope, deletedBefore time.Time) (int, error)
}

// Embedder turns texts into vectors.
type Embedder interface {
	// Info names the embedder and its dimension.
	Info() EmbedderInfo
	// Embed returns one L2-normalised vector per text.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// LocalEmbedder is an Embedder that may say it computes its vectors in
// this process, in time proportional to the texts (no network, no model
// server). A batched write embeds with an embedder that is local while it
// inserts the records embedded already, in one transaction; with any other
// it embeds first, so that no transaction stays open on a remote call.
type LocalEmbedder interface {
	Embedder
	Local() bool
}

// IsLocal reports whether e says it is local (LocalEmbedder).
func IsLocal(e Embedder) bool {
	l, ok := e.(LocalEmbedder)
	return ok && l.Local()
}

// Tokenizer counts tokens exactly for a real model vocabulary.
type Tokenizer interface {
	Name() string
	Count(text string) int
}
