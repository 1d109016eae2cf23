package embed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/mnemo-dev/mnemo/internal/words"
)

func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func embedOne(t testing.TB, e *Hash, text string) []float32 {
	t.Helper()
	v, err := e.Embed(context.Background(), []string{text})
	if err != nil {
		t.Fatal(err)
	}
	return v[0]
}

// TestHashOrdering checks that a query is closer to a related text (shared
// words, morphological variants) than to an unrelated one, in English,
// Russian and Ukrainian.
func TestHashOrdering(t *testing.T) {
	tests := []struct {
		name, query, related, unrelated string
	}{
		{"en variants", "deploy rules", "Deployment rules: never deploy on Friday", "The cafeteria serves soup at noon"},
		{"en morphology", "how do we deploy the service", "deployment of services is done by the release team", "the cat sleeps on the warm carpet"},
		{"en config", "database configuration", "configure the database connection pool", "quarterly revenue grew in Europe"},
		{"en typo-ish", "authentication tokens", "the authenticator rotates its token every hour", "we planted tomatoes in the garden"},
		{"ru variants", "правила деплоя", "правило: не деплоить в пятницу", "в столовой подают суп в полдень"},
		{"ru morphology", "настройка базы данных", "настроить подключение к базе данных", "квартальная выручка выросла в Европе"},
		{"ru diacritics", "ёлка", "ЕЛКИ в лесу", "машина едет по дороге"},
		{"uk variants", "правила розгортання", "правило: не розгортати в пʼятницю", "у їдальні подають суп опівдні"},
		{"uk morphology", "налаштування бази даних", "налаштувати підключення до бази даних", "квартальний дохід зріс у Європі"},
		{"latin diacritics", "cafe menu", "Café MENÜ du jour", "train schedule for Monday"},
	}
	e := NewHash(0)
	for _, tt := range tests {
		q := embedOne(t, e, tt.query)
		rel := cosine(q, embedOne(t, e, tt.related))
		unrel := cosine(q, embedOne(t, e, tt.unrelated))
		if rel <= unrel {
			t.Errorf("%s: cos(related)=%.3f <= cos(unrelated)=%.3f", tt.name, rel, unrel)
		}
		t.Logf("%s: related %.3f unrelated %.3f", tt.name, rel, unrel)
	}
}

// TestHashVariants checks that morphological variants of a word are closer
// to it than an unrelated word of similar length.
func TestHashVariants(t *testing.T) {
	tests := []struct{ word, variant, other string }{
		{"deploy", "deployment", "elephant"},
		{"deploy", "deployed", "caravan"},
		{"configuration", "configure", "strawberries"},
		{"правила", "правило", "молоко"},
		{"правила", "правилами", "черепаха"},
		{"деплой", "деплоя", "корова"},
		{"розгортання", "розгортати", "кукурудза"},
		{"правила", "правил", "вулиця"},
	}
	e := NewHash(0)
	for _, tt := range tests {
		w := embedOne(t, e, tt.word)
		v := cosine(w, embedOne(t, e, tt.variant))
		o := cosine(w, embedOne(t, e, tt.other))
		if v <= o || v < 0.3 {
			t.Errorf("%s: cos(%s)=%.3f, cos(%s)=%.3f", tt.word, tt.variant, v, tt.other, o)
		}
		t.Logf("%s: %s %.3f %s %.3f", tt.word, tt.variant, v, tt.other, o)
	}
}

