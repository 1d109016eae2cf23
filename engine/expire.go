package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// expirable reports whether r is due for archiving at now: not a pinned
// core record, importance below the bound, and idle for long enough —
// since the later of its last read and its last change.
func expirable(r *mnemo.Record, opt mnemo.ExpireOptions, now time.Time) bool {
	if r.DeletedAt != nil || r.Kind == mnemo.KindCore || !(r.Importance < opt.MaxImportance) {
		return false
	}
	last := r.UpdatedAt
	if a := r.LastAccessedAt; a != nil && a.After(last) {
		last = *a
	}
	return now.Sub(last) >= opt.Idle
}

// Expire archives the records of a namespace that are unimportant and
// unused: importance below opt.MaxImportance and neither read nor changed
// for opt.Idle. Core records never expire. Archiving is a forget with the
// audit action "expire": the record leaves every retrieval, stays in the
// history and can be restored. The caller archives only what its clearance
// sees.
func (s *Service) Expire(ctx context.Context, opt mnemo.ExpireOptions) (*mnemo.ExpireResult, error) {
	c, sc, err := admin(ctx, "expiry")
	if err != nil {
		return nil, err
	}
	if opt.MaxImportance == 0 {
		opt.MaxImportance = mnemo.DefaultExpireImportance
	}
	if opt.Idle == 0 {
		opt.Idle = mnemo.DefaultExpireIdle
	}
	if !(opt.MaxImportance > 0 && opt.MaxImportance <= 1) {
		return nil, mnemo.Errorf(mnemo.EINVALID, "importance bound %v is outside (0, 1]", opt.MaxImportance)
	}
	if opt.Idle < 24*time.Hour {
		return nil, mnemo.Errorf(mnemo.EINVALID, "idle period %s is shorter than a day", opt.Idle)
	}
	now := s.now().UTC()
	res := &mnemo.ExpireResult{Archived: []string{}, DryRun: opt.DryRun}
	live, err := s.listAll(ctx, sc, mnemo.ListOptions{IncludeHistory: true})
	if err != nil {
		return nil, err
	}
	var due []*mnemo.Record
	for _, r := range live {
		res.Checked++
		if expirable(r, opt, now) {
			due = append(due, r)
		}
	}
	for i := len(due) - 1; i >= 0; i-- { // oldest id first
		r := due[i]
		if opt.DryRun {
			res.Archived = append(res.Archived, r.ID)
			continue
		}
		// Checked again under the thread lock: a read or an edit since the
		// scan keeps the record.
		got, err := s.softDelete(ctx, sc, r.ID, "expire", c.Name, func(cur *mnemo.Record) bool {
			return !expirable(cur, opt, now)
		})
		if err != nil {
			return res, err
		}
		if got != nil {
			res.Archived = append(res.Archived, r.ID)
		}
	}
	return res, nil
}

// ExpireAll runs Expire on every namespace of the store with full
// clearance, as the server's background expiry does, and returns the
// number of records archived per namespace (namespaces with none left out).
// A namespace that fails does not stop the others: the errors, each naming
// its namespace, are joined.
func (s *Service) ExpireAll(ctx context.Context, actor string, opt mnemo.ExpireOptions) (map[string]int, error) {
	return s.eachNamespace(ctx, actor, "expiry", func(ctx context.Context) (int, error) {
		res, err := s.Expire(ctx, opt)
		if res == nil {
			return 0, err
		}
		return len(res.Archived), err
	})
}

// Purge hard-deletes the records of a namespace that were forgotten or
// archived more than olderThan ago, with their history: they can no longer
// be restored. olderThan must be at least a day. It returns how many.
func (s *Service) Purge(ctx context.Context, olderThan time.Duration) (int, error) {
	_, sc, err := admin(ctx, "purging")
	if err != nil {
		return 0, err
	}
	if olderThan < 24*time.Hour {
		return 0, mnemo.Errorf(mnemo.EINVALID, "retention %s is shorter than a day", olderThan)
	}
	return s.store.Purge(ctx, sc, s.now().Add(-olderThan))
}

// PurgeAll runs Purge on every namespace and returns the number of records
// purged per namespace (namespaces with none left out). A namespace that
// fails does not stop the others; the errors are joined.
func (s *Service) PurgeAll(ctx context.Context, olderThan time.Duration) (map[string]int, error) {
	nss, err := s.store.Namespaces(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	var errs []error
	c := system("retention")
	for _, ns := range nss {
		if ctx.Err() != nil {
			return out, errors.Join(append(errs, ctx.Err())...)
		}
		n, err := s.Purge(mnemo.WithCallerIn(ctx, c, ns), olderThan)
		if n > 0 {
			out[ns] = n
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("purge of %s: %w", ns, err))
		}
	}
	return out, errors.Join(errs...)
}
