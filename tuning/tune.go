// Package tuning keeps a namespace's scoring configuration as versions —
// the tuning history every change adds to: `tune`, `config apply`, the cold
// loop and rollbacks, each version with its author, reason and evaluation
// — and tunes the default preset's weights on the namespace's correction
// triples within guardrails. The engine answers mnemo.Tuner's Tune, Tuning
// and Rollback with it and reads the active version on its read path.
package tuning

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/corrections"
	"github.com/mnemo-dev/mnemo/internal/access"
)

// Source is what tuning reads and changes: the store (its settings hold
// the versions, key "tuning/<namespace>"), the clock, and the read path's
// part — version 0, the weights a search starts from and the ranking a
// setting is judged by.
type Source struct {
	Store mnemo.Store
	Now   func() time.Time
	// Default returns version 0: the default preset's configuration as
	// the read path ranks with it.
	Default func() mnemo.ScoringConfig
	// Weights returns the general weights a search in namespace ns starts
	// from: the active configuration's (or the one under evaluation),
	// else the default preset's.
	Weights func(ctx context.Context, ns string) (mnemo.Weights, error)
	// Rank returns the ids of the default preset's ranking of query in sc
	// under weights w, best first, near-duplicates dropped.
	Rank func(ctx context.Context, sc mnemo.Scope, query string, w mnemo.Weights) ([]string, error)
	// Saved, when set, is told that the versions of namespace ns changed
	// (the read path drops what it cached).
	Saved func(ns string)
}

// Self-tuning with guardrails. The validation data are the namespace's
// correction triples: a missing-context correction that names its
// retrieval and the records that were missing (record:<id>) says "for this
// query, these records should have been there". Tune searches the default
// preset's six weights for a setting that brings more of the missed records
// into the top k, and accepts it only when deterministic checks pass:
//
//   - bounds: every weight in [0.02, 0.60], semantic + keyword >= 0.40
//     (relevance dominates), the weights sum to 1;
//   - generalisation: the triples, ordered by a hash of the correction
//     id, go alternately to two halves; the search sees only the first half, and the change
//     must raise recall on it by at least MinTuneGain and must not lower
//     recall on the second, held-out half;
//   - data: at least MinTuneTriples/2 triples in each half whose missed
//     records still exist.
//
// Every accepted setting is a new version of the namespace's tuning, kept
// in the store's settings; Rollback makes any earlier version (or the
// preset's own weights, version 0) active again.

// Tuning bounds and thresholds.
const (
	MinTuneTriples = 8
	MinTuneGain    = 0.02 // recall points on the search half
	TuneK          = 10
	tuneStep       = 0.05
	tuneRounds     = 6
	tuneMaxTriples = 400
	minWeight      = 0.02
	maxWeight      = 0.60
	minRelevance   = 0.40
)

// Key is the store setting that holds the versions of namespace ns.
func Key(ns string) string { return "tuning/" + ns }

// History returns the namespace's tuning history (empty when never tuned).
func History(ctx context.Context, s Source) (*mnemo.Tuning, error) {
	_, sc, err := access.Reader(ctx)
	if err != nil {
		return nil, err
	}
	return Load(ctx, s.Store, sc.Namespace)
}

// Load reads the versions of namespace ns (none when never tuned).
func Load(ctx context.Context, st mnemo.Store, ns string) (*mnemo.Tuning, error) {
	v, ok, err := st.Setting(ctx, Key(ns))
	if err != nil {
		return nil, err
	}
	t := &mnemo.Tuning{Versions: []mnemo.TuningVersion{}, Events: []mnemo.TuningEvent{}}
	if !ok {
		return t, nil
	}
	if err := json.Unmarshal([]byte(v), t); err != nil {
		return nil, fmt.Errorf("engine: tuning of %s: %w", ns, err)
	}
	return t, nil
}

// save writes the versions of namespace ns and tells the read path.
func (s Source) save(ctx context.Context, ns string, t *mnemo.Tuning) error {
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	if err := s.Store.SetSetting(ctx, Key(ns), string(b)); err != nil {
		return err
	}
	if s.Saved != nil {
		s.Saved(ns)
	}
	return nil
}

// validWeights checks the guardrail bounds.
func validWeights(w mnemo.Weights) bool {
	for _, x := range []float64{w.Semantic, w.Keyword, w.Recency, w.Importance, w.Confidence, w.Frequency} {
		if !(x >= minWeight-1e-9 && x <= maxWeight+1e-9) {
			return false
		}
	}
	return w.Semantic+w.Keyword >= minRelevance-1e-9 && math.Abs(w.Sum()-1) < 1e-6
}

