package mnemo_test

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

var nastyStrings = []string{"", "plain", `quote " and \ backslash`, "new\nline\ttab\rret", "ctl \x00\x01\x1f\x7f",
	"<html> & more", "emoji 🚀 и кириллица", "bad \xff\xfe utf8", "sep \u2028 \u2029", "é\u0301", "bs \b ff \f"}

func randomDigest(rng *rand.Rand) *mnemo.Digest {
	str := func() string { return nastyStrings[rng.Intn(len(nastyStrings))] }
	num := func() float64 {
		return []float64{0, 1, 0.5, 1e-7, 123456.789, 1e21, 2.5e-300, -0.25, 0.1 + 0.2}[rng.Intn(9)]
	}
	d := &mnemo.Digest{Task: str(), Scope: str(), Intent: str(), Preset: str(), Budget: rng.Intn(9000),
		UsedTokens: rng.Intn(9000), Tokenizer: str(), Candidates: rng.Intn(300), Omitted: rng.Intn(200), Markdown: str()}
	if rng.Intn(2) == 0 {
		d.IntentBy = str()
	}
	if rng.Intn(2) == 0 {
		d.Weights = map[string]float64{"semantic": num(), "keyword": num(), str(): num()}
	}
	if rng.Intn(2) == 0 {
		d.Triage = &mnemo.Triage{Active: rng.Intn(2) == 0, Alpha: num(), Rate: num(), Limit: num()}
	}
	if rng.Intn(4) > 0 {
		d.Entries = []mnemo.DigestEntry{}
		for range rng.Intn(4) {
			e := mnemo.DigestEntry{ID: str(), Layer: mnemo.Layer(str()), Kind: mnemo.Kind(str()), Scope: str(), Score: num(),
				Text: str(), Tokens: rng.Intn(100), Section: str()}
			if rng.Intn(2) == 0 {
				e.Factors = mnemo.Factors{"semantic": num(), "gate": num(), str(): num()}
			}
			if rng.Intn(2) == 0 {
				e.Provenance = []string{str(), str()}
			}
			if rng.Intn(2) == 0 {
				e.Why = &mnemo.Why{Evidence: str(), Relevance: num(), Floor: num(), KeywordShare: num(), ExpansionShare: num(),
					Semantic: num(), SemanticNull: num(), SemanticStrength: num(), Learned: num(), LearnedNull: num(), Interval: str()}
				if rng.Intn(2) == 0 {
					e.Why.Matched = []string{str(), str()}
				}
				if rng.Intn(2) == 0 {
					e.Why.Expanded = []string{str()}
				}
			}
			if rng.Intn(3) == 0 {
				e.Covers = []string{str(), str()}
			}
			d.Entries = append(d.Entries, e)
		}
	}
	return d
}

func TestDigestJSONMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 2000; i++ {
		d := randomDigest(rng)
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(d); err != nil {
			t.Fatal(err)
		}
		got := append(d.AppendJSON(nil), '\n')
		if string(got) != want.String() {
			t.Fatalf("got  %s\nwant %s", got, want.String())
		}
	}
}

func BenchmarkDigestJSON(b *testing.B) {
	rng := rand.New(rand.NewSource(2))
	d := randomDigest(rng)
	d.Entries = nil
	for range 120 {
		d.Entries = append(d.Entries, mnemo.DigestEntry{ID: "01JABCDEFGHJKMNPQRSTVWXYZ0", Layer: "domain", Kind: "fact", Scope: "/rules/deploy",
			Score: 0.4231, Factors: mnemo.Factors{"semantic": 0.31, "keyword": 0.9, "recency": 0.77, "importance": 0.5, "confidence": 1, "frequency": 0.2, "gate": 0.93},
			Text: "the mobile app requires approval from the compliance officer before the Friday deploy", Provenance: []string{"doc:x"}, Tokens: 48, Section: "domain"})
	}
	b.Run("AppendJSON", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			buf = d.AppendJSON(buf[:0])
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			enc := json.NewEncoder(&bytes.Buffer{})
			enc.SetEscapeHTML(false)
			enc.Encode(d)
		}
	})
}
