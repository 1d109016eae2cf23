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
	Score float64 // BM25 (higher is better, already negated) or cosine similarity
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
// postgres. All methods are safe for concurrent use.
//
// Errors: ENOTFOUND when a record does not exist in the namespace or is above
// the caller's clearance; EINVALID for bad arguments; EMISMATCH when the
// embedder does not match the store.
type Store interface {
	// Insert writes new records (ids, embeddings and tokens already set) in
	// one transaction and records a "create" revision for each (or the given
	// action). It is idempotent on id: an existing id is left unchanged and
	// reported in the returned skipped count.
	Insert(ctx context.Context, recs []*Record, action, actor string) (skipped int, err error)
	// Write commits a WriteBatch in one transaction: all of it or, on any
	// error, nothing. It returns how many of b.Insert it skipped.
	Write(ctx context.Context, b WriteBatch) (skipped int, err error)
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
	// Keyword returns up to n live ids ranked by BM25 for a free-text query.
	// Any user text is accepted: it is never parsed as query syntax.
	Keyword(ctx context.Context, sc Scope, query string, f Filter, n int) ([]Hit, error)
	// Vector returns up to n live ids ranked by cosine similarity to v.
	Vector(ctx context.Context, sc Scope, v []float32, f Filter, n int) ([]Hit, error)
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
	// Namespaces lists the namespaces that hold records.
	Namespaces(ctx context.Context) ([]string, error)
	// Purge hard-deletes the records of sc's namespace visible to sc that
	// were forgotten (or archived) before a time, with their revisions, and
	// returns how many. Live records and records above sc's clearance are
	// never touched (nor counted).
	Purge(ctx context.Context, sc Scope, deletedBefore time.Time) (int, error)
	// Threads lists the threads of a namespace that hold live records
	// visible to sc, most recently active first.
	Threads(ctx context.Context, sc Scope) ([]ThreadInfo, error)
	// Setting returns a stored setting (false when it is unset); SetSetting
	// stores one. Keys are the engine's (e.g. "tuning/<namespace>").
	Setting(ctx context.Context, key string) (string, bool, error)
	SetSetting(ctx context.Context, key, value string) error
	// Existing returns which of ids exist in the namespace, at any access
	// level, forgotten ones included. Record ids are unique within a
	// namespace only: the same id may live in another namespace, and no
	// method's answer depends on that.
	Existing(ctx context.Context, namespace string, ids []string) (map[string]bool, error)
	// Close releases the store.
	Close() error
}

// Embedder turns texts into vectors.
type Embedder interface {
	// Info names the embedder and its dimension.
	Info() EmbedderInfo
	// Embed returns one L2-normalised vector per text.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Tokenizer counts tokens exactly for a real model vocabulary.
type Tokenizer interface {
	Name() string
	Count(text string) int
}