// TestHashRetrieval ranks a small mixed-language corpus for queries: the
// intended record must come first.
func TestHashRetrieval(t *testing.T) {
	docs := []string{
		"Deployment rules: production deploys happen only from the release branch, never on Fridays.",
		"The billing service retries failed card payments three times with exponential backoff.",
		"Database migrations must be reviewed by the DBA before they run in production.",
		"Правило: не деплоить в пятницу после 16:00, откат делать по runbook.",
		"Счета клиентам выставляются первого числа каждого месяца.",
		"Правила розгортання: розгортаємо тільки з гілки релізу, ніколи не в пʼятницю.",
		"Оператор попросив завжди відповідати українською мовою.",
	}
	queries := []struct {
		q    string
		want int
	}{
		{"when can we deploy to production", 0},
		{"payment retry policy", 1},
		{"who reviews a migration", 2},
		{"можно ли деплоить в пятницу", 3},
		{"когда выставляют счета", 4},
		{"правила розгортання релізу", 5},
		{"якою мовою відповідати оператору", 6},
	}
	e := NewHash(0)
	vecs, err := e.Embed(context.Background(), docs)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range queries {
		q := embedOne(t, e, tt.q)
		best, bestScore := -1, -2.0
		for i, v := range vecs {
			if s := cosine(q, v); s > bestScore {
				best, bestScore = i, s
			}
		}
		if best != tt.want {
			t.Errorf("%q: best = %d (%.3f), want %d (%.3f)", tt.q, best, bestScore, tt.want, cosine(q, vecs[tt.want]))
		}
	}
}

func TestHashVectors(t *testing.T) {
	e := NewHash(0)
	if got := e.Info(); got.Name != "hash" || got.Dim != DefaultHashDim {
		t.Errorf("Info() = %+v", got)
	}
	if got := NewHash(64).Info().Dim; got != 64 {
		t.Errorf("NewHash(64) dim = %d", got)
	}
	texts := []string{"", "   ...!?  ", "hello", "Hello, WORLD", "Привіт, світе", "a", "42", strings.Repeat("memory is the agent's notebook ", 200)}
	vecs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != len(texts) {
		t.Fatalf("got %d vectors for %d texts", len(vecs), len(texts))
	}
	for i, v := range vecs {
		if len(v) != DefaultHashDim {
			t.Errorf("%q: len = %d", texts[i], len(v))
		}
		var n float64
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("%q: non-finite component", texts[i])
			}
			n += float64(x) * float64(x)
		}
		want := 1.0
		if i < 2 { // no tokens: the zero vector
			want = 0
		}
		if math.Abs(n-want) > 1e-5 {
			t.Errorf("%q: |v|² = %f, want %f", texts[i], n, want)
		}
	}
	// Case and punctuation do not matter; the same text gives the same vector.
	if c := cosine(vecs[2], embedOne(t, e, "HELLO!")); math.Abs(c-1) > 1e-6 {
		t.Errorf("cos(hello, HELLO!) = %f, want 1", c)
	}
	// Decomposed and precomposed accents fold alike.
	if c := cosine(embedOne(t, e, "Cafe\u0301 crème"), embedOne(t, e, "café creme")); math.Abs(c-1) > 1e-6 {
		t.Errorf("cos(decomposed, precomposed) = %f, want 1", c)
	}
	out, err := e.Embed(context.Background(), nil)
	if err != nil || len(out) != 0 {
		t.Errorf("Embed(nil) = %v, %v", out, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Embed(ctx, texts); err == nil {
		t.Error("Embed with a cancelled context succeeded")
	}
}

// TestHashStable pins a few components so that a change of the feature
// scheme, which would silently invalidate every stored vector, fails here.
// Update the figures only together with a new embedder name.
func TestHashStable(t *testing.T) {
	v := embedOne(t, NewHash(0), "Deployment rules: never deploy on Friday. Правила деплоя.")
	var got string
	var nz int
	var sum float64
	for i, x := range v {
		if x != 0 {
			nz++
			if nz <= 4 {
				got += fmt.Sprintf("%d:%.4f ", i, x)
			}
		}
		sum += float64(x)
	}
	got += fmt.Sprintf("nz=%d sum=%.4f", nz, sum)
	const want = "10:0.0309 16:-0.0415 17:0.1338 24:-0.0309 nz=98 sum=-1.7357"
	if got != want {
		t.Errorf("hash vector changed:\n got %s\nwant %s", got, want)
	}
}

func TestHashConcurrent(t *testing.T) {
	e := NewHash(0)
	texts := []string{"deploy rules", "правила деплоя", "правила розгортання"}
	want, _ := e.Embed(context.Background(), texts)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				got, err := e.Embed(context.Background(), texts)
				if err != nil {
					t.Error(err)
					return
				}
				for i := range got {
					if cosine(got[i], want[i]) < 0.99999 {
						t.Errorf("%q: vectors differ between calls", texts[i])
					}
				}
			}
		}()
	}
	wg.Wait()
}

