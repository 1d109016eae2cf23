package embed

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// testTensor is a tensor to write into a test safetensors file.
type testTensor struct {
	dtype string
	shape []int
	data  []byte
}

// safetensorsBytes writes tensors in the safetensors format, names sorted,
// data packed in that order.
func safetensorsBytes(t testing.TB, ts map[string]testTensor) []byte {
	t.Helper()
	names := make([]string, 0, len(ts))
	for n := range ts {
		names = append(names, n)
	}
	sort.Strings(names)
	header := map[string]any{"__metadata__": map[string]string{"format": "pt"}}
	var data []byte
	for _, n := range names {
		tt := ts[n]
		header[n] = map[string]any{"dtype": tt.dtype, "shape": tt.shape, "data_offsets": []int{len(data), len(data) + len(tt.data)}}
		data = append(data, tt.data...)
	}
	h, err := json.Marshal(header)
	if err != nil {
		t.Fatal(err)
	}
	for len(h)%8 != 0 { // the format pads the header with spaces
		h = append(h, ' ')
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
	out = append(out, h...)
	return append(out, data...)
}

func f32Bytes(xs []float32) []byte {
	var b []byte
	for _, x := range xs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

func i64Bytes(xs []int64) []byte {
	var b []byte
	for _, x := range xs {
		b = binary.LittleEndian.AppendUint64(b, uint64(x))
	}
	return b
}

// f32ToF16 converts values exactly representable in half precision (normal
// numbers and zero only), for writing test models.
func f32ToF16(t testing.TB, x float32) uint16 {
	t.Helper()
	if x == 0 {
		return 0
	}
	bits := math.Float32bits(x)
	sign := uint16(bits>>31) << 15
	exp := int(bits>>23&0xff) - 127 + 15
	mant := bits & 0x7fffff
	if exp <= 0 || exp >= 31 || mant&0x1fff != 0 {
		t.Fatalf("%v is not exactly a normal half", x)
	}
	return sign | uint16(exp)<<10 | uint16(mant>>13)
}

// The tiny WordPiece model: a BERT-style vocabulary of a few dozen tokens.
var tinyVocab = []string{
	"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",
	"the", "cat", "sat", "on", "mat", "dog", "ran", "to", "park",
	"##s", "##ning", "run", "play", "##ed", "cafe", "naive", "猫", "狗",
	".", ",", "!", "?", "a", "##b", "мир", "привет", "i", "like", "tea",
}

const tinyDim = 6

// tinyRow is the embedding row of token id in the tiny model: multiples of
// 1/8 in [-2, 2), exact in F16 and BF16 alike.
func tinyRow(id int) []float32 {
	r := make([]float32, tinyDim)
	for j := range r {
		r[j] = float32((id*7+j*13)%32-16) / 8
	}
	return r
}

func tinyTokenizerJSON(t testing.TB) []byte {
	t.Helper()
	vocab := map[string]int{}
	for i, tok := range tinyVocab {
		vocab[tok] = i
	}
	var added []map[string]any
	for i, tok := range tinyVocab[:5] {
		added = append(added, map[string]any{"id": i, "content": tok, "special": true, "single_word": false,
			"lstrip": false, "rstrip": false, "normalized": false})
	}
	doc := map[string]any{
		"version":        "1.0",
		"truncation":     nil,
		"padding":        nil,
		"added_tokens":   added,
		"normalizer":     map[string]any{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": nil, "lowercase": true},
		"pre_tokenizer":  map[string]any{"type": "BertPreTokenizer"},
		"post_processor": map[string]any{"type": "TemplateProcessing"},
		"decoder":        map[string]any{"type": "WordPiece", "prefix": "##", "cleanup": true},
		"model": map[string]any{"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
			"max_input_chars_per_word": 100, "vocab": vocab},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeTinyModel writes the tiny model into a new folder named name with the
// embeddings in dtype (F32, F16 or BF16) and extra tensors, and returns it.
func writeTinyModel(t testing.TB, name, dtype string, extra map[string]testTensor) string {
	t.Helper()
	var data []byte
	for id := range tinyVocab {
		for _, x := range tinyRow(id) {
			switch dtype {
			case "F32":
				data = binary.LittleEndian.AppendUint32(data, math.Float32bits(x))
			case "F16":
				data = binary.LittleEndian.AppendUint16(data, f32ToF16(t, x))
			case "BF16":
				data = binary.LittleEndian.AppendUint16(data, uint16(math.Float32bits(x)>>16))
			default:
				t.Fatalf("dtype %s", dtype)
			}
		}
	}
	ts := map[string]testTensor{"embeddings": {dtype, []int{len(tinyVocab), tinyDim}, data}}
	for k, v := range extra {
		ts[k] = v
	}
	dir := filepath.Join(t.TempDir(), name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "model.safetensors"), safetensorsBytes(t, ts))
	writeFile(t, filepath.Join(dir, "tokenizer.json"), tinyTokenizerJSON(t))
	writeFile(t, filepath.Join(dir, "config.json"), []byte(`{"model_type":"model2vec","normalize":true,"hidden_dim":6}`))
	return dir
}

func writeFile(t testing.TB, p string, b []byte) {
	t.Helper()
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// reference computes a Model2Vec vector by hand from token strings: rows
// (scaled by weight, through mapping) averaged, then L2-normalised.
func reference(tokens []string, weights []float32, mapping []int64) []float32 {
	id := map[string]int{}
	for i, tok := range tinyVocab {
		id[tok] = i
	}
	mean := make([]float64, tinyDim)
	for _, tok := range tokens {
		i, ok := id[tok]
		if !ok {
			panic("reference: no token " + tok)
		}
		row := i
		if mapping != nil {
			row = int(mapping[i])
		}
		w := 1.0
		if weights != nil {
			w = float64(weights[i])
		}
		for j, x := range tinyRow(row) {
			mean[j] += w * float64(x) / float64(len(tokens))
		}
	}
	var n float64
	for _, x := range mean {
		n += x * x
	}
	out := make([]float32, tinyDim)
	if n == 0 {
		return out
	}
	for j, x := range mean {
		out[j] = float32(x / math.Sqrt(n))
	}
	return out
}

func assertVec(t *testing.T, label string, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: dim %d, want %d", label, len(got), len(want))
	}
	for j := range got {
		if math.Abs(float64(got[j]-want[j])) > 1e-6 {
			t.Fatalf("%s:\n got %v\nwant %v", label, got, want)
		}
	}
}

// staticCases are texts with the tokens Model2Vec pools for them, worked
// out by hand from the BERT normalizer, pre-tokenizer and WordPiece rules.
var staticCases = []struct {
	text   string
	tokens []string
}{
	{"The cat sat on the mat.", []string{"the", "cat", "sat", "on", "the", "mat", "."}},
	{"The cats ran to the park!", []string{"the", "cat", "##s", "ran", "to", "the", "park", "!"}},
	{"running, played", []string{"run", "##ning", ",", "play", "##ed"}},
	{"  CAFÉ\tnaïve\n", []string{"cafe", "naive"}},                 // lower-case, accents stripped, whitespace
	{"猫和狗", []string{"猫", "狗"}},                                    // CJK split per character; 和 unknown
	{"Привет, мир", []string{"привет", ",", "мир"}},                // Cyrillic
	{"I like tea xyzzy", []string{"i", "like", "tea"}},             // xyzzy → [UNK], left out
	{"cats catz", []string{"cat", "##s"}},                          // catz: "z" unknown → whole word [UNK]
	{"[CLS] tea [SEP]", []string{"tea"}},                           // brackets unknown, cls/sep not words
	{"ab", []string{"a", "##b"}},                                   // continuation piece
	{"the \u200bcat \x00dog\u200b", []string{"the", "cat", "dog"}}, // format and control characters dropped
	{"tea\u00a0cat", []string{"tea", "cat"}},                       // non-breaking space splits
	{"dogs? dog.", []string{"dog", "##s", "?", "dog", "."}},        // punctuation isolated
	{"CAT CAT cat", []string{"cat", "cat", "cat"}},                 // repeats count
}

// TestStaticMatchesReference checks vectors of a model the test writes
// against vectors computed by hand from its rows.
func TestStaticMatchesReference(t *testing.T) {
	dir := writeTinyModel(t, "tiny-wordpiece", "F32", nil)
	s, err := NewStatic(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Info(); got.Name != "static:tiny-wordpiece" || got.Dim != tinyDim {
		t.Fatalf("Info() = %+v", got)
	}
	texts := make([]string, len(staticCases))
	for i, c := range staticCases {
		texts[i] = c.text
	}
	vs, err := s.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range staticCases {
		assertVec(t, fmt.Sprintf("%q", c.text), vs[i], reference(c.tokens, nil, nil))
		if n := cosine(vs[i], vs[i]); math.Abs(n-1) > 1e-5 {
			t.Errorf("%q: squared norm %v", c.text, n)
		}
	}
}

// TestStaticTokens checks the token ids behind the reference cases, so a
// wrong tokenization cannot hide behind equal vectors.
func TestStaticTokens(t *testing.T) {
	tok, err := parseTokenizer(tinyTokenizerJSON(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := tok.ids("catz", nil); len(got) != 1 || int(got[0]) != tok.unk {
		t.Errorf("catz → %v, want [UNK]", got)
	}
	got := tok.ids("The cats ran", nil)
	want := []int32{5, 6, 14, 11}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ids = %v, want %v", got, want)
	}
}

// TestStaticZeroVector: a text with no known token gives the zero vector.
func TestStaticZeroVector(t *testing.T) {
	s, err := NewStatic(writeTinyModel(t, "tiny", "F32", nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"", "   ", "xyzzy qwerty", "[CLS]", "和"} {
		vs, err := s.Embed(context.Background(), []string{text})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range vs[0] {
			if x != 0 {
				t.Fatalf("%q: %v, want zero vector", text, vs[0])
			}
		}
	}
}

// TestStaticWeightsAndMapping checks a model with per-token weights and a
// token-to-row mapping (vocabulary-quantised Model2Vec models).
func TestStaticWeightsAndMapping(t *testing.T) {
	n := len(tinyVocab)
	weights := make([]float32, n)
	mapping := make([]int64, n)
	for i := range weights {
		weights[i] = 0.25 + float32(i%5)*0.5
		mapping[i] = int64((i * 11) % n)
	}
	dir := writeTinyModel(t, "weighted", "F32", map[string]testTensor{
		"weights": {"F32", []int{n}, f32Bytes(weights)},
		"mapping": {"I64", []int{n}, i64Bytes(mapping)},
	})
	s, err := NewStatic(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range staticCases {
		vs, err := s.Embed(context.Background(), []string{c.text})
		if err != nil {
			t.Fatal(err)
		}
		assertVec(t, c.text, vs[0], reference(c.tokens, weights, mapping))
	}
}

// TestStaticHalfPrecision checks that F16 and BF16 models give the F32
// model's vectors (the tiny rows are exact in both).
func TestStaticHalfPrecision(t *testing.T) {
	f32, err := NewStatic(writeTinyModel(t, "m", "F32", nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, dt := range []string{"F16", "BF16"} {
		s, err := NewStatic(writeTinyModel(t, "m", dt, nil))
		if err != nil {
			t.Fatal(dt, err)
		}
		for _, c := range staticCases {
			a, _ := f32.Embed(context.Background(), []string{c.text})
			b, _ := s.Embed(context.Background(), []string{c.text})
			assertVec(t, dt+" "+c.text, b[0], a[0])
		}
	}
}

// TestF16Decode checks half-precision decoding on known bit patterns.
func TestF16Decode(t *testing.T) {
	tests := []struct {
		bits uint16
		want float64
	}{
		{0x3C00, 1}, {0xC000, -2}, {0x3800, 0.5}, {0x7BFF, 65504},
		{0x0400, math.Ldexp(1, -14)},    // smallest normal
		{0x0001, math.Ldexp(1, -24)},    // smallest subnormal
		{0x03FF, math.Ldexp(1023, -24)}, // largest subnormal
		{0x8001, -math.Ldexp(1, -24)},   // negative subnormal
		{0x3555, 0.333251953125},        // 1/3 rounded
		{0x0000, 0}, {0x7C00, math.Inf(1)}, {0xFC00, math.Inf(-1)},
	}
	for _, tt := range tests {
		if got := float64(f16ToF32(tt.bits)); got != tt.want {
			t.Errorf("f16ToF32(%#04x) = %v, want %v", tt.bits, got, tt.want)
		}
	}
	if got := f16ToF32(0x8000); got != 0 || !math.Signbit(float64(got)) {
		t.Errorf("f16ToF32(0x8000) = %v, want -0", got)
	}
	if got := f16ToF32(0x7E00); !math.IsNaN(float64(got)) {
		t.Errorf("f16ToF32(0x7E00) = %v, want NaN", got)
	}
	// Every finite half survives the round trip through float32 bits.
	for h := 0; h < 1<<16; h++ {
		f := f16ToF32(uint16(h))
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) || f == 0 {
			continue
		}
		if exp := int(h>>10) & 0x1f; exp != 0 && f32ToF16(t, f) != uint16(h) {
			t.Fatalf("%#04x → %v → %#04x", h, f, f32ToF16(t, f))
		}
	}
}

// TestStaticTruncates: only the first StaticMaxTokens tokens count.
func TestStaticTruncates(t *testing.T) {
	s, err := NewStatic(writeTinyModel(t, "m", "F32", nil))
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("cat ", StaticMaxTokens) + strings.Repeat("dog ", 100)
	vs, err := s.Embed(context.Background(), []string{long, "cat"})
	if err != nil {
		t.Fatal(err)
	}
	assertVec(t, "long", vs[0], vs[1])
}

// TestStaticLoadErrors: broken model folders fail with an error naming the
// problem, never a panic.
func TestStaticLoadErrors(t *testing.T) {
	good := safetensorsBytes(t, map[string]testTensor{"embeddings": {"F32", []int{len(tinyVocab), 2}, make([]byte, 4*2*len(tinyVocab))}})
	small := safetensorsBytes(t, map[string]testTensor{"embeddings": {"F32", []int{3, 2}, make([]byte, 24)}})
	badMap := safetensorsBytes(t, map[string]testTensor{
		"embeddings": {"F32", []int{len(tinyVocab), 2}, make([]byte, 4*2*len(tinyVocab))},
		"mapping":    {"I64", []int{len(tinyVocab)}, i64Bytes(append(make([]int64, len(tinyVocab)-1), 999))},
	})
	badWeights := safetensorsBytes(t, map[string]testTensor{
		"embeddings": {"F32", []int{len(tinyVocab), 2}, make([]byte, 4*2*len(tinyVocab))},
		"weights":    {"F32", []int{3}, make([]byte, 12)},
	})
	bpe := []byte(`{"model":{"type":"BPE","vocab":{"a":0},"merges":[]}}`)
	tests := []struct {
		name       string
		model, tok []byte
		want       string
	}{
		{"no model file", nil, tinyTokenizerJSON(t), "model.safetensors"},
		{"no tokenizer", good, nil, "tokenizer.json"},
		{"garbage model", []byte("not a model"), tinyTokenizerJSON(t), "header"},
		{"too few rows", small, tinyTokenizerJSON(t), "the tokenizer has"},
		{"mapping out of range", badMap, tinyTokenizerJSON(t), "mapping sends token"},
		{"weights wrong length", badWeights, tinyTokenizerJSON(t), "weights have shape"},
		{"BPE refused", good, bpe, `"BPE" is not supported`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.model != nil {
				writeFile(t, filepath.Join(dir, "model.safetensors"), tt.model)
			}
			if tt.tok != nil {
				writeFile(t, filepath.Join(dir, "tokenizer.json"), tt.tok)
			}
			_, err := NewStatic(dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestStaticModelName: folder names, Hugging Face cache snapshots and
// sentence-transformers sub-folders.
func TestStaticModelName(t *testing.T) {
	tests := map[string]string{
		"models/potion-base-8M": "potion-base-8M",
		"hub/models--minishlab--potion-base-8M/snapshots/0123456789abcdef0123456789abcdef01234567": "minishlab/potion-base-8M",
		"st-model/0_StaticEmbedding": "st-model",
	}
	for dir, want := range tests {
		if got := staticModelName(dir); got != want {
			t.Errorf("staticModelName(%q) = %q, want %q", dir, got, want)
		}
	}
}

// TestStaticSentenceTransformersLayout loads a model kept in
// 0_StaticEmbedding/ with the tensor named embedding.weight.
func TestStaticSentenceTransformersLayout(t *testing.T) {
	root := filepath.Join(t.TempDir(), "st")
	sub := filepath.Join(root, "0_StaticEmbedding")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	var rows []float32
	for id := range tinyVocab {
		rows = append(rows, tinyRow(id)...)
	}
	writeFile(t, filepath.Join(sub, "model.safetensors"), safetensorsBytes(t, map[string]testTensor{
		"embedding.weight": {"F32", []int{len(tinyVocab), tinyDim}, f32Bytes(rows)}}))
	writeFile(t, filepath.Join(sub, "tokenizer.json"), tinyTokenizerJSON(t))
	s, err := NewStatic(root)
	if err != nil {
		t.Fatal(err)
	}
	if s.Info().Name != "static:st" {
		t.Errorf("name %q", s.Info().Name)
	}
	vs, _ := s.Embed(context.Background(), []string{"the cat"})
	assertVec(t, "the cat", vs[0], reference([]string{"the", "cat"}, nil, nil))
}

// TestStaticCanceled: a done context fails the call.
func TestStaticCanceled(t *testing.T) {
	s, err := NewStatic(writeTinyModel(t, "m", "F32", nil))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Embed(ctx, []string{"cat"}); err == nil {
		t.Fatal("want an error")
	}
}

// FuzzStaticEmbed: any text gives a unit or zero vector, never NaN.
func FuzzStaticEmbed(f *testing.F) {
	for _, c := range staticCases {
		f.Add(c.text)
	}
	f.Add("\xff\xfe invalid utf-8 \xc3")
	f.Add(strings.Repeat("ab", 300))
	s, err := NewStatic(writeTinyModel(f, "m", "F32", nil))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		vs, err := s.Embed(context.Background(), []string{text})
		if err != nil {
			t.Fatal(err)
		}
		n := cosine(vs[0], vs[0])
		if math.IsNaN(n) || (n != 0 && math.Abs(n-1) > 1e-4) {
			t.Fatalf("%q: squared norm %v", text, n)
		}
	})
}

// benchModelDir writes a WordPiece model of potion-base-8M's size: about
// 26,000 tokens (one- to three-letter pieces, word-initial and continuing,
// plus the whole words of the benchmark texts) × 256 dimensions.
func benchModelDir(b *testing.B, texts []string) string {
	b.Helper()
	vocab := map[string]int{"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3}
	add := func(tok string) {
		if _, ok := vocab[tok]; !ok {
			vocab[tok] = len(vocab)
		}
	}
	for _, p := range ".,:;!?'\"()-/" {
		add(string(p))
	}
	letters := "abcdefghijklmnopqrstuvwxyz0123456789"
	var pieces func(prefix string, n int)
	pieces = func(prefix string, n int) {
		if n == 0 {
			return
		}
		for _, r := range letters {
			p := prefix + string(r)
			if len(p) <= 2 || strings.ContainsRune("aeiounrst", r) {
				add(p)
				add("##" + p)
			}
			pieces(p, n-1)
		}
	}
	pieces("", 3)
	for _, t := range texts {
		for _, w := range strings.Fields(strings.ToLower(t)) {
			add(strings.Trim(w, ".,:;!?'\"()"))
		}
	}
	const dim = 256
	rows := make([]float32, len(vocab)*dim)
	for i := range rows {
		rows[i] = float32(i%97-48) / 64
	}
	tj, err := json.Marshal(map[string]any{
		"normalizer":    map[string]any{"type": "BertNormalizer", "lowercase": true},
		"pre_tokenizer": map[string]any{"type": "BertPreTokenizer"},
		"model":         map[string]any{"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "vocab": vocab},
	})
	if err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(b.TempDir(), "bench")
	if err := os.Mkdir(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	writeFile(b, filepath.Join(dir, "tokenizer.json"), tj)
	writeFile(b, filepath.Join(dir, "model.safetensors"), safetensorsBytes(b, map[string]testTensor{
		"embeddings": {"F32", []int{len(vocab), dim}, f32Bytes(rows)}}))
	return dir
}

// BenchmarkStaticEmbed embeds the records BenchmarkHash embeds, in one
// batch, with a model of potion-base-8M's size.
func BenchmarkStaticEmbed(b *testing.B) {
	texts := benchTexts
	s, err := NewStatic(benchModelDir(b, texts))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Embed(ctx, texts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(texts))/b.Elapsed().Seconds(), "texts/s")
}

// BenchmarkStaticLoad measures loading a model of potion-base-8M's size.
func BenchmarkStaticLoad(b *testing.B) {
	dir := benchModelDir(b, nil)
	b.ResetTimer()
	for b.Loop() {
		if _, err := NewStatic(dir); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStaticEmbedUnigram embeds the same texts with a Unigram model
// shaped like newer Model2Vec models: multi-word pieces, one Viterbi pass
// over the whole text (Metaspace without split), about 14,000 pieces.
func BenchmarkStaticEmbedUnigram(b *testing.B) {
	type piece struct {
		tok   string
		score float64
	}
	vocab := []piece{{"<unk>", 0}}
	seen := map[string]bool{}
	add := func(tok string, score float64) {
		if !seen[tok] {
			seen[tok] = true
			vocab = append(vocab, piece{tok, score})
		}
	}
	letters := "abcdefghijklmnopqrstuvwxyz0123456789.,:;!?'\"()-/_"
	for _, a := range letters {
		add(string(a), -8)
		add("▁"+string(a), -7)
		for _, c := range "abcdefghijklmnopqrstuvwxyz" {
			add(string(a)+string(c), -6)
			add("▁"+string(a)+string(c), -5)
			for _, d := range "aeiounrst" {
				add(string(a)+string(c)+string(d), -5)
			}
		}
	}
	for _, t := range benchTexts {
		words := strings.Fields(strings.ToLower(t))
		for i, w := range words {
			add("▁"+w, -3)
			if i > 0 {
				add("▁"+words[i-1]+"▁"+w, -2.5)
			}
		}
	}
	vj := make([][2]any, len(vocab))
	for i, p := range vocab {
		vj[i] = [2]any{p.tok, p.score}
	}
	tj, err := json.Marshal(map[string]any{
		"normalizer": map[string]any{"type": "Sequence", "normalizers": []any{
			map[string]any{"type": "BertNormalizer", "lowercase": true},
			map[string]any{"type": "Replace", "pattern": map[string]any{"Regex": "\\s+"}, "content": " "},
			map[string]any{"type": "Strip", "strip_left": false, "strip_right": true},
		}},
		"pre_tokenizer": map[string]any{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": false},
		"model":         map[string]any{"type": "Unigram", "unk_id": 0, "vocab": vj},
	})
	if err != nil {
		b.Fatal(err)
	}
	const dim = 256
	rows := make([]float32, len(vocab)*dim)
	for i := range rows {
		rows[i] = float32(i%97-48) / 64
	}
	dir := filepath.Join(b.TempDir(), "uni")
	if err := os.Mkdir(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	writeFile(b, filepath.Join(dir, "tokenizer.json"), tj)
	writeFile(b, filepath.Join(dir, "model.safetensors"), safetensorsBytes(b, map[string]testTensor{
		"embeddings": {"F32", []int{len(vocab), dim}, f32Bytes(rows)}}))
	s, err := NewStatic(dir)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Embed(ctx, benchTexts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(benchTexts))/b.Elapsed().Seconds(), "texts/s")
}
