package embed

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// unigramJSON is a tokenizer.json shaped like the ones Model2Vec writes for
// its newer models: a Unigram model with multi-word pieces, the BERT
// normalizer followed by punctuation spacing, and Metaspace without split.
const unigramJSON = `{
  "version": "1.0",
  "added_tokens": [{"id": 0, "content": "<unk>", "special": true}],
  "normalizer": {"type": "Sequence", "normalizers": [
    {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": true},
    {"type": "Replace", "pattern": {"String": ","}, "content": " , "},
    {"type": "Replace", "pattern": {"Regex": "\\s+"}, "content": " "},
    {"type": "Strip", "strip_left": false, "strip_right": true}
  ]},
  "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": false},
  "model": {"type": "Unigram", "unk_id": 0, "byte_fallback": false, "vocab": [
    ["<unk>", 0], ["▁", -3], ["▁hello", -2], ["▁world", -2], ["▁hello▁world", -1.5],
    ["h", -4], ["e", -4], ["l", -4], ["o", -4], ["▁he", -3], ["llo", -3], [",", -3], ["▁,", -2.5]
  ]}
}`

func TestUnigram(t *testing.T) {
	tok, err := parseTokenizer([]byte(unigramJSON))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		text string
		want []int32
	}{
		{"Hello   World", []int32{4}},       // the multi-word piece beats two words
		{"hello, world", []int32{2, 12, 3}}, // "▁hello▁,▁world"
		{"hellx", []int32{9, 7, 7, 0}},      // ▁he l l <unk>: best path with one unknown
		{"world hello", []int32{3, 2}},      // no "▁world▁hello" piece
		{"", nil},                           // nothing
		{"ÉH", []int32{1, 6, 5}},            // accents stripped, lower-cased: ▁ e h
		{"l\u00a0o", []int32{1, 7, 1, 8}},   // NBSP becomes a space: ▁ l ▁ o
		{"hello\tworld\n\n", []int32{4}},    // whitespace collapsed, right-stripped
	}
	for _, tt := range tests {
		if got := tok.ids(tt.text, nil); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("ids(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// TestStaticUnigram pools a Unigram model, leaving <unk> out.
func TestStaticUnigram(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "uni")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var rows []float32
	for id := 0; id < 13; id++ {
		rows = append(rows, tinyRow(id)...)
	}
	writeFile(t, filepath.Join(dir, "model.safetensors"), safetensorsBytes(t, map[string]testTensor{
		"embeddings": {"F32", []int{13, tinyDim}, f32Bytes(rows)}}))
	writeFile(t, filepath.Join(dir, "tokenizer.json"), []byte(unigramJSON))
	s, err := NewStatic(dir)
	if err != nil {
		t.Fatal(err)
	}
	vs, err := s.Embed(context.Background(), []string{"hellx", "he ll", "x", ""})
	if err != nil {
		t.Fatal(err)
	}
	// hellx → ▁he l l <unk>; "▁he▁ll" → ▁he ▁ l l: other tokens, so build by ids.
	want := func(ids ...int) []float32 {
		var toks []string
		for _, id := range ids {
			toks = append(toks, tinyVocab[id])
		}
		return reference(toks, nil, nil) // tinyRow(i) is row i in both models
	}
	assertVec(t, "hellx", vs[0], want(9, 7, 7))
	assertVec(t, "he ll", vs[1], want(9, 1, 7, 7))
	assertVec(t, "x", vs[2], want(1)) // ▁ <unk>
	assertVec(t, "empty", vs[3], make([]float32, tinyDim))
}

func TestPreTokenizers(t *testing.T) {
	tests := []struct {
		json, text string
		want       []string
	}{
		{`{"type":"BertPreTokenizer"}`, "Hello, world! a+b=c  ¿qué?", []string{"Hello", ",", "world", "!", "a", "+", "b", "=", "c", "¿", "qué", "?"}},
		{`{"type":"Whitespace"}`, "it's 3.5 km_h!!", []string{"it", "'", "s", "3", ".", "5", "km_h", "!!"}},
		{`{"type":"WhitespaceSplit"}`, " a\tb.c  d ", []string{"a", "b.c", "d"}},
		{`{"type":"Punctuation"}`, "a.b c", []string{"a", ".", "b c"}},
		{`{"type":"Metaspace","replacement":"▁","prepend_scheme":"always","split":true}`, "a bc  d", []string{"▁a", "▁bc", "▁", "▁d"}},
		{`{"type":"Metaspace","replacement":"▁","add_prefix_space":false}`, "a b", []string{"a", "▁b"}},
		{`{"type":"Sequence","pretokenizers":[{"type":"WhitespaceSplit"},{"type":"Punctuation","behavior":"Isolated"}]}`, "x.y z", []string{"x", ".", "y", "z"}},
	}
	for _, tt := range tests {
		ps, err := parsePreTokenizer(json.RawMessage(tt.json), 0)
		if err != nil {
			t.Fatalf("%s: %v", tt.json, err)
		}
		words := []string{tt.text}
		for _, p := range ps {
			words = p(words)
		}
		if strings.Join(words, "|") != strings.Join(tt.want, "|") {
			t.Errorf("%s on %q = %q, want %q", tt.json, tt.text, words, tt.want)
		}
	}
}

func TestNormalizers(t *testing.T) {
	tests := []struct {
		json, text, want string
	}{
		{`{"type":"BertNormalizer","lowercase":false}`, "Ça va 中文", "Ça va  中  文 "},
		{`{"type":"BertNormalizer","lowercase":true,"strip_accents":false}`, "Ça", "ça"},
		{`{"type":"BertNormalizer"}`, "Ёлка Ĳ", "елка ĳ"},
		{`{"type":"Sequence","normalizers":[{"type":"NFKC"},{"type":"Lowercase"}]}`, "Ⅻ ﬁ", "xii fi"},
		{`{"type":"Sequence","normalizers":[{"type":"NFD"},{"type":"StripAccents"}]}`, "résumé", "resume"},
		{`{"type":"Prepend","prepend":"▁"}`, "a", "▁a"},
		{`{"type":"Strip","strip_left":true,"strip_right":false}`, "  a  ", "a  "},
		{`{"type":"Replace","pattern":{"Regex":"[0-9]+"},"content":"#"}`, "a12b3", "a#b#"},
		{`null`, "Same", "Same"},
	}
	for _, tt := range tests {
		ns, err := parseNormalizer(json.RawMessage(tt.json), 0)
		if err != nil {
			t.Fatalf("%s: %v", tt.json, err)
		}
		got := tt.text
		for _, n := range ns {
			got = n(got)
		}
		if got != tt.want {
			t.Errorf("%s on %q = %q, want %q", tt.json, tt.text, got, tt.want)
		}
	}
}

func TestParseTokenizerErrors(t *testing.T) {
	tests := []struct{ json, want string }{
		{`not json`, "tokenizer.json"},
		{`{}`, "model: missing"},
		{`{"model":{"type":"BPE","vocab":{},"merges":[]}}`, `"BPE" is not supported`},
		{`{"model":{"vocab":{"a":0}}}`, `no "type"`},
		{`{"model":{"type":"WordPiece","vocab":{}}}`, "empty vocab"},
		{`{"model":{"type":"WordPiece","vocab":{"a":0,"b":0}}}`, "used twice"},
		{`{"model":{"type":"WordPiece","vocab":{"a":5}}}`, "outside"},
		{`{"model":{"type":"Unigram","vocab":[["a",-1]],"unk_id":3}}`, "unk_id 3"},
		{`{"model":{"type":"Unigram","vocab":[["a",-1]],"byte_fallback":true}}`, "byte_fallback"},
		{`{"model":{"type":"Unigram","vocab":[["a","x"]]}}`, "vocab entry 0"},
		{`{"pre_tokenizer":{"type":"ByteLevel"},"model":{"type":"WordLevel","vocab":{"a":0}}}`, `"ByteLevel" is not supported`},
		{`{"normalizer":{"type":"Replace","pattern":{"Regex":"(?<=a)b"},"content":""},"model":{"type":"WordLevel","vocab":{"a":0}}}`, "regex"},
		{`{"pre_tokenizer":{"type":"Metaspace","replacement":"ab"},"model":{"type":"WordLevel","vocab":{"a":0}}}`, "not one character"},
		{`{"added_tokens":[{"id":-1,"content":"x"}],"model":{"type":"WordLevel","vocab":{"a":0}}}`, "id -1"},
	}
	for _, tt := range tests {
		_, err := parseTokenizer([]byte(tt.json))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want one containing %q", tt.json, err, tt.want)
		}
	}
	deep := `{"type":"Lowercase"}`
	for range maxTokenizerDepth + 2 {
		deep = `{"type":"Sequence","normalizers":[` + deep + `]}`
	}
	if _, err := parseTokenizer([]byte(`{"normalizer":` + deep + `,"model":{"type":"WordLevel","vocab":{"a":0}}}`)); err == nil {
		t.Error("deep nesting accepted")
	}
}

