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

// reader returns the caller of ctx and the scope it reads in; EFORBIDDEN
// when it may not read records, EUNAUTHORIZED when ctx carries no caller.
func reader(ctx context.Context) (mnemo.Caller, mnemo.Scope, error) {
	c, err := mnemo.CallerFrom(ctx)
	if err == nil {
		err = c.CheckRead()
	}
	if err != nil {
		return mnemo.Caller{}, mnemo.Scope{}, err
	}
	return c, scopeIn(ctx, c), nil
}

// writer is reader for an operation that changes records.
func writer(ctx context.Context) (mnemo.Caller, mnemo.Scope, error) {
	c, err := mnemo.CallerFrom(ctx)
	if err == nil {
		err = c.CheckWrite()
	}
	if err != nil {
		return mnemo.Caller{}, mnemo.Scope{}, err
	}
	return c, scopeIn(ctx, c), nil
}

// admin is reader for an administrator's operation; what names it in the
// error.
func admin(ctx context.Context, what string) (mnemo.Caller, mnemo.Scope, error) {
	c, err := mnemo.CallerFrom(ctx)
	if err == nil {
		err = c.CheckAdmin(what)
	}
	if err != nil {
		return mnemo.Caller{}, mnemo.Scope{}, err
	}
	return c, scopeIn(ctx, c), nil
}

// scopeIn is the scope of c in the namespace ctx carries (the default
// namespace when none).
func scopeIn(ctx context.Context, c mnemo.Caller) mnemo.Scope {
	ns, _ := mnemo.NamespaceFrom(ctx)
	return scopeOf(c, ns)
}

// system is the caller of the service's own background jobs: an
// administrator with full clearance, named for the audit trail.
func system(name string) mnemo.Caller {
	return mnemo.Caller{Name: name, Role: mnemo.RoleAdmin, Clearance: mnemo.MaxAccessLevel}
}
