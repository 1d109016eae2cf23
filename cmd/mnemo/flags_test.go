package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestFilterSpellingsCLI: --filter takes the keys of REST's filters and
// the older spellings alike.
func TestFilterSpellingsCLI(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	mustCLI(t, db, "", "remember", "--scope", "/rules/rf", "--criticality", "0.9", "--tag", "rf", "Uplink power above 200 W needs the RF officer")
	mustCLI(t, db, "", "remember", "--kind", "decision", "--scope", "/plans", "Uplink pass planned over Svalbard")
	for _, c := range [][2]string{
		{"scope_prefix=/rules", "scope=/rules"},
		{"kinds=decision", "kind=decision"},
		{"layers=workflow", "layer=workflow"},
		{"tags=rf", "tag=rf"},
		{"min_criticality=0.5", "criticality=0.5"},
		{"since=2000-01-01", "since=2000-01-01T00:00:00Z"},
	} {
		for _, cmd := range [][]string{{"list"}, {"recall", "uplink"}} {
			a := mustCLI(t, db, "", append(append([]string{}, cmd...), "--filter", c[0])...)
			b := mustCLI(t, db, "", append(append([]string{}, cmd...), "--filter", c[1])...)
			// The hits' ids, in order (each recall counts as an access, so scores move).
			a, b = strings.Join(ulidRE.FindAllString(a, -1), " "), strings.Join(ulidRE.FindAllString(b, -1), " ")
			if a != b || a == "" {
				t.Errorf("%v --filter %s:\n%s\n--filter %s:\n%s", cmd, c[0], a, c[1], b)
			}
		}
	}
	if _, errs, code := cli(t, db, "", "list", "--filter", "colour=red"); code == 0 || !strings.Contains(errs, "unknown filter") {
		t.Errorf("unknown key: exit %d, %q", code, errs)
	}
}
