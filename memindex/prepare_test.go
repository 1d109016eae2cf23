package memindex

import (
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"testing"
)

// TestPutPreparedMatchesPut builds one namespace with Put and another with
// PutPrepared from the same rows (new rows, rows rewritten with another or
// the same text and vector, rows without a vector or text, other access
// levels, removals, vectors of another dimension), before and after the
// sketches are built, and checks that the two are identical in every
// field: vectors, sketches, postings, terms and statistics.
func TestPutPreparedMatchesPut(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	words := []string{"deploy", "deployed", "rollback", "cache", "caché", "Timeouts", "queue", "Über", "naïve", "x", "релиз", "релизы"}
	text := func() []byte {
		if rng.Intn(15) == 0 {
			return nil
		}
		b := []byte{}
		for range 1 + rng.Intn(12) {
			b = fmt.Appendf(b, "%s%d, ", words[rng.Intn(len(words))], rng.Intn(3))
		}
		return b
	}
	a, b := New[int](0, testDim), New[int](0, testDim)
	type row struct{ emb, text []byte }
	rows := map[int]row{}
	apply := func(key int, e Entry, emb, txt []byte) {
		a.Put(key, e, emb, txt)
		p := Prepare(emb, txt)
		if !p.Matches(emb, txt) {
			t.Fatal("a Prepared does not match its own inputs")
		}
		b.PutPrepared(key, e, p)
	}
	for step := range 6000 {
		if step == 3000 {
			a.BuildSketches()
			b.BuildSketches()
		}
		key := rng.Intn(2500)
		e := testEntry(key)
		e.AccessLevel = rng.Intn(3) / 2 * 2
		var emb, txt []byte
		switch r, old := rng.Intn(10), rows[key]; {
		case r == 0 && old.text != nil: // the same row again (a touch)
			emb, txt = old.emb, old.text
		case r == 1 && old.text != nil: // a new vector, the same text
			emb, txt = testVec(rng, testDim), old.text
		case r == 2:
			emb, txt = nil, text()
		case r == 3:
			emb, txt = testVec(rng, testDim/2), text()
		case r == 4 && step%7 == 0:
			a.Remove(key)
			b.Remove(key)
			continue
		default:
			emb, txt = testVec(rng, testDim), text()
		}
		rows[key] = row{emb, txt}
		apply(key, e, emb, txt)
	}
	a.vecBuf, b.vecBuf = nil, nil // scratch
	a.sketchBuf, b.sketchBuf = nil, nil
	a.sketchBits, b.sketchBits = nil, nil
	a.kw.buf, b.kw.buf = nil, nil
	a.kw.scratch, b.kw.scratch = nil, nil
	if !reflect.DeepEqual(a, b) {
		for i := range min(a.Len(), b.Len()) {
			if !reflect.DeepEqual(*a.ent(i), *b.ent(i)) {
				t.Fatalf("entry %d: Put %+v, PutPrepared %+v", i, *a.ent(i), *b.ent(i))
			}
		}
		t.Fatalf("the namespaces differ (entries %d and %d; vectors equal %v, signs equal %v, keyword index equal %v)",
			a.Len(), b.Len(), reflect.DeepEqual(a.vecs, b.vecs), reflect.DeepEqual(a.signs, b.signs), reflect.DeepEqual(a.kw, b.kw))
	}
	if !a.sketching || a.signs.len() == 0 || a.kw.docs == 0 {
		t.Fatal("the test built no sketches or no postings")
	}
}

// CutTokens cuts as Terms does, and each token's first term is the one
// Terms gives of the token alone.
func TestCutTokens(t *testing.T) {
	toks := []string{"deployments", "deploy", "café", "naïve", "рішення", "e\u0301", "!!", "जानकारी", "x"}
	for _, max := range []int{2, 32} {
		c := CutTokens(toks, max)
		if want := Terms(toks, max); !slices.Equal(c.Terms, want) {
			t.Errorf("CutTokens(%d).Terms = %q, want %q", max, c.Terms, want)
		}
		if len(c.First) != len(toks) {
			t.Fatalf("%d first terms for %d tokens", len(c.First), len(toks))
		}
		var pieces []string
		for i, tok := range toks {
			want := ""
			if one := Terms([]string{tok}, 1); len(one) == 1 {
				want = one[0]
			}
			if c.First[i] != want {
				t.Errorf("first term of %q = %q, want %q", tok, c.First[i], want)
			}
			EachTerm([]byte(tok), nil, func(p []byte) { pieces = append(pieces, string(p)) })
		}
		if !slices.Equal(c.Pieces, pieces) {
			t.Errorf("pieces %q, want %q", c.Pieces, pieces)
		}
	}
}
