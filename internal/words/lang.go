package words

import (
	"unicode"
	"unicode/utf8"
)

// Letters is what the letters of a text tell of its language: how many
// are Cyrillic and how many of another script, and whether it holds a
// letter that only Russian writes (ы э ъ ё) or only Ukrainian (і ї є ґ),
// in either case. One pass (Script) reads it; each reader of languages
// asks it its own question (Lang, Language, MostlyCyrillic).
type Letters struct {
	Cyrillic int // runes of the Cyrillic script
	Other    int // letters of another script
	// Russian and Ukrainian: the text holds a letter only that language
	// writes.
	Russian, Ukrainian bool
}

// Script reads the letters of text (see Letters).
func Script(text string) Letters {
	var l Letters
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
				l.Other++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch {
		case unicode.Is(unicode.Cyrillic, r):
			l.Cyrillic++
			switch unicode.ToLower(r) {
			case 'ы', 'э', 'ъ', 'ё':
				l.Russian = true
			case 'і', 'ї', 'є', 'ґ':
				l.Ukrainian = true
			}
		case unicode.IsLetter(r):
			l.Other++
		}
	}
	return l
}

// Lang tells Russian from Ukrainian by the letters only one of them
// writes: "ru", "uk", or "" when the text has neither (a short question
// often has none: «Коли перенесли нараду?») or both, and for other
// scripts. It is the language a thesaurus is chosen by.
func (l Letters) Lang() string {
	switch {
	case l.Russian && !l.Ukrainian:
		return "ru"
	case l.Ukrainian && !l.Russian:
		return "uk"
	}
	return ""
}

// Language names a language for any text: "uk" when a letter only
// Ukrainian writes appears, else "ru" when a Cyrillic one does, else "en".
func (l Letters) Language() string {
	switch {
	case l.Ukrainian:
		return "uk"
	case l.Cyrillic > 0:
		return "ru"
	}
	return "en"
}

// MostlyCyrillic reports whether more of the text's letters are Cyrillic
// than of any other script.
func (l Letters) MostlyCyrillic() bool { return l.Cyrillic > l.Other }