// FuzzParseTokenizer: any tokenizer.json loads or fails cleanly, and a
// loaded one only ever yields ids inside its vocabulary.
func FuzzParseTokenizer(f *testing.F) {
	f.Add(tinyTokenizerJSON(f), "The cats ran, 猫!")
	f.Add([]byte(unigramJSON), "hello, world hellx")
	f.Add([]byte(`{"normalizer":{"type":"Lowercase"},"pre_tokenizer":{"type":"Whitespace"},"model":{"type":"WordLevel","vocab":{"a":0,"[UNK]":1},"unk_token":"[UNK]"}}`), "A b")
	f.Add([]byte(`{"normalizer":{"type":"Replace","pattern":{"String":"a"},"content":"aaaa"},"model":{"type":"WordPiece","vocab":{"a":0},"continuing_subword_prefix":""}}`), "aaaa")
	f.Add([]byte(`{"pre_tokenizer":{"type":"Metaspace","split":true},"model":{"type":"Unigram","vocab":[["▁a",-1],["b",-2]]}}`), "a b")
	f.Add([]byte(`{"model":{"type":"BPE"}}`), "")
	f.Fuzz(func(t *testing.T, b []byte, text string) {
		tok, err := parseTokenizer(b)
		if err != nil {
			return
		}
		for _, id := range tok.ids(text, nil) {
			if id < 0 || int(id) >= tok.vocab {
				t.Fatalf("id %d outside vocab of %d", id, tok.vocab)
			}
		}
	})
}
