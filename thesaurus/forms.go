package thesaurus

import (
	"strings"
	"sync"

	"github.com/mnemo-dev/mnemo/internal/words"
)

// Forms returns the past-tense, participle and present-tense forms of a
// Russian or Ukrainian infinitive (folded), which the light stemmer
// (package stem) does not bring back to the infinitive's stem: a thesaurus
// gives «измотаться», a memory says «измотан»; it gives «полагодити», a
// memory says «полагодив»; «бояться», and a memory says «боится». For a
// noun whose vowel drops out of its other forms, its genitive («щенок»:
// «щенка»). Query expansion searches for them beside the word. Other
// words give nothing.
func Forms(word string) []string {
	w := words.Fold(strings.TrimSpace(word))
	if f := fleetingForms(w); f != nil {
		return f
	}
	for _, r := range infinitiveForms() {
		base, ok := strings.CutSuffix(w, r.inf)
		if !ok || len([]rune(base)) < 2 {
			continue
		}
		out := make([]string, 0, len(r.forms))
		for _, f := range r.forms {
			out = append(out, base+f)
		}
		return out
	}
	return nil
}

// fleetingForms returns the genitive of a noun (folded) whose last
// syllable's vowel drops out of its other forms («щенок»: «щенка»,
// «отец»: «отца», «хлопець»: «хлопця», «день»: «дня»); the stemmer
// brings the other cases to the same stem. Nil for other words.
func fleetingForms(w string) []string {
	for _, r := range fleeting {
		base, ok := strings.CutSuffix(w, r[0])
		b := []rune(base)
		if !ok || len(b) < 1 || isVowel(b[len(b)-1]) || len(b) < 2 && r[0] != "ень" {
			continue
		}
		return []string{base + r[1]}
	}
	return nil
}

// fleeting are the nominative endings with a fleeting vowel and the
// genitive endings that replace them (folded).
var fleeting = [][2]string{{"ок", "ка"}, {"ек", "ка"}, {"ець", "ця"}, {"ец", "ца"}, {"ень", "ня"}}

// infinitiveForms are the endings of infinitives, longest first, with the
// endings of their past tense (masculine, feminine, plural) and short
// passive participle, and present tense, folded (ё→е, ї→і, й→и) on first
// use, not at start-up.
var infinitiveForms = sync.OnceValue(func() []struct {
	inf   string
	forms []string
} {
	rules := []struct {
		inf   string
		forms []string
	}{
		// -сти, whose past tense drops it («приобрести»: «приобрёл»).
		// (-йти folds to -ити, the regular ending: its past tense,
		// «пришёл», is found from the query side only.)
		{"ести", []string{"ел", "ела", "ели"}},
		// Imperfective -ывать/-ивать/-увати beside its perfective's past:
		// «купувати» is also «купив», «записывать» «записал».
		// The present tense's third persons follow the past tense's forms.
		{"ывать", []string{"ывал", "ывала", "ывали", "ал", "ала", "али", "ывает", "ывают"}},
		{"ивать", []string{"ивал", "ивала", "ивали", "ал", "ала", "али", "ил", "ила", "или", "ивает", "ивают"}},
		{"увати", []string{"ував", "увала", "ували", "ив", "ила", "или", "ує", "ують"}},
		// Russian, reflexive first.
		{"оваться", []string{"овался", "овалась", "овались", "уется", "уются"}},
		{"аться", []string{"ался", "алась", "ались", "ан", "ается", "аются"}},
		{"яться", []string{"ялся", "ялась", "ялись", "ян", "яется", "яются", "ится", "ятся"}},
		{"иться", []string{"ился", "илась", "ились", "ен", "ится", "ятся"}},
		{"еться", []string{"елся", "елась", "елись"}},
		{"овать", []string{"овал", "овала", "овали", "ован", "ует", "уют"}},
		{"ать", []string{"ал", "ала", "али", "ан", "ает", "ают"}},
		{"ять", []string{"ял", "яла", "яли", "ян", "яет", "яют"}},
		{"ить", []string{"ил", "ила", "или", "ен", "ит", "ят"}},
		{"еть", []string{"ел", "ела", "ели", "еет", "еют", "ит", "ят"}},
		// Ukrainian.
		{"уватися", []string{"увався", "увалася", "увалися", "ується", "уються"}},
		{"атися", []string{"ався", "алася", "алися", "ається", "аються"}},
		{"ятися", []string{"явся", "ялася", "ялися", "яється", "яються"}},
		{"итися", []string{"ився", "илася", "илися", "иться", "яться"}},
		{"ати", []string{"ав", "ала", "али", "аний", "ає", "ають"}},
		{"яти", []string{"яв", "яла", "яли", "яний", "яє", "яють"}},
		{"ити", []string{"ив", "ила", "или", "ений", "ить", "ять"}},
		{"іти", []string{"ів", "іла", "іли", "ить", "ять"}},
	}
	for i := range rules {
		rules[i].inf = words.Fold(rules[i].inf)
		for j, f := range rules[i].forms {
			rules[i].forms[j] = words.Fold(f)
		}
	}
	return rules
})
