package engine

import (
	"context"

	"github.com/mnemo-dev/mnemo"
)

// maxRetrievalWindow bounds how far back RecentRetrievals reads the log.
const maxRetrievalWindow = 2000

// RecentRetrievals returns a page of the namespace's retrieval log, newest
// first: limit entries after skipping offset, within the 2000 most recent.
// With all false only the caller's own retrievals are returned (the log
// holds other callers' queries). Each entry keeps only the ids (and scores)
// of records the caller may see. more reports whether a next page exists.
func (s *Service) RecentRetrievals(ctx context.Context, c mnemo.Caller, ns string, all bool, offset, limit int) (out []mnemo.RetrievalLog, more bool, err error) {
	if offset < 0 || limit <= 0 || limit > 500 {
		return nil, false, mnemo.Errorf(mnemo.EINVALID, "page offset %d, limit %d: want offset >= 0 and limit 1..500", offset, limit)
	}
	if offset+limit > maxRetrievalWindow {
		return nil, false, nil
	}
	sc := scopeOf(c, ns)
	logs, err := s.store.Retrievals(ctx, sc.Namespace, maxRetrievalWindow)
	if err != nil {
		return nil, false, err
	}
	var mine []mnemo.RetrievalLog
	for _, l := range logs {
		if all || l.Caller == c.Name {
			mine = append(mine, l)
		}
	}
	if offset >= len(mine) {
		return nil, false, nil
	}
	end := min(offset+limit, len(mine))
	page := mine[offset:end]
	more = end < len(mine)
	var ids []string
	for _, l := range page {
		ids = append(ids, l.IDs...)
	}
	visible := map[string]bool{}
	if len(ids) > 0 {
		recs, err := s.store.GetMany(ctx, sc, ids)
		if err != nil {
			return nil, false, err
		}
		for _, r := range recs {
			visible[r.ID] = true
		}
	}
	for _, l := range page {
		v := l
		v.IDs, v.Scores = nil, nil
		for i, id := range l.IDs {
			if visible[id] {
				v.IDs = append(v.IDs, id)
				if i < len(l.Scores) {
					v.Scores = append(v.Scores, l.Scores[i])
				}
			}
		}
		out = append(out, v)
	}
	return out, more, nil
}

// Retrieval returns one entry of the namespace's retrieval log among the
// 2000 most recent, as RecentRetrievals would show it to the caller.
// Errors: ENOTFOUND when it is not there or not the caller's (all false).
func (s *Service) Retrieval(ctx context.Context, c mnemo.Caller, ns, id string, all bool) (*mnemo.RetrievalLog, error) {
	for off := 0; off < maxRetrievalWindow; off += 500 {
		page, more, err := s.RecentRetrievals(ctx, c, ns, all, off, 500)
		if err != nil {
			return nil, err
		}
		for i := range page {
			if page[i].ID == id {
				return &page[i], nil
			}
		}
		if !more {
			break
		}
	}
	return nil, mnemo.Errorf(mnemo.ENOTFOUND, "no such retrieval")
}
