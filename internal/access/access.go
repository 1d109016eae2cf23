// Package access decides, for the engine and the features built beside it
// (handoff, corrections, tuning, episodes), who a call acts for and what it
// may read: the caller and namespace of a call's context, checked against
// the operation's role, and the reading of every record a scope sees.
package access

import (
	"context"

	"github.com/mnemo-dev/mnemo"
)

// Reader returns the caller of ctx and the scope it reads in: the
// context's namespace (the default one when none) at the caller's
// clearance. Errors: EUNAUTHORIZED when ctx carries no caller, EFORBIDDEN
// when its role may not read records.
func Reader(ctx context.Context) (mnemo.Caller, mnemo.Scope, error) {
	return callerIn(ctx, mnemo.Caller.CheckRead)
}

// Writer is Reader for an operation that changes records.
func Writer(ctx context.Context) (mnemo.Caller, mnemo.Scope, error) {
	return callerIn(ctx, mnemo.Caller.CheckWrite)
}

// Admin is Reader for an administrator's operation; what names it in the
// error.
func Admin(ctx context.Context, what string) (mnemo.Caller, mnemo.Scope, error) {
	return callerIn(ctx, func(c mnemo.Caller) error { return c.CheckAdmin(what) })
}

func callerIn(ctx context.Context, allowed func(mnemo.Caller) error) (mnemo.Caller, mnemo.Scope, error) {
	c, err := mnemo.CallerFrom(ctx)
	if err == nil {
		err = allowed(c)
	}
	if err != nil {
		return mnemo.Caller{}, mnemo.Scope{}, err
	}
	ns, _ := mnemo.NamespaceFrom(ctx)
	return c, ScopeOf(c, ns), nil
}

// ScopeOf is the scope caller c reads namespace ns in ("" is the default
// namespace).
func ScopeOf(c mnemo.Caller, ns string) mnemo.Scope {
	if ns == "" {
		ns = mnemo.DefaultNamespace
	}
	return mnemo.Scope{Namespace: ns, Clearance: c.Clearance}
}

// System is the caller of the service's own background jobs: an
// administrator with full clearance, named for the audit trail.
func System(name string) mnemo.Caller {
	return mnemo.Caller{Name: name, Role: mnemo.RoleAdmin, Clearance: mnemo.MaxAccessLevel}
}

// ListAll lists every record matching opt visible to sc, paging 1,000 at a
// time by id (opt.Limit and opt.After are the pager's).
func ListAll(ctx context.Context, st mnemo.Store, sc mnemo.Scope, opt mnemo.ListOptions) ([]*mnemo.Record, error) {
	var out []*mnemo.Record
	opt.Limit, opt.After = 1000, ""
	for {
		page, err := st.List(ctx, sc, opt)
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if len(page) < opt.Limit {
			return out, nil
		}
		opt.After = page[len(page)-1].ID
	}
}
