package mnemo

import "context"

// Caller identifies who asks: the name the retrieval log and the audit
// trail record, the session, the role (what the caller may do) and the
// clearance (which records it may see).
type Caller struct {
	Name      string // key name, operator or "cli"
	Session   string
	Role      Role
	Clearance int
}

// CanWrite reports whether the caller may change records.
func (c Caller) CanWrite() bool { return c.Role.CanWrite() }

// CheckRead returns EFORBIDDEN when the caller may not read the records of
// a namespace: a caller without a role, or with role metrics.
func (c Caller) CheckRead() error {
	switch c.Role {
	case RoleRead, RoleWrite, RoleAdmin:
		return nil
	case "":
		return Errorf(EFORBIDDEN, "the caller has no role: it may not read records")
	}
	return Errorf(EFORBIDDEN, "this API key has role %s: it may read /metrics only", c.Role)
}

// CheckWrite returns EFORBIDDEN when the caller may not change records.
func (c Caller) CheckWrite() error {
	if err := c.CheckRead(); err != nil {
		return err
	}
	if !c.CanWrite() {
		return Errorf(EFORBIDDEN, "this API key has role %s: it cannot change records", c.Role)
	}
	return nil
}

// CheckAdmin returns EFORBIDDEN when the caller is not an administrator;
// what names the operation in the message ("tuning", "purging", …).
func (c Caller) CheckAdmin(what string) error {
	if err := c.CheckRead(); err != nil {
		return err
	}
	if c.Role != RoleAdmin {
		return Errorf(EFORBIDDEN, "this API key has role %s: %s needs an admin key", c.Role, what)
	}
	return nil
}

// A service call (Service) acts for the caller and in the namespace its
// context carries: a transport resolves them once per request (from an API
// key, a flag, a configuration) and every call made with the context acts
// as them.

type callerKey struct{}

type namespaceKey struct{}

// WithCaller returns a copy of ctx that carries c.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// WithNamespace returns a copy of ctx that carries namespace ns ("" is the
// default namespace).
func WithNamespace(ctx context.Context, ns string) context.Context {
	return context.WithValue(ctx, namespaceKey{}, ns)
}

// WithCallerIn returns a copy of ctx that carries caller c acting in
// namespace ns (WithCaller and WithNamespace).
func WithCallerIn(ctx context.Context, c Caller, ns string) context.Context {
	return WithNamespace(WithCaller(ctx, c), ns)
}

// WithPrincipal returns a copy of ctx that carries p's caller and
// namespace.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return WithCallerIn(ctx, p.Caller, p.Namespace)
}

// CallerFrom returns the caller ctx carries. A context without one is an
// EUNAUTHORIZED error: a call never acts for nobody, nor as an
// administrator by default.
func CallerFrom(ctx context.Context) (Caller, error) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	if !ok {
		return Caller{}, Errorf(EUNAUTHORIZED, "the request carries no caller")
	}
	return c, nil
}

// NamespaceFrom returns the namespace ctx carries, and whether it carries
// one.
func NamespaceFrom(ctx context.Context) (string, bool) {
	ns, ok := ctx.Value(namespaceKey{}).(string)
	return ns, ok
}
