package words_test

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo/internal/words"
)

func TestSplit(t *testing.T) {
	for _, tt := range []struct {
		lang, in string
		want     []string
	}{
		{"en", "Deploy the API to prod-2, then run `make test`!", []string{"deploy", "the", "api", "to", "prod", "2", "then", "run", "make", "test"}},
		{"en", "don't e-mail recall_test.go x²", []string{"don", "t", "e", "mail", "recall", "test", "go", "x²"}},
		{"en", "Cafe\u0301 au lait", []string{"cafe\u0301", "au", "lait"}},
		{"ru", "Ёжик в тумане: «Правила деплоя»", []string{"ёжик", "в", "тумане", "правила", "деплоя"}},
		{"uk", "П'ять правил, обґрунтування — її Київ", []string{"п", "ять", "правил", "обґрунтування", "її", "київ"}},
		{"hi", "हिन्दी पाठ", []string{"हिन्दी", "पाठ"}},
		{"", "  ...!? \u0301 ", nil},
		{"", strings.Repeat("a", words.MaxRunes+1) + " ok " + strings.Repeat("b", words.MaxRunes), []string{"ok", strings.Repeat("b", words.MaxRunes)}},
	} {
		if got := words.Split(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("%s: Split(%q) = %q, want %q", tt.lang, tt.in, got, tt.want)
		}
	}
}

