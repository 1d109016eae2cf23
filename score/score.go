package score

import (
	"math"
	"strconv"

	"github.com/mnemo-dev/mnemo"
)

// Factors are the signals of one candidate record, each in [0, 1].
// Criticality is used only by triage ranking, never by Score.
type Factors struct {
	Semantic, Keyword, Recency, Importance, Confidence, Frequency, Criticality float64
}

// Map returns f keyed by factor name: the six scored factors always, and
// mnemo.FactorCriticality only when it is non-zero.
func (f Factors) Map() map[string]float64 {
	m := map[string]float64{
		mnemo.FactorSemantic:   f.Semantic,
		mnemo.FactorKeyword:    f.Keyword,
		mnemo.FactorRecency:    f.Recency,
		mnemo.FactorImportance: f.Importance,
		mnemo.FactorConfidence: f.Confidence,
		mnemo.FactorFrequency:  f.Frequency,
	}
	if f.Criticality != 0 {
		m[mnemo.FactorCriticality] = f.Criticality
	}
	return m
}

// Score returns the composite score of f under weights w: the weighted sum
// of the six factors (criticality is ignored), clamped to [0, 1] (NaN
// gives 0) and rounded to p.Decimals decimals when that is not negative.
// w is usually p.ForIntent(intent); p supplies only the rounding.
func (p Preset) Score(w mnemo.Weights, f Factors) float64 {
	// The explicit float64 conversions keep the compiler from fusing the
	// multiply-adds, so results are identical on every architecture and
	// match the reference summation order (semantic, recency, importance).
	s := float64(w.Semantic*f.Semantic) + float64(w.Keyword*f.Keyword)
	s = s + float64(w.Recency*f.Recency)
	s = s + float64(w.Importance*f.Importance)
	s = s + float64(w.Confidence*f.Confidence)
	s = s + float64(w.Frequency*f.Frequency)
	return Round(clamp01(s), p.Decimals)
}

// Relevance returns the relevance part of a score: w.Semantic·semantic +
// w.Keyword·keyword.
func Relevance(w mnemo.Weights, f Factors) float64 {
	return float64(w.Semantic*f.Semantic) + float64(w.Keyword*f.Keyword)
}

// GatedScore is Score with the prior factors gated by relevance:
//
//	relevance + gate·(w_rec·recency + w_imp·importance + w_conf·confidence + w_freq·frequency)
//
// where gate in [0, 1] is the candidate's relevance divided by the highest
// relevance among the candidates of the same query. The best-matching
// candidate keeps its full priors; one with half its relevance keeps half.
// The result stays in [0, 1] for weights that sum to at most 1.
func (p Preset) GatedScore(w mnemo.Weights, f Factors, gate float64) float64 {
	gate = clamp01(gate)
	prior := float64(w.Recency*f.Recency) + float64(w.Importance*f.Importance)
	prior = prior + float64(w.Confidence*f.Confidence) + float64(w.Frequency*f.Frequency)
	return Round(clamp01(Relevance(w, f)+gate*prior), p.Decimals)
}

// ThreadFactor returns the thread factor of a record from the relevance of
// the query's candidates: mass is the summed relevance of the candidates in
// the record's thread, best the largest such sum over the threads of the
// query. It is in [0, 1]: 1 for the records of the thread the query is most
// about, 0 for a record without a thread or when no thread has relevance.
func ThreadFactor(mass, best float64) float64 {
	if !(best > 0) || !(mass > 0) {
		return 0
	}
	return clamp01(mass / best)
}

// WithThread adds the thread factor to a score: s + ThreadWeight·thread,
// clamped to [0, 1] and rounded as Score rounds. With ThreadWeight 0 it
// returns s unchanged. Unlike the priors it is not gated by the record's
// own relevance: its point is to lift the records of a relevant
// conversation that share few words with the query.
func (p Preset) WithThread(s, thread float64) float64 {
	if p.ThreadWeight == 0 || thread == 0 {
		return s
	}
	return Round(clamp01(s+float64(p.ThreadWeight*thread)), p.Decimals)
}

// ComputeScore is the reference aura compute_score:
//
//	round(alpha·semantic + beta·max(2^(−days/halfLife), floor) + gamma·importance, 4)
//
// summed in that order, rounded like Python's round(x, 4) (the exact binary
// value is rounded to nearest, ties to even; see Round). The result is also
// clamped to [0, 1]; for inputs in [0, 1] with alpha+beta+gamma <= 1 the
// clamp never acts, so it cannot change a reference result (the golden
// vectors cannot tell whether the reference clamps). Edge inputs follow
// Recency: negative days count as 0, a non-positive half-life fades at once.
func ComputeScore(semantic, days, importance, halfLife, alpha, beta, gamma, floor float64) float64 {
	s := float64(alpha*semantic) + float64(beta*Recency(days, halfLife, floor))
	s = s + float64(gamma*importance)
	return Round(clamp01(s), 4)
}

// Frequency returns the access-frequency factor of a record read
// accessCount times: log(1+n)/log(1+100), saturating at 1 from 100 reads
// on; 0 for n <= 0. It is monotone non-decreasing in n.
func Frequency(accessCount int64) float64 {
	if accessCount <= 0 {
		return 0
	}
	if accessCount >= frequencySaturation {
		return 1
	}
	return math.Min(math.Log1p(float64(accessCount))/math.Log1p(frequencySaturation), 1)
}

// frequencySaturation is the access count at which Frequency reaches 1.
const frequencySaturation = 100

// Round returns x rounded to decimals decimal places exactly as Python's
// round(x, decimals) does: the exact binary value of x is rounded to the
// nearest decimal, ties to even, and the result is the float64 nearest to
// that decimal. So round(0.46525, 4) is 0.4652 (0.46525 is stored as
// 0.465249999…) and round(0.73025, 4) is 0.7303. A negative decimals, a
// NaN or an infinite x returns x unchanged.
func Round(x float64, decimals int) float64 {
	if decimals < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	if decimals <= 15 {
		p := pow10[decimals]
		y := x * p
		if math.Abs(y) < 1<<52 {
			r := math.RoundToEven(y)
			// x*p is itself rounded; when y is clearly away from a
			// half-way point that rounding cannot move it across one, and
			// r/p (an exact integer over an exact power of ten) is the
			// float64 nearest the decimal, as strconv would give.
			if d := math.Abs(y - r); d < 0.5-(1e-9+math.Abs(y)*1e-15) {
				return r / p
			}
		} else {
			return x // no fractional digits left to round
		}
	}
	// Near a tie (or many decimals): decide on the exact binary value.
	v, err := strconv.ParseFloat(strconv.FormatFloat(x, 'f', decimals, 64), 64)
	if err != nil {
		return x
	}
	return v
}

var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// clamp01 returns x limited to [0, 1], and 0 for NaN.
func clamp01(x float64) float64 {
	switch {
	case x > 1:
		return 1
	case x >= 0:
		return x
	}
	return 0 // negative or NaN
}
