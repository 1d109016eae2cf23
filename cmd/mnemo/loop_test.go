package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
)

// The loops from the command line: a configuration applied by force that
// ignores meaning, a warm run that sees the drop, a cold run that repairs
// it, the history, a diff and a rollback.
func TestConfigAndLoopCommands(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	r := rand.New(rand.NewSource(1))
	syl := strings.Fields("ka lo mi ru ze tan vor pel dim sho gra nu bex fi tul om")
	mk := func() string { return syl[r.Intn(16)] + syl[r.Intn(16)] + syl[r.Intn(16)] }
	var jl strings.Builder
	for i := range 10 {
		shared := []string{mk(), mk(), mk(), mk()}
		for range 16 {
			b, _ := json.Marshal(map[string]any{"text": fmt.Sprintf("unit%c %s %s %s %s %s checklist", 'a'+i, shared[r.Intn(4)], shared[r.Intn(4)], mk(), mk(), mk()),
				"scope": fmt.Sprintf("/ops/unit%c", 'a'+i), "importance": r.Float64()})
			jl.Write(b)
			jl.WriteByte('\n')
		}
	}
	mustCLI(t, db, jl.String(), "import", "-")
	doc := mustCLI(t, db, "", "config", "show")
	var cfg map[string]any
	if err := json.Unmarshal([]byte(doc), &cfg); err != nil || cfg["weights"] == nil {
		t.Fatalf("config show: %v\n%s", err, doc)
	}
	weights := cfg["weights"].(map[string]any)
	for k := range weights {
		weights[k] = map[string]float64{"semantic": 0, "keyword": 0, "recency": 0.5, "importance": 0.3, "confidence": 0.1, "frequency": 0.1}
	}
	b, _ := json.Marshal(cfg)
	if _, errs, code := cli(t, db, string(b), "config", "apply", "-"); code != 1 || !strings.Contains(errs, "rule step") {
		t.Fatalf("apply without --force: exit %d, %s", code, errs)
	}
	mustCLI(t, db, string(b), "config", "apply", "-", "--force", "--reason", "ignore meaning")
	var warm struct {
		Namespace  string                        `json:"namespace"`
		Probes     int                           `json:"probes"`
		Validation float64                       `json:"validation"`
		By         map[string]map[string]float64 `json:"by"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, db, "", "loop", "warm", "--once", "--json", "--no-adjust")), &warm); err != nil ||
		warm.Namespace != "default" || warm.Probes < 40 || warm.Validation >= 0.8 || warm.By["kind"] == nil {
		t.Fatalf("loop warm: %+v %v", warm, err)
	}
	var cold struct {
		Triggered        bool             `json:"triggered"`
		Reason           string           `json:"reason"`
		Patch            []map[string]any `json:"patch"`
		Accepted         bool             `json:"accepted"`
		Rule             string           `json:"rule"`
		ValidationBefore float64          `json:"validation_before"`
		ValidationAfter  float64          `json:"validation_after"`
		Version          int              `json:"version"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, db, "", "loop", "cold", "--once", "--json")), &cold); err != nil ||
		!cold.Triggered || !cold.Accepted || cold.Rule != "" || cold.Version != 2 || cold.ValidationAfter < 0.8 || len(cold.Patch) == 0 {
		t.Fatalf("loop cold: %+v %v", cold, err)
	}
	hist := mustCLI(t, db, "", "config", "history")
	if !strings.Contains(hist, "v1") || !strings.Contains(hist, "ignore meaning") || !strings.Contains(hist, "* v2") || !strings.Contains(hist, "loop/mentor") {
		t.Errorf("config history:\n%s", hist)
	}
	if d := mustCLI(t, db, "", "config", "diff", "1", "2"); !strings.Contains(d, "weights.general.semantic: 0 -> ") {
		t.Errorf("config diff:\n%s", d)
	}
	mustCLI(t, db, "", "config", "rollback", "0")
	var st struct {
		Version int   `json:"config_version"`
		Trend   []any `json:"validation_trend"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, db, "", "loop", "status", "--json")), &st); err != nil || st.Version != 0 || len(st.Trend) != 1 {
		t.Errorf("loop status: %+v %v", st, err)
	}
}