// tuneTriple is one validation case.
type tuneTriple struct {
	query  string
	missed []string
	key    uint32 // orders the split (splitKey)
	held   bool   // in the held-out half
}

// recallOf returns, for the triples of one half under weights w, the mean
// share of missed records in the top TuneK and the mean reciprocal rank of
// the missed records in the whole ranking (0 for one not ranked): the
// search climbs on recall + MRR/10, since recall alone is flat until a
// record crosses into the top k.
func (s Source) recallOf(ctx context.Context, sc mnemo.Scope, ts []tuneTriple, held bool, w mnemo.Weights) (float64, float64, error) {
	sumR, sumM, n := 0.0, 0.0, 0
	for _, t := range ts {
		if t.held != held {
			continue
		}
		ids, err := s.Rank(ctx, sc, t.query, w)
		if err != nil {
			return 0, 0, err
		}
		pos := make(map[string]int, len(ids))
		for i, id := range ids {
			pos[id] = i + 1
		}
		found, mrr := 0, 0.0
		for _, id := range t.missed {
			if p, ok := pos[id]; ok {
				if p <= TuneK {
					found++
				}
				mrr += 1 / float64(p)
			}
		}
		sumR += float64(found) / float64(len(t.missed))
		sumM += mrr / float64(len(t.missed))
		n++
	}
	if n == 0 {
		return 0, 0, nil
	}
	return sumR / float64(n), sumM / float64(n), nil
}

