package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/extract"
)

// Extraction runs in the background, off the write path: after a write
// adds messages to a thread, a job checks whether the thread has gained
// ExtractEvery messages since its last extraction and, if so, stores the
// candidates the rules find in them (source "extracted", confidence 0.5,
// "record:<message id>" and "thread:<name>" as provenance, near-duplicates
// merged). Candidates carry no thread, so they never trigger extraction.

type extractJob struct {
	c          mnemo.Caller
	ns, thread string
}

// extractState is what extraction remembers per thread: the last message
// it has read.
type extractState struct {
	At time.Time `json:"at"`
	ID string    `json:"id"`
}

// extractKey is the setting that holds a thread's extraction state. The
// namespace is length-prefixed: namespaces and threads may both hold '/',
// and ("a/b", "c") must not share a key with ("a", "b/c").
func extractKey(ns, thread string) string {
	return "extract/" + strconv.Itoa(len(ns)) + ":" + ns + "/" + thread
}

// legacyExtractKey is the key of earlier versions, "extract/<ns>/<thread>",
// read only where it was unambiguous: neither name holds a '/'.
func legacyExtractKey(ns, thread string) (string, bool) {
	if strings.Contains(ns, "/") || strings.Contains(thread, "/") {
		return "", false
	}
	return "extract/" + ns + "/" + thread, true
}

// loadExtractState returns the thread's extraction state (zero if none).
func (s *Service) loadExtractState(ctx context.Context, ns, thread string) (extractState, error) {
	var st extractState
	v, ok, err := s.store.Setting(ctx, extractKey(ns, thread))
	if err != nil {
		return st, err
	}
	if !ok {
		if key, unambiguous := legacyExtractKey(ns, thread); unambiguous {
			if v, ok, err = s.store.Setting(ctx, key); err != nil {
				return st, err
			}
		}
	}
	if ok {
		if err := json.Unmarshal([]byte(v), &st); err != nil {
			return st, fmt.Errorf("extraction state: %w", err)
		}
	}
	return st, nil
}

// queueExtract asks the extractor to look at a thread.
func (s *Service) queueExtract(c mnemo.Caller, ns, thread string) {
	if s.exQ == nil || thread == "" {
		return
	}
	s.exPending.Add(1)
	defer func() {
		if recover() != nil { // queue closed during shutdown
			s.exPending.Done()
		}
	}()
	select {
	case s.exQ <- extractJob{c: c, ns: ns, thread: thread}:
	default:
		s.exPending.Done()
		s.log.Warn("extraction queue full: thread left for its next message", "thread", thread)
	}
}

func (s *Service) extractor() {
	defer close(s.exDone)
	for j := range s.exQ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if n, err := s.extractThread(ctx, j); err != nil {
			s.log.Warn("extraction failed", "namespace", j.ns, "thread", j.thread, "err", err)
		} else if n > 0 {
			s.log.Debug("extracted", "namespace", j.ns, "thread", j.thread, "candidates", n)
		}
		cancel()
		s.exPending.Done()
	}
}

// extractThread extracts from the thread's messages since its last
// extraction when there are at least ExtractEvery of them, and returns
// the number of candidates stored.
func (s *Service) extractThread(ctx context.Context, j extractJob) (int, error) {
	unlock := s.threads.lock(j.ns, j.thread)
	defer unlock()
	st, err := s.loadExtractState(ctx, j.ns, j.thread)
	if err != nil {
		return 0, err
	}
	f := mnemo.Filter{Thread: j.thread}
	if !st.At.IsZero() {
		f.Since = &st.At
	}
	sc := scopeOf(j.c, j.ns)
	recs, err := s.store.List(ctx, sc, mnemo.ListOptions{Filter: f, ByTime: true, Limit: 1000})
	if err != nil {
		return 0, err
	}
	slices.Reverse(recs) // oldest first
	var msgs []extract.Message
	var last *mnemo.Record
	for _, r := range recs {
		if !st.At.IsZero() && r.CreatedAt.Equal(st.At) && r.ID <= st.ID {
			continue // read by the previous extraction
		}
		msgs = append(msgs, extract.Message{ID: r.ID, Text: r.Text})
		last = r
	}
	if len(msgs) < s.extractEvery {
		return 0, nil
	}
	byID := map[string]*mnemo.Record{}
	for _, r := range recs {
		byID[r.ID] = r
	}
	var in []mnemo.NewRecord
	conf := 0.5
	for _, c := range extract.Extract(msgs) {
		src := byID[c.From]
		at := src.CreatedAt
		imp := c.Importance
		in = append(in, mnemo.NewRecord{Kind: c.Kind, Scope: c.Scope, Text: c.Text, Tags: c.Tags, Decision: c.Decision,
			Importance: &imp, Confidence: &conf, Source: "extracted", At: &at, AccessLevel: src.AccessLevel,
			Provenance: []string{mnemo.MissedRef + c.From, "thread:" + j.thread}})
	}
	if len(in) > 0 {
		if _, err := s.Remember(ctx, j.c, j.ns, in, WriteOptions{Dedup: true}); err != nil {
			return 0, err
		}
	}
	b, _ := json.Marshal(extractState{At: last.CreatedAt, ID: last.ID})
	if err := s.store.SetSetting(ctx, extractKey(j.ns, j.thread), string(b)); err != nil {
		return 0, err
	}
	return len(in), nil
}
