package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/extract"
)

// Extraction as a periodic job (`mnemo serve --extract-every`): every
// thread of every namespace that has messages extraction has not read yet
// is extracted, whatever their number, at the job's pace. It runs beside
// the job queued by writes (Config.ExtractEvery) and shares its state, so
// no message is read twice.
//
// Visibility: extraction reads a thread whole (every access level) and
// writes each memory at the access level of the message it came from, in
// the message's namespace: an extracted memory is never more visible than
// its source. The chat model, when configured, is asked about the
// messages of one access level at a time, so that no memory it writes
// can carry words of a message more restricted than the one it is
// attributed to.

// extractCaller is who extraction reads and writes as: it sees every
// message of the thread's namespace, so that one writer's clearance never
// hides messages from it (the thread's state moves past what it read).
var extractCaller = system("extraction")

// ExtractAll extracts, in every namespace, the memories of each thread's
// messages that no extraction has read yet, and returns the memories
// stored per namespace. A thread or namespace that fails does not stop the
// others: the errors, each naming its namespace and thread, are joined.
func (s *Service) ExtractAll(ctx context.Context) (map[string]int, error) {
	nss, err := s.store.Namespaces(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	var errs []error
	for _, ns := range nss {
		threads, err := s.store.Threads(ctx, mnemo.Scope{Namespace: ns, Clearance: mnemo.MaxAccessLevel})
		if err != nil {
			errs = append(errs, fmt.Errorf("extraction in %s: %w", ns, err))
			continue
		}
		for _, t := range threads {
			if ctx.Err() != nil {
				return out, errors.Join(append(errs, ctx.Err())...)
			}
			st, err := s.loadExtractState(ctx, ns, t.Name)
			if err != nil {
				errs = append(errs, fmt.Errorf("extraction of %s/%s: %w", ns, t.Name, err))
				continue
			}
			if !st.At.IsZero() && t.Last.Before(st.At) {
				continue // nothing new since the last extraction
			}
			n, err := s.extractThread(ctx, extractJob{c: extractCaller, ns: ns, thread: t.Name, min: 1})
			if err != nil {
				errs = append(errs, fmt.Errorf("extraction of %s/%s: %w", ns, t.Name, err))
				continue
			}
			if n > 0 {
				out[ns] += n
			}
		}
	}
	return out, errors.Join(errs...)
}

// modelExtractByLevel asks the chat model for the memories of recs, the
// messages of each access level in a call of their own (in the order of
// their first message), and returns the candidates of all calls, at most
// extract.MaxCandidates. Any call's failure fails the whole: the rules
// extract instead.
func (s *Service) modelExtractByLevel(ctx context.Context, recs []*mnemo.Record) ([]extract.Candidate, error) {
	var levels []int
	groups := map[int][]extract.Message{}
	for _, r := range recs {
		if _, ok := groups[r.AccessLevel]; !ok {
			levels = append(levels, r.AccessLevel)
		}
		groups[r.AccessLevel] = append(groups[r.AccessLevel], extract.Message{ID: r.ID, Text: r.Text})
	}
	var out []extract.Candidate
	for _, l := range levels {
		cands, err := s.modelExtract(ctx, groups[l])
		if err != nil {
			return nil, err
		}
		out = append(out, cands...)
	}
	if len(out) > extract.MaxCandidates {
		out = out[:extract.MaxCandidates]
	}
	return out, nil
}