// benchTexts are typical ~200-character records.
var benchTexts = []string{
	"Decision: deploy the billing service only from the release branch; rollbacks go through the runbook and need a second approver on call.",
	"Правило: не деплоить в пятницу после 16:00. Если релиз горит, согласовать с дежурным и записать причину в журнал инцидентов.",
	"Оператор попросив завжди відповідати українською мовою та посилатися на номер тікета в кожному звіті про розгортання сервісу.",
	"The payments API retries failed card charges three times with exponential backoff, then marks the invoice as past due and notifies.",
}

// BenchmarkHash embeds typical 200-character texts one call per text.
func BenchmarkHash(b *testing.B) {
	e := NewHash(0)
	ctx := context.Background()
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if _, err := e.Embed(ctx, benchTexts[n%len(benchTexts):n%len(benchTexts)+1]); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "texts/s")
}

// BenchmarkHashBatch embeds 64 texts per call.
func BenchmarkHashBatch(b *testing.B) {
	e := NewHash(0)
	ctx := context.Background()
	batch := make([]string, 64)
	for i := range batch {
		batch[i] = benchTexts[i%len(benchTexts)]
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if _, err := e.Embed(ctx, batch); err != nil {
			b.Fatal(err)
		}
		n += len(batch)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "texts/s")
}

func TestEmbedWeighted(t *testing.T) {
	ctx := context.Background()
	h := NewHash(256)
	plain, _ := h.Embed(ctx, []string{"alpha reactor"})
	same, err := h.EmbedWeighted(ctx, "alpha reactor", func(string) float64 { return 1 })
	if err != nil {
		t.Fatal(err)
	}
	for i := range plain[0] {
		if plain[0][i] != same[i] {
			t.Fatal("weight 1 must give the plain embedding")
		}
	}
	alone, _ := h.Embed(ctx, []string{"alpha"})
	muted, _ := h.EmbedWeighted(ctx, "alpha reactor", func(stem string) float64 {
		if stem == "reactor" {
			return 0
		}
		return 1
	})
	for i := range alone[0] {
		if d := alone[0][i] - muted[i]; d > 1e-6 || d < -1e-6 {
			t.Fatalf("a word of weight 0 still shows: dim %d %v vs %v", i, muted[i], alone[0][i])
		}
	}
	c := NewCached(h, 8).(*Cached)
	viaCache, _ := c.EmbedWeighted(ctx, "alpha reactor", func(string) float64 { return 1 })
	if viaCache[0] != plain[0][0] {
		t.Fatal("the cache does not pass weights through")
	}
}

// The hash embedder's function words are frozen (stored vectors depend on
// them) and all of them are function words of the word model.
func TestStopListIsFrozen(t *testing.T) {
	sum := sha256.Sum256([]byte(strings.Join(stopList(), " ")))
	if got := hex.EncodeToString(sum[:]); got != "c7b397773b9fba5563d9319a3c685ac181a3969784c312258d7e56462c7b30aa" {
		t.Errorf("the hash embedder's stop list changed (sha256 %s): stored vectors depend on it", got)
	}
	for _, w := range stopList() {
		if !words.IsFunctionWord(w) {
			t.Errorf("%q is in the hash embedder's stop list but no function word of the word model", w)
		}
	}
}
