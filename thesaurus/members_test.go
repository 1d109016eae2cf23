package thesaurus

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
)

// categoryWordNet has a category four levels above its member, an
// instance, a two-word compound and a category too general to expand.
var categoryWordNet = []wnSyn{
	{id: "instrument", pos: 'n', words: []string{"musical_instrument", "instrument"}, ptrs: [][2]string{{"~", "wind"}, {"~", "string"}}},
	{id: "wind", pos: 'n', words: []string{"wind_instrument", "wind"}, ptrs: [][2]string{{"@", "instrument"}, {"~", "woodwind"}}},
	{id: "woodwind", pos: 'n', words: []string{"woodwind"}, ptrs: [][2]string{{"@", "wind"}, {"~", "beating"}}},
	{id: "beating", pos: 'n', words: []string{"beating-reed_instrument"}, ptrs: [][2]string{{"@", "woodwind"}, {"~", "clarinet"}}},
	{id: "clarinet", pos: 'n', words: []string{"clarinet"}, ptrs: [][2]string{{"@", "beating"}}},
	{id: "string", pos: 'n', words: []string{"stringed_instrument"}, ptrs: [][2]string{{"@", "instrument"}, {"~", "violin"}}},
	{id: "violin", pos: 'n', words: []string{"violin", "fiddle"}, ptrs: [][2]string{{"@", "string"}}},
	{id: "city", pos: 'n', words: []string{"city", "metropolis"}, ptrs: [][2]string{{"~", "capital"}}},
	{id: "capital", pos: 'n', words: []string{"national_capital"}, ptrs: [][2]string{{"@", "city"}, {"~i", "paris"}}},
	{id: "paris", pos: 'n', words: []string{"Paris", "City_of_Light"}, ptrs: [][2]string{{"@i", "capital"}}},
	{id: "martial", pos: 'n', words: []string{"martial_art"}, ptrs: [][2]string{{"~", "judo"}}},
	{id: "judo", pos: 'n', words: []string{"judo"}, ptrs: [][2]string{{"@", "martial"}}},
	{id: "art", pos: 'n', words: []string{"art"}, ptrs: [][2]string{{"~", "painting"}}},
	{id: "painting", pos: 'n', words: []string{"painting"}, ptrs: [][2]string{{"@", "art"}}},
	{id: "buy", pos: 'v', words: []string{"buy", "purchase"}},
}

func TestMembers(t *testing.T) {
	th, err := Load(Config{Paths: []string{writeWordNet(t, categoryWordNet)}})
	if err != nil {
		t.Fatal(err)
	}
	got := terms(th.Members("instruments"))
	for _, want := range []string{Key("clarinet"), Key("violin"), Key("fiddle"), Key("woodwind")} {
		if _, ok := got[want]; !ok {
			t.Errorf("Members(instruments) lacks %q: %v", want, got)
		}
	}
	if got[Key("clarinet")].Weight >= got[Key("violin")].Weight {
		t.Errorf("a deeper member should weigh less: clarinet %v, violin %v", got[Key("clarinet")], got[Key("violin")])
	}
	for _, r := range got {
		if r.Relation != Narrower || r.Weight <= 0 || r.Weight > relWeight[Synonym] {
			t.Errorf("member %+v: want a narrower term weighing at most a synonym", r)
		}
	}
	if _, ok := terms(th.Members("cities"))[Key("paris")]; !ok {
		t.Errorf("Members(cities) lacks the instance Paris: %v", th.Members("cities"))
	}
	if _, ok := terms(th.Members("martial", "arts"))[Key("judo")]; !ok {
		t.Errorf("Members(martial, arts) lacks judo: %v", th.Members("martial", "arts"))
	}
	if _, ok := terms(th.Members("art"))[Key("painting")]; !ok {
		t.Errorf("Members(art) lacks painting")
	}
	for _, w := range [][]string{{"clarinet"}, {"nothing"}, {"art", "nothing"}, {}, {"a", "b", "c"}, {"метро"}} {
		if rs := th.Members(w...); len(rs) != 0 {
			t.Errorf("Members(%q) = %v, want none", w, rs)
		}
	}
	var nilT *Thesaurus
	if nilT.Members("city") != nil || nilT.Variants("bought") != nil {
		t.Error("a nil thesaurus expands nothing")
	}
}

func TestMembersTooGeneral(t *testing.T) {
	syns := []wnSyn{{id: "thing", pos: 'n', words: []string{"thing"}}}
	var kids [][2]string
	for i := range maxMemberSynsets + 1 {
		id := fmt.Sprintf("k%d", i)
		kids = append(kids, [2]string{"~", id})
		syns = append(syns, wnSyn{id: id, pos: 'n', words: []string{fmt.Sprintf("kind%s", string(rune('a'+i%26))+fmt.Sprint(i))}, ptrs: [][2]string{{"@", "thing"}}})
	}
	syns[0].ptrs = kids
	th, err := Load(Config{Paths: []string{writeWordNet(t, syns)}})
	if err != nil {
		t.Fatal(err)
	}
	if rs := th.Members("thing"); len(rs) != 0 {
		t.Errorf("a category of %d kinds gave %d members, want none", maxMemberSynsets+1, len(rs))
	}
}

func TestVariants(t *testing.T) {
	dir := writeWordNet(t, categoryWordNet)
	write(t, filepath.Join(dir, "verb.exc"), "bought buy\nwent go\nbadline\n")
	write(t, filepath.Join(dir, "noun.exc"), "children child\nfeet foot\n")
	th, err := Load(Config{Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	for word, want := range map[string][]string{
		"buy": {"bought"}, "bought": {"buy"}, "Children": {"child"}, "child": {"children"}, "walk": nil, "badline": nil,
	} {
		if got := th.Variants(word); !slices.Equal(got, want) {
			t.Errorf("Variants(%q) = %q, want %q", word, got, want)
		}
	}
	// An irregular inflection is looked up as its base form.
	if _, ok := terms(th.Expand("bought"))[Key("purchase")]; !ok {
		t.Errorf("Expand(bought) lacks purchase: %v", th.Expand("bought"))
	}
}

func TestMembersRealWordNet(t *testing.T) {
	th, err := Load(Config{Paths: []string{"/usr/share/wordnet"}})
	if err != nil {
		t.Skip("WordNet (Debian wordnet-base) is not installed")
	}
	for _, c := range []struct {
		cat  []string
		want string
	}{{[]string{"musical", "instruments"}, "clarinet"}, {[]string{"cities"}, "paris"}, {[]string{"martial", "arts"}, "taekwondo"}, {[]string{"board", "games"}, "chess"}} {
		if _, ok := terms(th.Members(c.cat...))[Key(c.want)]; !ok {
			t.Errorf("Members(%q) lacks %q", c.cat, c.want)
		}
	}
	if rs := th.Members("activity"); len(rs) > 0 && slices.ContainsFunc(rs, func(r Related) bool { return r.Term == Key("swimming") }) {
		t.Errorf("activity's first sense is too general to expand, yet swimming came back")
	}
	if got := th.Variants("bought"); !slices.Contains(got, "buy") {
		t.Errorf("Variants(bought) = %q, want buy among them", got)
	}
}
