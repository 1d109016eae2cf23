package mnemo

import (
	"context"
	"io"
	"time"
)

// Service is mnemo's memory as every surface uses it: the CLI, the REST
// server, the MCP tools and the web console. Two implementations:
// engine.Service over a Store, and client.Client over a mnemo server.
//
// Every method acts for the caller and in the namespace its context
// carries (WithCaller, WithNamespace): a context without a caller is an
// EUNAUTHORIZED error, and the caller's role decides what it may do — read
// (every role but metrics), write (remember, update, forget, restore,
// import, summarize: roles write and admin) or administer (correction
// triples, expire, purge, consolidate, tune, rollback: role admin). A
// denied call is an EFORBIDDEN error and changes nothing. The caller's
// clearance decides which records it sees.
//
// A Service is the composition of role interfaces, each what one kind of
// caller uses: Recorder (the records themselves), Retriever (recall and
// digest), Porter (export and import), Curator (retention and
// consolidation), Tuner (the correction signal and the weights it tunes)
// and Briefer (handoff briefs and thread episodes).
type Service interface {
	Recorder
	Retriever
	Porter
	Curator
	Tuner
	Briefer
}

// Recorder writes, reads and lists records.
type Recorder interface {
	// Remember validates and stores new records, in one transaction: on
	// any error nothing is written.
	Remember(ctx context.Context, in []NewRecord, opt WriteOptions) ([]Written, error)
	// Get returns one record (forgotten ones included).
	Get(ctx context.Context, id string) (*Record, error)
	// Update applies a patch to a record.
	Update(ctx context.Context, id string, p RecordPatch) (*Record, error)
	// Forget soft-deletes a record: it leaves every retrieval, restorable.
	Forget(ctx context.Context, id string) (*Record, error)
	// Restore undoes Forget.
	Restore(ctx context.Context, id string) (*Record, error)
	// History returns a record's revisions, oldest first, each above the
	// caller's clearance redacted.
	History(ctx context.Context, id string) ([]Revision, error)
	// List returns records matching the options, newest first.
	List(ctx context.Context, opt ListOptions) ([]*Record, error)
	// Threads lists the namespace's threads.
	Threads(ctx context.Context) ([]ThreadInfo, error)
	// Principles lists the principle registry: each principle with the
	// decisions that apply it.
	Principles(ctx context.Context) ([]Principle, error)
}

// Retriever ranks records for a query.
type Retriever interface {
	// Recall returns the k best records for a query, each with its factor
	// breakdown.
	Recall(ctx context.Context, req RecallRequest) (*RecallResult, error)
	// Digest answers workflow_memory_query: the context to start a task
	// with, within a token budget.
	Digest(ctx context.Context, req DigestRequest) (*Digest, error)
}

// Porter copies a namespace out and in as JSONL, one record a line.
type Porter interface {
	// Export writes the namespace's records to w and returns their number.
	Export(ctx context.Context, w io.Writer) (int, error)
	// Import reads records as Export writes them; records keep their ids,
	// so importing twice changes nothing. progress, when set, is called
	// with the number of records written so far (a remote service calls
	// it once, at the end).
	Import(ctx context.Context, r io.Reader, progress func(done, total int)) (ImportResult, error)
}

// Curator keeps a namespace lean: expiry, purging and consolidation.
type Curator interface {
	// Expire archives the unimportant records nobody has read or changed
	// for a while (restorable).
	Expire(ctx context.Context, opt ExpireOptions) (*ExpireResult, error)
	// Purge deletes for good the records forgotten or archived more than
	// olderThan ago, and returns their number.
	Purge(ctx context.Context, olderThan time.Duration) (int, error)
	// Consolidate merges the near-duplicates that came in without the
	// write path's deduplication (restorable); dryRun changes nothing.
	Consolidate(ctx context.Context, dryRun bool) (ConsolidateResult, error)
}

// Tuner reports the correction signal and tunes the namespace's weights on
// it.
type Tuner interface {
	// Corrections reports the correction signal of a period.
	Corrections(ctx context.Context, req CorrectionRequest) (*CorrectionReport, error)
	// CorrectionTriples calls fn, oldest first, with the (query,
	// retrieved, missed) triple of each missing-context correction linked
	// to a logged retrieval, and returns their number.
	CorrectionTriples(ctx context.Context, req CorrectionRequest, fn func(CorrectionTriple) error) (int, error)
	// Tune searches the default preset's weights against the correction
	// triples of the request's period and, unless dryRun, makes an
	// accepted setting the active version.
	Tune(ctx context.Context, req CorrectionRequest, dryRun bool) (*TuneResult, error)
	// Tuning returns the namespace's tuning history.
	Tuning(ctx context.Context) (*Tuning, error)
	// Rollback makes an earlier version active (0: the preset's own
	// weights) and returns the history.
	Rollback(ctx context.Context, version int) (*Tuning, error)
}

// Briefer writes the texts people start from: an incoming operator's
// brief and the episode of a thread.
type Briefer interface {
	// Handoff builds the brief for an incoming operator.
	Handoff(ctx context.Context, req HandoffRequest) (*Handoff, error)
	// Summarize writes (or rewrites) the episode of a thread within budget
	// tokens (0: DefaultEpisodeBudget).
	Summarize(ctx context.Context, thread string, budget int) (*EpisodeResult, error)
}
