package engine

import (
	"context"

	"github.com/mnemo-dev/mnemo"
)

// maxRetrievalWindow bounds how far back RecentRetrievals reads the log.
const maxRetrievalWindow = 2000

// RecentRetrievals returns a page of the namespace's retrieval log, newest
// first: limit entries after skipping offset, within the 2000 most recent.
// An administrator sees every caller's retrievals, any other caller only
// its own (the log holds other callers' queries). Each entry keeps only the
// ids (and scores) of records the caller may see. more reports whether a
// next page exists.
func (s *Service) RecentRetrievals(ctx context.Context, offset, limit int) (out []mnemo.RetrievalLog, more bool, err error) {
	c, sc, err := reader(ctx)
	if err != nil {
		return nil, false, err
	}
	if offset < 0 || limit <= 0 || limit > 500 {
		return nil, false, mnemo.Errorf(mnemo.EINVALID, "page offset %d, limit %d: want offset >= 0 and limit 1..500", offset, limit)
	}
	logs, err := s.callerRetrievals(ctx, c, sc)
	if err != nil || offset >= len(logs) {
		return nil, false, err
	}
	end := min(offset+limit, len(logs))
	out, err = s.visibleHits(ctx, sc, logs[offset:end])
	return out, end < len(logs), err
}

// Retrieval returns one entry of the namespace's retrieval log among the
// 2000 most recent, as RecentRetrievals would show it to the caller.
// Errors: ENOTFOUND when it is not there or not one the caller may see.
func (s *Service) Retrieval(ctx context.Context, id string) (*mnemo.RetrievalLog, error) {
	c, sc, err := reader(ctx)
	if err != nil {
		return nil, err
	}
	logs, err := s.callerRetrievals(ctx, c, sc)
	if err != nil {
		return nil, err
	}
	for _, l := range logs {
		if l.ID == id {
			out, err := s.visibleHits(ctx, sc, []mnemo.RetrievalLog{l})
			if err != nil {
				return nil, err
			}
			return &out[0], nil
		}
	}
	return nil, mnemo.Errorf(mnemo.ENOTFOUND, "no such retrieval")
}

// callerRetrievals reads the most recent entries of the log: all of them
// for an administrator, the caller's own for anyone else.
func (s *Service) callerRetrievals(ctx context.Context, c mnemo.Caller, sc mnemo.Scope) ([]mnemo.RetrievalLog, error) {
	logs, err := s.store.Retrievals(ctx, sc.Namespace, maxRetrievalWindow)
	if err != nil || c.Role == mnemo.RoleAdmin {
		return logs, err
	}
	mine := logs[:0]
	for _, l := range logs {
		if l.Caller == c.Name {
			mine = append(mine, l)
		}
	}
	return mine, nil
}

// visibleHits keeps, in copies of logs, the ids (and scores) of the
// records sc may see.
func (s *Service) visibleHits(ctx context.Context, sc mnemo.Scope, logs []mnemo.RetrievalLog) ([]mnemo.RetrievalLog, error) {
	var ids []string
	for _, l := range logs {
		ids = append(ids, l.IDs...)
	}
	visible := map[string]bool{}
	if len(ids) > 0 {
		recs, err := s.store.GetMany(ctx, sc, ids)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			visible[r.ID] = true
		}
	}
	out := make([]mnemo.RetrievalLog, len(logs))
	for i, l := range logs {
		out[i] = l
		out[i].IDs, out[i].Scores = nil, nil
		for j, id := range l.IDs {
			if visible[id] {
				out[i].IDs = append(out[i].IDs, id)
				if j < len(l.Scores) {
					out[i].Scores = append(out[i].Scores, l.Scores[j])
				}
			}
		}
	}
	return out, nil
}