// Tune searches the namespace's default-preset weights against its
// correction triples of the request's period and, unless dryRun, makes an
// accepted setting the active version. A refused search is not an error:
// the result says why.
func Tune(ctx context.Context, s Source, req mnemo.CorrectionRequest, dryRun bool) (*mnemo.TuneResult, error) {
	c, sc, err := access.Admin(ctx, "tuning")
	if err != nil {
		return nil, err
	}
	var ts []tuneTriple
	_, err = corrections.Triples(ctx, corrections.Source{Store: s.Store, Now: s.Now}, req, func(t mnemo.CorrectionTriple) error {
		if len(ts) >= tuneMaxTriples || len(t.Missed) == 0 {
			return nil
		}
		live, err := s.Store.GetMany(ctx, sc, t.Missed)
		if err != nil {
			return err
		}
		var ids []string
		for _, r := range live {
			if r.DeletedAt == nil {
				ids = append(ids, r.ID)
			}
		}
		if len(ids) > 0 {
			ts = append(ts, tuneTriple{query: t.Query, missed: ids, key: splitKey(t.CorrectionID)})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	splitHalves(ts)
	from, err := s.Weights(ctx, sc.Namespace)
	if err != nil {
		return nil, err
	}
	res := &mnemo.TuneResult{DryRun: dryRun, Triples: len(ts), From: from, To: from}
	search, held := 0, 0
	for _, t := range ts {
		if t.held {
			held++
		} else {
			search++
		}
	}
	if search < MinTuneTriples/2 || held < MinTuneTriples/2 {
		res.Reason = fmt.Sprintf("not enough validation data: %d usable correction triples (%d + %d held out); tuning needs at least %d per half — "+
			"record missing-context corrections with their retrieval_id and record:<id> references to the missing records",
			len(ts), search, held, MinTuneTriples/2)
		return res, nil
	}
	var mrr float64
	if res.Before, mrr, err = s.recallOf(ctx, sc, ts, false, from); err != nil {
		return nil, err
	}
	objective := func(r, m float64) float64 { return r + m/10 }
	recalls := map[mnemo.Weights]float64{from: res.Before}
	best, _, err := SearchWeights(from, objective(res.Before, mrr), tuneStep, tuneRounds, validWeights, func(w mnemo.Weights) (float64, error) {
		r, m, err := s.recallOf(ctx, sc, ts, false, w)
		recalls[w] = r
		return objective(r, m), err
	})
	if err != nil {
		return nil, err
	}
	bestR := recalls[best]
	res.To, res.After = best, bestR
	if res.HeldOut[0], _, err = s.recallOf(ctx, sc, ts, true, from); err != nil {
		return nil, err
	}
	if res.HeldOut[1], _, err = s.recallOf(ctx, sc, ts, true, best); err != nil {
		return nil, err
	}
	switch {
	case res.After < res.Before+MinTuneGain:
		res.Reason = fmt.Sprintf("no setting within the bounds raises recall@%d on the search half by %.2f (best %.3f from %.3f)",
			TuneK, MinTuneGain, res.After, res.Before)
		return res, nil
	case res.HeldOut[1] < res.HeldOut[0]-1e-9:
		res.Reason = fmt.Sprintf("the best setting lowers recall@%d on the held-out half (%.3f from %.3f): refused",
			TuneK, res.HeldOut[1], res.HeldOut[0])
		return res, nil
	}
	res.Accepted = true
	res.Reason = fmt.Sprintf("recall@%d on the search half %.3f -> %.3f, held out %.3f -> %.3f, within the bounds",
		TuneK, res.Before, res.After, res.HeldOut[0], res.HeldOut[1])
	if dryRun {
		return res, nil
	}
	t, err := Load(ctx, s.Store, sc.Namespace)
	if err != nil {
		return nil, err
	}
	now := s.Now().UTC()
	v := nextVersion(t)
	cfg := WithGeneral(ConfigOf(t, t.Active, s.Default), best)
	t.Versions = append(t.Versions, mnemo.TuningVersion{Version: v, At: now, Weights: best, Before: res.Before, After: res.After,
		HeldOut: res.HeldOut, Triples: len(ts), ActorNote: c.Name, Config: &cfg, Action: "tune", Author: c.Name, Reason: res.Reason,
		Evaluation: map[string]float64{"recall_before": res.Before, "recall_after": res.After,
			"held_out_recall_before": res.HeldOut[0], "held_out_recall_after": res.HeldOut[1]}})
	t.Active = v
	t.Events = append(t.Events, mnemo.TuningEvent{At: now, Active: v, Action: "tune", Actor: c.Name})
	if err := s.save(ctx, sc.Namespace, t); err != nil {
		return nil, err
	}
	res.Version = v
	return res, nil
}

// SearchWeights climbs from the weights from (whose objective is fromValue)
// by coordinate ascent: each round tries every move of step from one
// factor to another that valid accepts and keeps the best improvement,
// for up to rounds rounds or until none improves. It returns the best
// weights and their objective (from and fromValue when nothing improves).
func SearchWeights(from mnemo.Weights, fromValue, step float64, rounds int, valid func(mnemo.Weights) bool,
	objective func(mnemo.Weights) (float64, error)) (mnemo.Weights, float64, error) {
	factors := func(w *mnemo.Weights) []*float64 {
		return []*float64{&w.Semantic, &w.Keyword, &w.Recency, &w.Importance, &w.Confidence, &w.Frequency}
	}
	best, bestO := from, fromValue
	for range rounds {
		improved := false
		round, roundO := best, bestO
		for i := range 6 {
			for j := range 6 {
				if i == j {
					continue
				}
				w := best
				f := factors(&w)
				*f[i] = math.Round((*f[i]+step)*1000) / 1000
				*f[j] = math.Round((*f[j]-step)*1000) / 1000
				if !valid(w) {
					continue
				}
				o, err := objective(w)
				if err != nil {
					return best, bestO, err
				}
				if o > roundO+1e-9 {
					round, roundO, improved = w, o, true
				}
			}
		}
		if !improved {
			break
		}
		best, bestO = round, roundO
	}
	return best, bestO, nil
}

// Rollback makes an earlier tuning version active; version 0 restores the
// preset's own weights. Errors: ENOTFOUND for an unknown version.
func Rollback(ctx context.Context, s Source, version int) (*mnemo.Tuning, error) {
	c, sc, err := access.Admin(ctx, "rolling back tuning")
	if err != nil {
		return nil, err
	}
	t, err := Load(ctx, s.Store, sc.Namespace)
	if err != nil {
		return nil, err
	}
	if version != 0 && !slices.ContainsFunc(t.Versions, func(v mnemo.TuningVersion) bool { return v.Version == version }) {
		return nil, mnemo.Errorf(mnemo.ENOTFOUND, "tuning version %d does not exist in %s", version, sc.Namespace)
	}
	t.Active = version
	t.Events = append(t.Events, mnemo.TuningEvent{At: s.Now().UTC(), Active: version, Action: "rollback", Actor: c.Name})
	if err := s.save(ctx, sc.Namespace, t); err != nil {
		return nil, err
	}
	return t, nil
}

// splitKey orders triples for the split into halves.
func splitKey(correctionID string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(correctionID))
	return h.Sum32()
}

// splitHalves puts the triples, ordered by the FNV-1a hash of their
// correction id, alternately in the search half and the held-out half: a
// split that does not depend on the order they were recorded in and is
// balanced to within one.
func splitHalves(ts []tuneTriple) {
	slices.SortStableFunc(ts, func(a, b tuneTriple) int { return cmp.Compare(a.key, b.key) })
	for i := range ts {
		ts[i].held = i%2 == 1
	}
}

// versionAuthor is who made a version: its author, else (versions from
// before authors were recorded) the actor that tuned.
func versionAuthor(v mnemo.TuningVersion) string {
	if v.Author != "" {
		return v.Author
	}
	return v.ActorNote
}
