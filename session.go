package mnemo

import (
	"context"
	"sync"
)

// ReadSession lets the store calls of one read (a recall, a digest: a
// keyword search, a vector search, statistics, the records themselves)
// share what they learn of the store's state. The change stamp the first
// call reads serves the others, so one read sees one state of the store
// and checks it once, not once per call; what a store derives once per
// read (its compiled filter) is kept here too (Value).
type ReadSession struct {
	mu     sync.Mutex
	stamps map[any]int64
	values map[any]any
}

type readSessionKey struct{}

// WithReadSession returns ctx carrying a new ReadSession (or ctx itself
// when it carries one already).
func WithReadSession(ctx context.Context) context.Context {
	if ReadSessionFrom(ctx) != nil {
		return ctx
	}
	return context.WithValue(ctx, readSessionKey{}, &ReadSession{})
}

// ReadSessionFrom returns the ReadSession of ctx, or nil.
func ReadSessionFrom(ctx context.Context) *ReadSession {
	rs, _ := ctx.Value(readSessionKey{}).(*ReadSession)
	return rs
}

// Stamp returns the change stamp of the store named by key as this session
// first read it, calling read the first time; a nil session always reads.
func (rs *ReadSession) Stamp(key any, read func() (int64, error)) (int64, error) {
	if rs == nil {
		return read()
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if v, ok := rs.stamps[key]; ok {
		return v, nil
	}
	v, err := read()
	if err != nil {
		return 0, err
	}
	if rs.stamps == nil {
		rs.stamps = map[any]int64{}
	}
	rs.stamps[key] = v
	return v, nil
}

// Value returns the value this session keeps under key, made by make the
// first time; a nil session always makes a new one. make runs under the
// session's lock and must not call the session.
func (rs *ReadSession) Value(key any, make func() any) any {
	if rs == nil {
		return make()
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if v, ok := rs.values[key]; ok {
		return v
	}
	v := make()
	if rs.values == nil {
		rs.values = map[any]any{}
	}
	rs.values[key] = v
	return v
}
