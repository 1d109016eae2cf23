package words

import "testing"

func TestScript(t *testing.T) {
	for _, c := range []struct {
		text           string
		lang, language string
		mostly         bool
	}{
		{"Какой автомобиль он приобрёл?", "ru", "ru", true},
		{"Что доктор сообщил о гипертонии?", "", "ru", true}, // no letter of either
		{"Чи є в неї тепер собака?", "uk", "uk", true},
		{"Коли перенесли нараду?", "", "ru", true}, // two Cyrillic words, no telling letter
		{"Хто відремонтував велосипед", "uk", "uk", true},
		{"What art hobby did she start?", "", "en", false},
		{"Зарплата выросла, а їжа подорожчала", "", "uk", true}, // both
		{"оклад", "", "ru", true},
		{"ЪЕЗД", "ru", "ru", true},
		{"ҐАНОК", "uk", "uk", true},
		{"deploy the сервис today", "", "ru", false},
		{"Café déjà vu, ок", "", "ru", false},
		{"", "", "en", false},
	} {
		l := Script(c.text)
		if got := l.Lang(); got != c.lang {
			t.Errorf("Script(%q).Lang() = %q, want %q", c.text, got, c.lang)
		}
		if got := l.Language(); got != c.language {
			t.Errorf("Script(%q).Language() = %q, want %q", c.text, got, c.language)
		}
		if got := l.MostlyCyrillic(); got != c.mostly {
			t.Errorf("Script(%q).MostlyCyrillic() = %v, want %v", c.text, got, c.mostly)
		}
	}
}
