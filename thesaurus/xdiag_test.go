package thesaurus

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestXDiag(t *testing.T) {
	ws := os.Getenv("X_WORDS")
	if ws == "" {
		t.Skip()
	}
	th, err := Load(Config{})
	if err != nil {
		t.Fatal(err)
	}
	lang := os.Getenv("X_LANG")
	for _, w := range strings.Fields(ws) {
		var out []string
		for _, r := range th.ExpandIn(w, lang) {
			out = append(out, fmt.Sprintf("%s(%.2f)", r.Word, r.Weight))
		}
		fmt.Printf("%s: %s\n", w, strings.Join(out, " "))
	}
}
