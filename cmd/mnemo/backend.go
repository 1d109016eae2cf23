package main

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/client"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/thesaurus"
)

// backend is what the record commands need: the local engine over the
// database file, or a mnemo server through the Go client (--server). Both
// act in the namespace and with the caller the app resolved.
type backend interface {
	Remember(ctx context.Context, in []mnemo.NewRecord, opt mnemo.WriteOptions) ([]mnemo.Written, error)
	Recall(ctx context.Context, req mnemo.RecallRequest) (*mnemo.RecallResult, error)
	Digest(ctx context.Context, req mnemo.DigestRequest) (*mnemo.Digest, error)
	Get(ctx context.Context, id string) (*mnemo.Record, error)
	Update(ctx context.Context, id string, p mnemo.RecordPatch) (*mnemo.Record, error)
	Forget(ctx context.Context, id string) (*mnemo.Record, error)
	Restore(ctx context.Context, id string) (*mnemo.Record, error)
	History(ctx context.Context, id string) ([]mnemo.Revision, error)
	List(ctx context.Context, opt mnemo.ListOptions) ([]*mnemo.Record, error)
	Export(ctx context.Context, w io.Writer) (int, error)
	Import(ctx context.Context, r io.Reader, progress func(done, total int)) (mnemo.ImportResult, error)
	Corrections(ctx context.Context, req mnemo.CorrectionRequest) (*mnemo.CorrectionReport, error)
	CorrectionTriples(ctx context.Context, req mnemo.CorrectionRequest, w io.Writer) (int, error)
	Expire(ctx context.Context, opt mnemo.ExpireOptions) (*mnemo.ExpireResult, error)
	Purge(ctx context.Context, olderThan time.Duration) (int, error)
	Handoff(ctx context.Context, req mnemo.HandoffRequest) (*mnemo.Handoff, error)
	Tune(ctx context.Context, req mnemo.CorrectionRequest, dryRun bool) (*mnemo.TuneResult, error)
	Tuning(ctx context.Context) (*mnemo.Tuning, error)
	Rollback(ctx context.Context, version int) (*mnemo.Tuning, error)
	Summarize(ctx context.Context, thread string, budget int) (*mnemo.EpisodeResult, error)
	Threads(ctx context.Context) ([]mnemo.ThreadInfo, error)
	Principles(ctx context.Context) ([]mnemo.Principle, error)
}

// local adapts the engine to backend for one caller and namespace.
type local struct {
	svc    *engine.Service
	caller mnemo.Caller
	ns     string
	th     *thesaurus.Thesaurus
}

func (l local) Remember(ctx context.Context, in []mnemo.NewRecord, opt mnemo.WriteOptions) ([]mnemo.Written, error) {
	return l.svc.Remember(l.in(ctx), in, opt)
}

func (l local) Recall(ctx context.Context, req mnemo.RecallRequest) (*mnemo.RecallResult, error) {
	return l.svc.Recall(l.in(ctx), req)
}

func (l local) Digest(ctx context.Context, req mnemo.DigestRequest) (*mnemo.Digest, error) {
	l.th.Prefetch(req.Task) // while the index loads
	return l.svc.Digest(l.in(ctx), req)
}

func (l local) Get(ctx context.Context, id string) (*mnemo.Record, error) {
	return l.svc.Get(l.in(ctx), id)
}

func (l local) Update(ctx context.Context, id string, p mnemo.RecordPatch) (*mnemo.Record, error) {
	return l.svc.Update(l.in(ctx), id, p)
}

func (l local) Forget(ctx context.Context, id string) (*mnemo.Record, error) {
	return l.svc.Forget(l.in(ctx), id)
}

func (l local) Restore(ctx context.Context, id string) (*mnemo.Record, error) {
	return l.svc.Restore(l.in(ctx), id)
}

func (l local) History(ctx context.Context, id string) ([]mnemo.Revision, error) {
	return l.svc.History(l.in(ctx), id)
}

func (l local) List(ctx context.Context, opt mnemo.ListOptions) ([]*mnemo.Record, error) {
	return l.svc.List(l.in(ctx), opt)
}

func (l local) Export(ctx context.Context, w io.Writer) (int, error) {
	return l.svc.Export(l.in(ctx), w)
}

func (l local) Import(ctx context.Context, r io.Reader, progress func(done, total int)) (mnemo.ImportResult, error) {
	return l.svc.Import(l.in(ctx), r, progress)
}

func (l local) Corrections(ctx context.Context, req mnemo.CorrectionRequest) (*mnemo.CorrectionReport, error) {
	return l.svc.Corrections(l.in(ctx), req)
}

func (l local) CorrectionTriples(ctx context.Context, req mnemo.CorrectionRequest, w io.Writer) (int, error) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return l.svc.CorrectionTriples(l.in(ctx), req, func(t mnemo.CorrectionTriple) error { return enc.Encode(t) })
}

func (l local) Expire(ctx context.Context, opt mnemo.ExpireOptions) (*mnemo.ExpireResult, error) {
	return l.svc.Expire(l.in(ctx), opt)
}

func (l local) Purge(ctx context.Context, olderThan time.Duration) (int, error) {
	return l.svc.Purge(l.in(ctx), olderThan)
}

func (l local) Handoff(ctx context.Context, req mnemo.HandoffRequest) (*mnemo.Handoff, error) {
	return l.svc.Handoff(l.in(ctx), req)
}

func (r remote) Handoff(ctx context.Context, req mnemo.HandoffRequest) (*mnemo.Handoff, error) {
	return r.c.Handoff(ctx, req)
}

