package engine

import (
	"context"

	"github.com/mnemo-dev/mnemo"
)

var _ mnemo.Service = (*Service)(nil)

// Every exported method acts for the caller and in the namespace its
// context carries (mnemo.WithCaller, mnemo.WithNamespace) and checks, before
// anything else, that the caller's role allows it: the transports resolve
// who calls, the service decides what they may do.

// reader returns the caller of ctx and the scope it reads in: the
// context's namespace (the default one when none) at the caller's
// clearance. Errors: EUNAUTHORIZED when ctx carries no caller, EFORBIDDEN
// when its role may not read records.
func reader(ctx context.Context) (mnemo.Caller, mnemo.Scope, error) {
	return callerIn(ctx, mnemo.Caller.CheckRead)
}

// writer is reader for an operation that changes records.
func writer(ctx context.Context) (mnemo.Caller, mnemo.Scope, error) {
	return callerIn(ctx, mnemo.Caller.CheckWrite)
}

// admin is reader for an administrator's operation; what names it in the
// error.
func admin(ctx context.Context, what string) (mnemo.Caller, mnemo.Scope, error) {
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
	return c, scopeOf(c, ns), nil
}

// system is the caller of the service's own background jobs: an
// administrator with full clearance, named for the audit trail.
func system(name string) mnemo.Caller {
	return mnemo.Caller{Name: name, Role: mnemo.RoleAdmin, Clearance: mnemo.MaxAccessLevel}
}
