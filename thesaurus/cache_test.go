package thesaurus

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestCache: the first use of a resource writes its key indexes to the
// cache directory and later processes read them back with the same
// expansions; a changed source, a damaged cache file or a cache of other
// sources is not used (and is written again), and with the cache off
// nothing is written.
func TestCache(t *testing.T) {
	cache := t.TempDir()
	cacheDir := cache
	dir := t.TempDir()
	writeMythes(t, dir, "en_US", "UTF-8", true, sampleEnglish)
	writeMythes(t, dir, "ru_RU", "KOI8-R", false, sampleRussian)
	wn := writeWordNet(t, sampleWordNet)
	words := []string{"hobby", "good", "Cafe", "врач", "доктор", "car", "automobile"}
	expand := func() map[string][]Related {
		t.Helper()
		th, err := Load(Config{Paths: []string{dir, wn}, CacheDir: cacheDir})
		if err != nil {
			t.Fatal(err)
		}
		defer th.Close()
		out := map[string][]Related{}
		for _, w := range words {
			out[w] = th.Expand(w)
		}
		return out
	}
	want := expand()
	files, _ := filepath.Glob(filepath.Join(cache, "*.ki"))
	if len(files) != 3 {
		t.Fatalf("cache files %v, want one per resource (3)", files)
	}
	if got := expand(); !reflect.DeepEqual(got, want) {
		t.Fatalf("from the cache:\n%v\nwant\n%v", got, want)
	}
	// The cache is what is read: a cache whose index names no headword
	// at all answers nothing, so a current stamp with an empty index
	// shows the file is used.
	stamps := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		stamps[f] = b
		var empty [2]keyIndex
		var stamp [32]byte
		copy(stamp[:], b[12:44])
		src, _ := cacheSource(f)
		blank := encodeCache(stamp, src, 0, &empty[0], &empty[1]) // MyThes: headwords and listed words
		if _, err := decodeCache(b, stamp, &keyIndex{}); err == nil {
			blank = encodeCache(stamp, src, 0, &empty[0]) // WordNet: one index
		}
		if err := os.WriteFile(f, blank, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	th, err := Load(Config{Paths: []string{dir, wn}, CacheDir: cacheDir})
	if err != nil {
		t.Fatal(err)
	}
	if r := th.Expand("hobby"); len(r) != 0 {
		t.Errorf("a current cache was not read: Expand(hobby) = %v", r)
	}
	th.Close()
	// Damaged: one byte flipped in each file; the expansions come back
	// and the files are written again.
	for f, b := range stamps {
		b = bytes.Clone(b)
		b[len(b)/2] ^= 0x40
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := expand(); !reflect.DeepEqual(got, want) {
		t.Fatalf("with damaged cache files:\n%v\nwant\n%v", got, want)
	}
	for f, b := range stamps {
		if now, _ := os.ReadFile(f); !bytes.Equal(now, b) {
			t.Errorf("%s was not written again", f)
		}
	}
	// A changed source: its entry count changes, and so does its cache.
	en := filepath.Join(dir, "th_en_US_v2.dat")
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(en, later, later); err != nil {
		t.Fatal(err)
	}
	expand()
	var changed int
	for f, b := range stamps {
		if now, _ := os.ReadFile(f); !bytes.Equal(now, b) {
			changed++
		}
	}
	if changed != 1 {
		t.Errorf("%d cache files changed after one source did, want 1", changed)
	}
	// A cache file whose source is gone is removed when another is
	// written.
	gone := t.TempDir()
	writeMythes(t, gone, "en_GB", "UTF-8", true, sampleEnglish)
	th, err = Load(Config{Paths: []string{gone}, CacheDir: cacheDir})
	if err != nil {
		t.Fatal(err)
	}
	th.Expand("hobby")
	th.Close()
	goneCache := cachePath(cache, filepath.Join(gone, "th_en_GB_v2.dat"))
	if _, err := os.Stat(goneCache); err != nil {
		t.Fatalf("no cache file for the second thesaurus: %v", err)
	}
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}
	later = later.Add(time.Hour)
	if err := os.Chtimes(en, later, later); err != nil {
		t.Fatal(err)
	}
	expand() // writes the English cache again
	if _, err := os.Stat(goneCache); !os.IsNotExist(err) {
		t.Errorf("the cache file of a removed thesaurus stayed: %v", err)
	}
	// Off: nothing read or written.
	for f := range stamps {
		os.Remove(f)
	}
	cacheDir = ""
	if got := expand(); !reflect.DeepEqual(got, want) {
		t.Fatalf("without a cache: %v", got)
	}
	if fs, _ := filepath.Glob(filepath.Join(cache, "*.ki")); len(fs) != 0 {
		t.Errorf("cache off wrote %v", fs)
	}
}

// FuzzDecodeCache: any bytes are refused or read into in-bounds indexes
// that lookups can use, never a panic; what encodeCache writes reads back
// (sorted, as written: the checksum guards the order).
func FuzzDecodeCache(f *testing.F) {
	var stamp [32]byte
	stamp[3] = 7
	x := keyIndex{}
	for i, k := range []string{"car", "auto", "zebra", "auto"} {
		x.add(k, uint32(10*i))
	}
	x.finish()
	good := encodeCache(stamp, "/usr/share/wordnet/index.noun", 4, &x, &keyIndex{})
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte(cacheMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		var a, c keyIndex
		n, err := decodeCache(b, stamp, &a, &c)
		if err != nil {
			return
		}
		for _, y := range []*keyIndex{&a, &c} {
			for i := range y.len() {
				y.find(string(y.key(i)))
			}
			y.find("auto")
		}
		if bytes.Equal(b, good) {
			for i := 1; i < a.len(); i++ {
				if bytes.Compare(a.key(i-1), a.key(i)) > 0 {
					t.Fatal("round trip: entries out of order")
				}
			}
		}
		if bytes.Equal(b, good) && (n != 4 || len(a.find("auto")) != 2) {
			t.Fatalf("round trip: n=%d, auto=%v", n, a.find("auto"))
		}
	})
}
