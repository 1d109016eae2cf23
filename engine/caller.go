package engine

import (
	"context"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/access"
)

var _ mnemo.Service = (*Service)(nil)

// Every exported method acts for the caller and in the namespace its
// context carries (mnemo.WithCaller, mnemo.WithNamespace) and checks, before
// anything else, that the caller's role allows it: the transports resolve
// who calls, the service decides what they may do (package access, shared
// with the features built beside the engine).

// reader returns the caller of ctx and the scope it reads in (access.Reader).
func reader(ctx context.Context) (mnemo.Caller, mnemo.Scope, error) { return access.Reader(ctx) }

// writer is reader for an operation that changes records.
func writer(ctx context.Context) (mnemo.Caller, mnemo.Scope, error) { return access.Writer(ctx) }

// admin is reader for an administrator's operation; what names it in the
// error.
func admin(ctx context.Context, what string) (mnemo.Caller, mnemo.Scope, error) {
	return access.Admin(ctx, what)
}

// system is the caller of the service's own background jobs.
func system(name string) mnemo.Caller { return access.System(name) }

func scopeOf(c mnemo.Caller, ns string) mnemo.Scope { return access.ScopeOf(c, ns) }
