package engine

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/semantic"
	"github.com/mnemo-dev/mnemo/internal/stats"
)

// The semantic channel learned from the store.
//
// Each namespace large enough to learn from gets term vectors trained on
// its own text (package semantic: co-occurrence, PPMI, truncated SVD).
// They serve twice on the read path: the query's related terms join the
// keyword channel at their lower weight (expansion), and each candidate's
// learned text similarity to the query joins the semantic factor, above
// the similarity unrelated records of the namespace reach (the model's
// text null). Training never runs on the request path: `mnemo serve`
// retrains in the background when a namespace has grown by a quarter
// since its model, `mnemo reembed` retrains at once; the model is stored
// in the store's settings (versioned by the corpus stamp it learnt from),
// so one-shot commands load it instead of training.
//
// The model learns from the records of access level 0 only, which every
// caller may see: no caller's expansions or scores depend on words of a
// record above its clearance.

// learned is a namespace's trained model and what it measured.
type learned struct {
	m        *semantic.Model
	textNull float64 // learned similarity of unrelated records: the nullQuantile of random pairs
	records  int     // level-0 records it learnt from
	at       time.Time
	vecs     learnedVecs // records' vectors in this model, of the records judged lately
}

// learnedVecs keeps the learned vectors of recently ranked records, so
// that a record found by many queries is embedded once per model (a
// retrained model starts an empty cache). It holds at most
// learnedVecsSize vectors (512 bytes each at 128 dimensions).
type learnedVecs struct {
	mu sync.Mutex
	m  map[termKey][]float32
}

const learnedVecsSize = 8192

// sim is the learned similarity of r, whose distinct index terms are
// terms, to the query whose learned vector is q.
func (l *learned) sim(q []float32, r *mnemo.Record, terms func() []string) float64 {
	return dot(q, l.vec(r, terms))
}

// strength is the learned channel's evidence that r is about the query
// whose learned vector is q: its similarity above the namespace's null,
// scaled to 0..1 (0 at or below the null).
func (l *learned) strength(q []float32, r *mnemo.Record, terms func() []string) float64 {
	sim := l.sim(q, r, terms)
	if sim <= l.textNull || l.textNull >= 1 {
		return 0
	}
	return (sim - l.textNull) / (1 - l.textNull)
}

// vec is r's vector in the model (of its distinct terms), kept in l.vecs.
func (l *learned) vec(r *mnemo.Record, terms func() []string) []float32 {
	k := termKey{r.Namespace, r.ID, r.UpdatedAt.UnixNano()}
	l.vecs.mu.Lock()
	v, ok := l.vecs.m[k]
	l.vecs.mu.Unlock()
	if !ok {
		v = l.m.EmbedTerms(terms())
		l.vecs.mu.Lock()
		if l.vecs.m == nil || len(l.vecs.m) >= learnedVecsSize {
			l.vecs.m = make(map[termKey][]float32, 1024)
		}
		l.vecs.m[k] = v
		l.vecs.mu.Unlock()
	}
	return v
}

type learnedCache struct {
	mu      sync.Mutex
	models  map[string]*learned // nil value: looked up, none stored
	checked map[string]time.Time
	small   map[string]int // namespaces too small to learn from, at this many records
}

// learnedKey is the settings key of a namespace's model.
func learnedKey(ns string) string { return "semantic/v1/" + ns }

// learnedRecheck is how often a process looks again for a model another
// process stored.
const learnedRecheck = time.Minute

// semanticModel returns the namespace's model, or nil when it has none.
func (s *Service) semanticModel(ctx context.Context, ns string) *learned {
	if s.noLearned {
		return nil
	}
	c := &s.learn
	c.mu.Lock()
	l, ok := c.models[ns]
	fresh := ok && s.now().Sub(c.checked[ns]) < learnedRecheck
	c.mu.Unlock()
	if fresh || (ok && l != nil) {
		return l
	}
	l, err := s.loadLearned(ctx, ns)
	if err != nil {
		s.log.Warn("semantic model unreadable; training anew", "namespace", ns, "err", err)
	}
	c.mu.Lock()
	if c.models == nil {
		c.models, c.checked = map[string]*learned{}, map[string]time.Time{}
	}
	c.models[ns], c.checked[ns] = l, s.now()
	c.mu.Unlock()
	return l
}

func (s *Service) loadLearned(ctx context.Context, ns string) (*learned, error) {
	v, ok, err := s.store.Setting(ctx, learnedKey(ns))
	if err != nil || !ok || v == "" {
		return nil, err
	}
	var null float64
	var records int
	var b64 string
	if _, err := fmt.Sscanf(v, "%g %d %s", &null, &records, &b64); err != nil {
		return nil, fmt.Errorf("semantic model of %q: %w", ns, err)
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, fmt.Errorf("semantic model of %q: %w", ns, err)
	}
	m, err := semantic.Unmarshal(raw)
	if err != nil {
		return nil, err
	}
	return &learned{m: m, textNull: null, records: records}, nil
}