func TestSplitFolded(t *testing.T) {
	for in, want := range map[string][]string{
		"Café CRÈME Straße":      {"cafe", "creme", "strasse"},
		"Ёжик и йод":             {"ежик", "и", "иод"},
		"Їжак і Київ":            {"іжак", "і", "киів"},
		"Cafe\u0301 e\u0301tude": {"cafe", "etude"},
	} {
		if got := words.SplitFolded(in); !slices.Equal(got, want) {
			t.Errorf("SplitFolded(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCompounds(t *testing.T) {
	for _, tt := range []struct{ in, joiners, want string }{
		{"Jean-Luc met O'Brien at e-mail--desk", "-'", "Jean-Luc|met|O'Brien|at|e-mail|desk"},
		{"don't stop' 'til", "'", "don't|stop|til"},
		{"a-b-c -d e-", "-", "a-b-c|d|e"},
	} {
		var got, of []string
		words.Compounds(tt.in, tt.joiners, func(s, e int) bool { got = append(got, tt.in[s:e]); return true })
		if strings.Join(got, "|") != tt.want {
			t.Errorf("Compounds(%q) = %q, want %q", tt.in, strings.Join(got, "|"), tt.want)
		}
		words.CompoundsOf(tt.in, words.SpanList(tt.in), tt.joiners, func(s, e int) bool { of = append(of, tt.in[s:e]); return true })
		if !slices.Equal(of, got) {
			t.Errorf("CompoundsOf(%q) = %q, Compounds %q", tt.in, of, got)
		}
	}
}

func TestStopwordsPerLanguage(t *testing.T) {
	for _, tt := range []struct {
		lang             string
		stop, function   []string
		content, request []string
	}{
		{"en", []string{"the", "and", "what", "with"}, []string{"about", "tell", "whose", "don't"}, []string{"deploy", "melanie", "painting"}, []string{"thanks", "like", "need"}},
		{"ru", []string{"и", "что", "её", "ее", "всё"}, []string{"почему", "который", "ещё", "еще"}, []string{"деплой", "правила"}, []string{"спасибо", "сделать"}},
		{"uk", []string{"і", "що", "який", "якии"}, []string{"чому", "її", "іі", "навіщо"}, []string{"розгортання", "київ"}, []string{"дякую", "зробити"}},
	} {
		for _, w := range tt.stop {
			if !words.IsStopword(w) || !words.IsFunctionWord(w) {
				t.Errorf("%s: %q is no stopword", tt.lang, w)
			}
		}
		for _, w := range tt.function {
			if words.IsStopword(w) || !words.IsFunctionWord(w) {
				t.Errorf("%s: %q: stopword %v, function word %v; want false, true", tt.lang, w, words.IsStopword(w), words.IsFunctionWord(w))
			}
		}
		for _, w := range tt.content {
			if words.IsFunctionWord(w) || words.IsRequestWord(w) {
				t.Errorf("%s: content word %q is a function or request word", tt.lang, w)
			}
		}
		for _, w := range tt.request {
			if !words.IsRequestWord(w) || words.IsFunctionWord(w) {
				t.Errorf("%s: %q: request word %v, function word %v; want true, false", tt.lang, w, words.IsRequestWord(w), words.IsFunctionWord(w))
			}
		}
		if len(words.Stopwords(tt.lang)) == 0 || len(words.FunctionWords(tt.lang)) == 0 || len(words.RequestWords(tt.lang)) == 0 {
			t.Errorf("%s: an empty table", tt.lang)
		}
	}
	if words.Stopwords("de") != nil {
		t.Error("stopwords of an unknown language")
	}
}

// The tables hold each word once, in one of them, and as the word model
// reads it: one lower-case word (one rule word for contractions).
func TestTablesDisjoint(t *testing.T) {
	for _, lang := range words.Languages {
		seen := map[string]string{}
		for name, list := range map[string][]string{"stopwords": words.Stopwords(lang), "function words": words.FunctionWords(lang), "request words": words.RequestWords(lang)} {
			for _, w := range list {
				if prev, ok := seen[w]; ok {
					t.Errorf("%s: %q is in %s and %s", lang, w, prev, name)
				}
				seen[w] = name
				if rw := words.RuleWords(w); len(rw) != 1 || rw[0] != words.Fold(w) {
					t.Errorf("%s: %s entry %q reads as %q", lang, name, w, rw)
				}
			}
		}
	}
}

func TestRules(t *testing.T) {
	r := words.NewRules([]string{"how to", "fix*", "^как", "как *ть", "*ться", "doesn't work", "рев'ю", "развёрт*", "fix*"})
	for _, tt := range []struct {
		in    string
		match bool
		count int
	}{
		{"How to deploy?", true, 1},
		{"Fixing the fixture", true, 2},
		{"Как настроить CI", true, 2},
		{"А как настроить CI", true, 1},
		{"Что делать, если не запускается", false, 0},
		{"не удается подключиться", true, 1},
		{"It doesn’t work", true, 1},
		{"зроби рев’ю", true, 1},
		{"развертывание", true, 1},
		{"nothing here", false, 0},
		{"", false, 0},
	} {
		ws := words.RuleWords(tt.in)
		if got := r.Match(ws); got != tt.match {
			t.Errorf("Match(%q) = %v, want %v (words %q)", tt.in, got, tt.match, ws)
		}
		if got := r.Count(ws); got != tt.count {
			t.Errorf("Count(%q) = %d, want %d (words %q)", tt.in, got, tt.count, ws)
		}
	}
}

func TestRuleWords(t *testing.T) {
	for in, want := range map[string][]string{
		"What's new? DON'T":     {"what's", "new", "don't"},
		"Ёлка, п’ять, пʼять":    {"елка", "п'ять", "п'ять"},
		"students' 'quoted'":    {"students", "quoted"},
		"rock''n roll":          {"rock", "n", "roll"},
		"Почему мы решили так?": {"почему", "мы", "решили", "так"},
	} {
		if got := words.RuleWords(in); !slices.Equal(got, want) {
			t.Errorf("RuleWords(%q) = %q, want %q", in, got, want)
		}
		if got := words.RuleWordsOf(in, words.SpanList(in)); !slices.Equal(got, want) {
			t.Errorf("RuleWordsOf(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzSplit holds the word model's invariants on any input: words are
// non-empty, in order, within the text, made of letters, numbers and
// marks and opened by a letter or number, at most MaxRunes long, lower
// case; what lies between them holds no letter or number but in words
// too long to be words; the hash
// embedder's split yields no empty word.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{"", "Deploy the API, then run it.", "Ёжик п'ять Київ", "Cafe\u0301 x² हिन्दी", "\xff\xfe\xc3(", strings.Repeat("ab", 40), "\u0301a\u0301 b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		last := 0
		words.Spans(s, func(start, end int) bool {
			if start < last || end <= start || end > len(s) {
				t.Fatalf("span %d..%d after %d in %d bytes", start, end, last, len(s))
			}
			checkGap(t, s[last:start])
			w := s[start:end]
			if n := utf8.RuneCountInString(w); n > words.MaxRunes {
				t.Fatalf("word of %d runes", n)
			}
			for i, r := range w {
				if !(unicode.IsLetter(r) || unicode.IsNumber(r) || i > 0 && unicode.IsMark(r)) {
					t.Fatalf("word %q holds %U", w, r)
				}
			}
			last = end
			return true
		})
		checkGap(t, s[last:])
		for _, w := range words.Split(s) {
			if w == "" || w != strings.ToLower(w) {
				t.Fatalf("word %q", w)
			}
		}
		var hash []string
		words.HashWords(s, nil, func(w []rune) { hash = append(hash, string(w)) })
		for _, w := range hash {
			if w == "" {
				t.Fatal("empty hash word")
			}
		}
	})
}

// checkGap fails unless gap, the text between two words, holds letters
// and numbers only in runs longer than a word.
func checkGap(t *testing.T, gap string) {
	run := 0
	for _, r := range gap + " " {
		if unicode.IsLetter(r) || unicode.IsNumber(r) || run > 0 && unicode.IsMark(r) {
			run++
			continue
		}
		if run > 0 && run <= words.MaxRunes {
			t.Fatalf("%q between words holds a word", gap)
		}
		run = 0
	}
}