func (l local) Tune(ctx context.Context, req mnemo.CorrectionRequest, dryRun bool) (*mnemo.TuneResult, error) {
	return l.svc.Tune(l.in(ctx), req, dryRun)
}

func (l local) Tuning(ctx context.Context) (*mnemo.Tuning, error) {
	return l.svc.Tuning(l.in(ctx))
}

func (l local) Rollback(ctx context.Context, version int) (*mnemo.Tuning, error) {
	return l.svc.Rollback(l.in(ctx), version)
}

func (l local) Summarize(ctx context.Context, thread string, budget int) (*mnemo.EpisodeResult, error) {
	return l.svc.Summarize(l.in(ctx), thread, budget)
}

func (l local) Threads(ctx context.Context) ([]mnemo.ThreadInfo, error) {
	return l.svc.Threads(l.in(ctx))
}

func (r remote) Threads(ctx context.Context) ([]mnemo.ThreadInfo, error) { return r.c.Threads(ctx) }

func (l local) Principles(ctx context.Context) ([]mnemo.Principle, error) {
	return l.svc.Principles(l.in(ctx))
}

func (r remote) Principles(ctx context.Context) ([]mnemo.Principle, error) {
	return r.c.Principles(ctx)
}

func (r remote) Summarize(ctx context.Context, thread string, budget int) (*mnemo.EpisodeResult, error) {
	return r.c.Summarize(ctx, thread, budget)
}

func (r remote) Tune(ctx context.Context, req mnemo.CorrectionRequest, dryRun bool) (*mnemo.TuneResult, error) {
	return r.c.Tune(ctx, req, dryRun)
}

func (r remote) Tuning(ctx context.Context) (*mnemo.Tuning, error) { return r.c.Tuning(ctx) }

func (r remote) Rollback(ctx context.Context, version int) (*mnemo.Tuning, error) {
	return r.c.Rollback(ctx, version)
}

func (r remote) Purge(ctx context.Context, olderThan time.Duration) (int, error) {
	return r.c.Purge(ctx, olderThan)
}

func (r remote) Expire(ctx context.Context, opt mnemo.ExpireOptions) (*mnemo.ExpireResult, error) {
	return r.c.Expire(ctx, opt)
}

func (r remote) Corrections(ctx context.Context, req mnemo.CorrectionRequest) (*mnemo.CorrectionReport, error) {
	return r.c.Corrections(ctx, req)
}

func (r remote) CorrectionTriples(ctx context.Context, req mnemo.CorrectionRequest, w io.Writer) (int, error) {
	return r.c.CorrectionTriples(ctx, req, w)
}

// remote adapts the Go client to backend.
type remote struct{ c *client.Client }

func (r remote) Remember(ctx context.Context, in []mnemo.NewRecord, opt mnemo.WriteOptions) ([]mnemo.Written, error) {
	return r.c.Remember(ctx, in, opt)
}

func (r remote) Recall(ctx context.Context, req mnemo.RecallRequest) (*mnemo.RecallResult, error) {
	return r.c.Recall(ctx, req)
}

func (r remote) Digest(ctx context.Context, req mnemo.DigestRequest) (*mnemo.Digest, error) {
	return r.c.Digest(ctx, req)
}

func (r remote) Get(ctx context.Context, id string) (*mnemo.Record, error) { return r.c.Get(ctx, id) }

func (r remote) Update(ctx context.Context, id string, p mnemo.RecordPatch) (*mnemo.Record, error) {
	return r.c.Update(ctx, id, p)
}

func (r remote) Forget(ctx context.Context, id string) (*mnemo.Record, error) {
	return r.c.Forget(ctx, id)
}

func (r remote) Restore(ctx context.Context, id string) (*mnemo.Record, error) {
	return r.c.Restore(ctx, id)
}

func (r remote) History(ctx context.Context, id string) ([]mnemo.Revision, error) {
	return r.c.History(ctx, id)
}

func (r remote) List(ctx context.Context, opt mnemo.ListOptions) ([]*mnemo.Record, error) {
	return r.c.List(ctx, opt)
}

func (r remote) Export(ctx context.Context, w io.Writer) (int, error) { return r.c.Export(ctx, w) }

func (r remote) Import(ctx context.Context, rd io.Reader, progress func(done, total int)) (mnemo.ImportResult, error) {
	res, err := r.c.Import(ctx, rd)
	if err == nil && progress != nil && res.Read > 0 {
		progress(res.Read, res.Read)
	}
	return res, err
}

// serverURL is --server, else $MNEMO_SERVER; "" means local mode.
func (a *app) serverURL() string {
	if a.server != "" {
		return a.server
	}
	return a.env("MNEMO_SERVER")
}

// apiKey is --api-key, else $MNEMO_API_KEY.
func (a *app) apiKey() string {
	if a.key != "" {
		return a.key
	}
	return a.env("MNEMO_API_KEY")
}

// backend returns the remote backend with --server, else the local engine.
func (a *app) backend(ctx context.Context) (backend, error) {
	if u := a.serverURL(); u != "" {
		ns := a.namespace
		if ns == "" {
			ns = a.env("MNEMO_NAMESPACE")
		}
		c, err := client.New(u, client.Options{APIKey: a.apiKey(), Namespace: ns})
		if err != nil {
			return nil, err
		}
		return remote{c}, nil
	}
	svc, err := a.service(ctx)
	if err != nil {
		return nil, err
	}
	return local{svc: svc, caller: a.caller(), ns: a.ns(), th: a.th}, nil
}

// in returns ctx acting for the local caller in the local namespace.
func (l local) in(ctx context.Context) context.Context {
	return mnemo.WithCallerIn(ctx, l.caller, l.ns)
}