// TrainSemantic trains the namespace's semantic model from its records of
// access level 0 now, stores and installs it. A namespace too small to
// learn from gets none (and keeps using the other channels); it returns
// the number of records learnt from.
func (s *Service) TrainSemantic(ctx context.Context, ns string) (int, error) {
	if s.noLearned {
		return 0, mnemo.Errorf(mnemo.EINVALID, "the learned semantic channel is off")
	}
	if err := mnemo.ValidateNamespace(ns); err != nil {
		return 0, err
	}
	recs, err := s.listAll(ctx, mnemo.Scope{Namespace: ns, Clearance: 0}, mnemo.ListOptions{})
	if err != nil {
		return 0, err
	}
	texts := make([]string, 0, len(recs))
	for _, r := range recs {
		texts = append(texts, r.SearchText())
	}
	m, err := semantic.Train(ctx, texts, semantic.Config{Workers: 1})
	if errors.Is(err, semantic.ErrTooSmall) {
		_ = s.store.SetSetting(ctx, learnedKey(ns), "")
		s.installLearned(ns, nil)
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	l := &learned{m: m, records: len(texts), textNull: textNull(m, texts), at: s.now()}
	v := fmt.Sprintf("%g %d %s", l.textNull, l.records, base64.StdEncoding.EncodeToString(m.Marshal()))
	if err := s.store.SetSetting(ctx, learnedKey(ns), v); err != nil {
		return 0, err
	}
	s.installLearned(ns, l)
	return len(texts), nil
}

func (s *Service) installLearned(ns string, l *learned) {
	c := &s.learn
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.models == nil {
		c.models, c.checked = map[string]*learned{}, map[string]time.Time{}
	}
	c.models[ns], c.checked[ns] = l, s.now()
}

// textNull measures what learned similarity unrelated records reach: the
// nullQuantile of the similarity of random pairs of the corpus's texts
// (fixed seed). In a store about few topics random pairs are often
// related, so the figure is conservative.
func textNull(m *semantic.Model, texts []string) float64 {
	rng := rand.New(rand.NewPCG(1, 2))
	const pairs = 2000
	vecs := map[int][]float32{}
	vec := func(i int) []float32 {
		v, ok := vecs[i]
		if !ok {
			v = m.Embed(texts[i])
			vecs[i] = v
		}
		return v
	}
	sims := make([]float64, 0, pairs)
	for range pairs {
		a, b := rng.IntN(len(texts)), rng.IntN(len(texts))
		if a == b {
			continue
		}
		sims = append(sims, dot(vec(a), vec(b)))
	}
	slices.Sort(sims)
	return round4(stats.Percentile(sims, nullQuantile))
}

// RefreshSemantic retrains, one namespace after another, the model of
// every namespace that has grown by a quarter since its model was trained
// (or has none and may have enough records to learn from); force retrains
// every one. It returns the records learnt from per namespace retrained; a
// failure in one namespace is logged and the others go on, the first
// error is returned at the end.
func (s *Service) RefreshSemantic(ctx context.Context, force bool) (map[string]int, error) {
	if s.noLearned {
		return nil, nil
	}
	nss, err := s.store.Namespaces(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	var first error
	for _, ns := range nss {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		if !force {
			n, err := s.store.Count(ctx, ns)
			if err != nil {
				first = cmp.Or(first, err)
				continue
			}
			l := s.semanticModel(ctx, ns)
			if n < semantic.DefaultConfig().MinTexts || l != nil && float64(n) < 1.25*float64(l.records) {
				continue
			}
			if l == nil && s.learnedTooSmall(ns, n) {
				continue
			}
		}
		k, err := s.TrainSemantic(ctx, ns)
		if err != nil {
			s.log.Warn("semantic model training failed", "namespace", ns, "err", err)
			first = cmp.Or(first, err)
			continue
		}
		if k == 0 {
			s.noteTooSmall(ns)
		}
		out[ns] = k
	}
	return out, first
}

// learnedTooSmall reports whether ns was too small to learn from at a
// size of which n is less than a quarter more.
func (s *Service) learnedTooSmall(ns string, n int) bool {
	s.learn.mu.Lock()
	defer s.learn.mu.Unlock()
	m, ok := s.learn.small[ns]
	return ok && float64(n) < 1.25*float64(m)
}

func (s *Service) noteTooSmall(ns string) {
	n, _ := s.store.Count(context.Background(), ns)
	s.learn.mu.Lock()
	defer s.learn.mu.Unlock()
	if s.learn.small == nil {
		s.learn.small = map[string]int{}
	}
	s.learn.small[ns] = n
}
