package thesaurus

import "testing"

// ExpandIn takes a language's own thesaurus only: a Russian «оклад» (a
// salary) is not expanded with the Ukrainian one's verbs of beating.
func TestExpandInLanguage(t *testing.T) {
	th, err := Load(Config{})
	if err != nil {
		t.Logf("thesaurus: %v", err)
	}
	var ru, uk bool
	for _, s := range th.Sources() {
		ru, uk = ru || s.Lang == "ru", uk || s.Lang == "uk"
	}
	if !ru || !uk {
		t.Skip("the Russian and Ukrainian thesauri are not installed (apt-get install mythes-ru mythes-uk)")
	}
	for _, word := range []string{"оклад", "доктор", "собака"} {
		for _, r := range th.ExpandIn(word, "ru") {
			if r.Source != "mythes:ru_RU" {
				t.Errorf("ExpandIn(%s, ru) gave %s from %s", word, r.Word, r.Source)
			}
		}
		for _, r := range th.ExpandIn(word, "uk") {
			if r.Source != "mythes:uk_UA" {
				t.Errorf("ExpandIn(%s, uk) gave %s from %s", word, r.Word, r.Source)
			}
		}
	}
	if len(th.ExpandIn("собака", "ru")) == 0 {
		t.Error("ExpandIn(собака, ru) is empty")
	}
	if len(th.ExpandIn("dog", "ru")) == 0 {
		t.Error("a language with no thesaurus in the word's script must fall back to the script's")
	}
}
