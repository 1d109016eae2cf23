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
	Remember(ctx context.Context, in []mnemo.NewRecord, opt engine.WriteOptions) ([]engine.Written, error)
	Recall(ctx context.Context, req mnemo.RecallRequest) (*mnemo.RecallResult, error)
	Digest(ctx context.Context, req mnemo.DigestRequest) (*mnemo.Digest, error)
	Get(ctx context.Context, id string) (*mnemo.Record, error)
	Update(ctx context.Context, id string, p mnemo.RecordPatch) (*mnemo.Record, error)
	Forget(ctx context.Context, id string) (*mnemo.Record, error)
	Restore(ctx context.Context, id string) (*mnemo.Record, error)
	History(ctx context.Context, id string) ([]mnemo.Revision, error)
	List(ctx context.Context, opt mnemo.ListOptions) ([]*mnemo.Record, error)
	Export(ctx context.Context, w io.Writer) (int, error)
	Import(ctx context.Context, r io.Reader, progress func(done, total int)) (engine.ImportResult, error)
	Corrections(ctx context.Context, req mnemo.CorrectionRequest) (*mnemo.CorrectionReport, error)
	CorrectionTriples(ctx context.Context, req mnemo.CorrectionRequest, w io.Writer) (int, error)
	Expire(ctx context.Context, opt engine.ExpireOptions) (*engine.ExpireResult, error)
	Purge(ctx context.Context, olderThan time.Duration) (int, error)
	Handoff(ctx context.Context, req engine.HandoffRequest) (*engine.Handoff, error)
	Tune(ctx context.Context, req mnemo.CorrectionRequest, dryRun bool) (*engine.TuneResult, error)
	Tuning(ctx context.Context) (*engine.Tuning, error)
	Rollback(ctx context.Context, version int) (*engine.Tuning, error)
	Summarize(ctx context.Context, thread string, budget int) (*engine.EpisodeResult, error)
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

func (l local) Remember(ctx context.Context, in []mnemo.NewRecord, opt engine.WriteOptions) ([]engine.Written, error) {
	return l.svc.Remember(ctx, l.caller, l.ns, in, opt)
}

func (l local) Recall(ctx context.Context, req mnemo.RecallRequest) (*mnemo.RecallResult, error) {
	req.Namespace = l.ns
	return l.svc.Recall(ctx, l.caller, req)
}

func (l local) Digest(ctx context.Context, req mnemo.DigestRequest) (*mnemo.Digest, error) {
	req.Namespace = l.ns
	l.th.Prefetch(req.Task) // while the index loads
	return l.svc.Digest(ctx, l.caller, req)
}

func (l local) Get(ctx context.Context, id string) (*mnemo.Record, error) {
	return l.svc.Get(ctx, l.caller, l.ns, id)
}

func (l local) Update(ctx context.Context, id string, p mnemo.RecordPatch) (*mnemo.Record, error) {
	return l.svc.Update(ctx, l.caller, l.ns, id, p)
}

func (l local) Forget(ctx context.Context, id string) (*mnemo.Record, error) {
	return l.svc.Forget(ctx, l.caller, l.ns, id)
}

func (l local) Restore(ctx context.Context, id string) (*mnemo.Record, error) {
	return l.svc.Restore(ctx, l.caller, l.ns, id)
}

func (l local) History(ctx context.Context, id string) ([]mnemo.Revision, error) {
	return l.svc.History(ctx, l.caller, l.ns, id)
}

func (l local) List(ctx context.Context, opt mnemo.ListOptions) ([]*mnemo.Record, error) {
	return l.svc.List(ctx, l.caller, l.ns, opt)
}

func (l local) Export(ctx context.Context, w io.Writer) (int, error) {
	return l.svc.Export(ctx, l.caller, l.ns, w)
}

func (l local) Import(ctx context.Context, r io.Reader, progress func(done, total int)) (engine.ImportResult, error) {
	return l.svc.Import(ctx, l.caller, l.ns, r, progress)
}

func (l local) Corrections(ctx context.Context, req mnemo.CorrectionRequest) (*mnemo.CorrectionReport, error) {
	return l.svc.Corrections(ctx, l.caller, l.ns, req)
}

func (l local) CorrectionTriples(ctx context.Context, req mnemo.CorrectionRequest, w io.Writer) (int, error) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return l.svc.CorrectionTriples(ctx, l.caller, l.ns, req, func(t mnemo.CorrectionTriple) error { return enc.Encode(t) })
}

func (l local) Expire(ctx context.Context, opt engine.ExpireOptions) (*engine.ExpireResult, error) {
	return l.svc.Expire(ctx, l.caller, l.ns, opt)
}

func (l local) Purge(ctx context.Context, olderThan time.Duration) (int, error) {
	return l.svc.Purge(ctx, l.caller, l.ns, olderThan)
}

func (l local) Handoff(ctx context.Context, req engine.HandoffRequest) (*engine.Handoff, error) {
	req.Namespace = l.ns
	return l.svc.Handoff(ctx, l.caller, req)
}

func (r remote) Handoff(ctx context.Context, req engine.HandoffRequest) (*engine.Handoff, error) {
	return r.c.Handoff(ctx, req)
}

func (l local) Tune(ctx context.Context, req mnemo.CorrectionRequest, dryRun bool) (*engine.TuneResult, error) {
	return l.svc.Tune(ctx, l.caller, l.ns, req, dryRun)
}

func (l local) Tuning(ctx context.Context) (*engine.Tuning, error) {
	return l.svc.Tuning(ctx, l.caller, l.ns)
}

func (l local) Rollback(ctx context.Context, version int) (*engine.Tuning, error) {
	return l.svc.Rollback(ctx, l.caller, l.ns, version)
}

func (l local) Summarize(ctx context.Context, thread string, budget int) (*engine.EpisodeResult, error) {
	return l.svc.Summarize(ctx, l.caller, l.ns, thread, budget)
}

func (l local) Threads(ctx context.Context) ([]mnemo.ThreadInfo, error) {
	return l.svc.Threads(ctx, l.caller, l.ns)
}

func (r remote) Threads(ctx context.Context) ([]mnemo.ThreadInfo, error) { return r.c.Threads(ctx) }

func (l local) Principles(ctx context.Context) ([]mnemo.Principle, error) {
	return l.svc.Principles(ctx, l.caller, l.ns)
}

func (r remote) Principles(ctx context.Context) ([]mnemo.Principle, error) {
	return r.c.Principles(ctx)
}

func (r remote) Summarize(ctx context.Context, thread string, budget int) (*engine.EpisodeResult, error) {
	return r.c.Summarize(ctx, thread, budget)
}

func (r remote) Tune(ctx context.Context, req mnemo.CorrectionRequest, dryRun bool) (*engine.TuneResult, error) {
	return r.c.Tune(ctx, req, dryRun)
}

func (r remote) Tuning(ctx context.Context) (*engine.Tuning, error) { return r.c.Tuning(ctx) }

func (r remote) Rollback(ctx context.Context, version int) (*engine.Tuning, error) {
	return r.c.Rollback(ctx, version)
}

func (r remote) Purge(ctx context.Context, olderThan time.Duration) (int, error) {
	return r.c.Purge(ctx, olderThan)
}

func (r remote) Expire(ctx context.Context, opt engine.ExpireOptions) (*engine.ExpireResult, error) {
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

func (r remote) Remember(ctx context.Context, in []mnemo.NewRecord, opt engine.WriteOptions) ([]engine.Written, error) {
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

func (r remote) Import(ctx context.Context, rd io.Reader, progress func(done, total int)) (engine.ImportResult, error) {
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
