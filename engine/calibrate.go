package engine

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/stats"
	"github.com/mnemo-dev/mnemo/internal/words"
)

// calibrationPairs holds the built-in calibration corpus: a statement and a
// question per line, each pair about one topic and sharing no content word,
// the topics of different lines unrelated (English, Russian, Ukrainian).
//
//go:embed calibration/pairs.tsv
var calibrationPairs string

// calibrationVersion names the corpus and the statistic; a stored
// calibration of another version is recomputed.
const calibrationVersion = "c2"

// nullQuantile is the quantile of the similarity of random pairs of a
// namespace's texts, and of random term pairs, above which the learned
// channel shows evidence (random pairs of one store are often related, so
// this is conservative).
const nullQuantile = 0.99

// embedderNullQuantile is the share of the built-in corpus's unrelated
// (question, statement) pairs whose similarity the embedder's semantic
// evidence must exceed: all of them, what unrelated text reaches.
const embedderNullQuantile = 1.0

// Calibration is what an embedder's cosine similarity reaches between
// unrelated texts, measured on the built-in corpus: semantic similarity is
// evidence of relevance only above Null.
type Calibration struct {
	Embedder string  `json:"embedder"`
	Null     float64 `json:"null"`     // the embedderNullQuantile quantile of unrelated pairs
	Max      float64 `json:"max"`      // the largest unrelated similarity
	Related  float64 `json:"related"`  // the median similarity of related pairs (no shared word)
	Found    float64 `json:"found"`    // share of related pairs above Null
	Pairs    int     `json:"pairs"`    // unrelated pairs measured
	Version  string  `json:"version"`  // corpus version
	Quantile float64 `json:"quantile"` // embedderNullQuantile
}

type calibrator struct {
	mu  sync.Mutex
	cal *Calibration
}

// Calibration returns the embedder's calibration, computing it once (and
// storing it in the store's settings, so that a process pays for it once
// per store, not once per command: a remote embedder's calls, the hash
// embedder's 9 ms).
func (s *Service) Calibration(ctx context.Context) (*Calibration, error) {
	s.calib.mu.Lock()
	defer s.calib.mu.Unlock()
	if s.calib.cal != nil {
		return s.calib.cal, nil
	}
	info := s.emb.Info()
	name := info.Name + "/" + strconv.Itoa(info.Dim)
	key := "calibration/" + calibrationVersion + "/" + name
	pairs := parseCalibration(calibrationPairs)
	texts := calibrationTexts(pairs)
	version := ""
	if v, ok := s.emb.(interface{ Version() string }); ok {
		version = v.Version()
	}
	if version != "" {
		// A built-in embedder: stored under its version and the texts it
		// embeds (the questions as the engine cleans them), so that a
		// change of its rules or of the cleaning measures it again
		// (measuring takes about 9 ms, too much for every hook).
		h := sha256.New()
		h.Write([]byte(version))
		for _, t := range texts {
			h.Write([]byte{0})
			h.Write([]byte(t))
		}
		key += "/" + version + "/" + hex.EncodeToString(h.Sum(nil)[:8])
	}
	// A hash embedder without a version (another implementation) is
	// measured by every process.
	stored := version != "" || !strings.HasPrefix(info.Name, "hash")
	if stored {
		if v, ok, err := s.store.Setting(ctx, key); err == nil && ok {
			var c Calibration
			if _, err := fmt.Sscanf(v, "%g %g %g %g %d", &c.Null, &c.Max, &c.Related, &c.Found, &c.Pairs); err == nil {
				c.Embedder, c.Version, c.Quantile = name, calibrationVersion, embedderNullQuantile
				s.calib.cal = &c
				return &c, nil
			}
		}
	}
	c, err := calibrate(ctx, s.emb, pairs, texts)
	if err != nil {
		return nil, fmt.Errorf("calibrate %s: %w", name, err)
	}
	c.Embedder = name
	if stored {
		v := fmt.Sprintf("%g %g %g %g %d", c.Null, c.Max, c.Related, c.Found, c.Pairs)
		_ = s.store.SetSetting(ctx, key, v) // a read-only store recomputes next time
	}
	s.calib.cal = c
	return c, nil
}

type calPair struct{ lang, statement, question string }

func parseCalibration(src string) []calPair {
	var out []calPair
	for _, line := range strings.Split(src, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			continue
		}
		out = append(out, calPair{f[0], f[1], f[2]})
	}
	return out
}

// calibrationTexts are the texts calibrate embeds: each pair's statement,
// then its question as a query is cleaned.
func calibrationTexts(pairs []calPair) []string {
	texts := make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		texts = append(texts, p.statement, cleanQuery(p.question, words.SpanList(p.question)).text)
	}
	return texts
}

// calibrate measures the null distribution of emb: the similarity of each
// question to the statements of other topics in its language.
func calibrate(ctx context.Context, emb mnemo.Embedder, pairs []calPair, texts []string) (*Calibration, error) {
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("embedder returned %d vectors for %d texts", len(vecs), len(texts))
	}
	var null, related []float64
	for i, p := range pairs {
		q := vecs[2*i+1]
		for j, o := range pairs {
			if o.lang != p.lang {
				continue
			}
			sim := dot(q, vecs[2*j])
			if i == j {
				related = append(related, sim)
			} else {
				null = append(null, sim)
			}
		}
	}
	if len(null) == 0 {
		return nil, fmt.Errorf("empty calibration corpus")
	}
	slices.Sort(null)
	slices.Sort(related)
	c := &Calibration{Version: calibrationVersion, Quantile: embedderNullQuantile, Pairs: len(null),
		Null: round4(stats.Percentile(null, embedderNullQuantile)), Max: round4(null[len(null)-1]), Related: round4(stats.Percentile(related, 0.5))}
	found := 0
	for _, r := range related {
		if r > c.Null {
			found++
		}
	}
	c.Found = round4(float64(found) / float64(len(related)))
	return c, nil
}
