package thesaurus

import (
	"strings"

	"github.com/mnemo-dev/mnemo/internal/words"
)

// Forms returns the past-tense and participle forms of a Russian or
// Ukrainian infinitive (folded), which the light stemmer (package stem)
// does not bring back to the infinitive's stem: a thesaurus gives
// «измотаться», a memory says «измотан»; it gives «полагодити», a memory
// says «полагодив». Query expansion searches for them beside the
// infinitive. Other words give nothing.
func Forms(word string) []string {
	w := words.Fold(strings.TrimSpace(word))
	for _, r := range infinitiveForms {
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

// infinitiveForms are the endings of infinitives, longest first, with the
// endings of their past tense (masculine, feminine, plural) and short
// passive participle, folded (ё→е, ї→і, й→и).
var infinitiveForms = func() []struct {
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
		{"ывать", []string{"ывал", "ывала", "ывали", "ал", "ала", "али"}},
		{"ивать", []string{"ивал", "ивала", "ивали", "ал", "ала", "али", "ил", "ила", "или"}},
		{"увати", []string{"ував", "увала", "ували", "ив", "ила", "или"}},
		// Russian, reflexive first.
		{"аться", []string{"ался", "алась", "ались", "ан"}},
		{"яться", []string{"ялся", "ялась", "ялись", "ян"}},
		{"иться", []string{"ился", "илась", "ились", "ен"}},
		{"еться", []string{"елся", "елась", "елись"}},
		{"ать", []string{"ал", "ала", "али", "ан"}},
		{"ять", []string{"ял", "яла", "яли", "ян"}},
		{"ить", []string{"ил", "ила", "или", "ен"}},
		{"еть", []string{"ел", "ела", "ели"}},
		// Ukrainian.
		{"атися", []string{"ався", "алася", "алися"}},
		{"итися", []string{"ився", "илася", "илися"}},
		{"ати", []string{"ав", "ала", "али", "аний"}},
		{"яти", []string{"яв", "яла", "яли", "яний"}},
		{"ити", []string{"ив", "ила", "или", "ений"}},
		{"іти", []string{"ів", "іла", "іли"}},
	}
	for i := range rules {
		rules[i].inf = words.Fold(rules[i].inf)
		for j, f := range rules[i].forms {
			rules[i].forms[j] = words.Fold(f)
		}
	}
	return rules
}()
