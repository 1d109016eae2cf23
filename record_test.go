package mnemo_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

func valid() *mnemo.Record {
	r := &mnemo.Record{Text: "a fact"}
	r.Normalize(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	return r
}

func TestNormalizeDefaults(t *testing.T) {
	r := valid()
	if r.Namespace != "default" || r.Kind != mnemo.KindFact || r.Layer != mnemo.LayerDomain || r.Scope != "/" {
		t.Fatalf("defaults: %+v", r)
	}
	if r.CreatedAt.IsZero() || !r.ValidFrom.Equal(r.CreatedAt) || !r.UpdatedAt.Equal(r.CreatedAt) {
		t.Fatalf("timestamps: %+v", r)
	}
	d := &mnemo.Record{Text: "x", Kind: mnemo.KindDecision, Scope: "/a/b/", Tags: []string{"x", " x ", "", "y"}}
	d.Normalize(time.Now())
	if d.Layer != mnemo.LayerWorkflow || d.Scope != "/a/b" || strings.Join(d.Tags, ",") != "x,y" {
		t.Fatalf("normalised decision: %+v", d)
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name string
		mod  func(*mnemo.Record)
		code string
	}{
		{"ok", func(*mnemo.Record) {}, ""},
		{"unknown layer", func(r *mnemo.Record) { r.Layer = "semantic" }, mnemo.EINVALID},
		{"unknown kind", func(r *mnemo.Record) { r.Kind = "thought" }, mnemo.EINVALID},
		{"empty text", func(r *mnemo.Record) { r.Text = " \n\t" }, mnemo.EINVALID},
		{"text over limit", func(r *mnemo.Record) { r.Text = strings.Repeat("x", 64<<10+1) }, mnemo.ETOOLARGE},
		{"text at limit", func(r *mnemo.Record) { r.Text = strings.Repeat("x", 64<<10) }, ""},
		{"invalid utf-8 text", func(r *mnemo.Record) { r.Text = "a\xffb" }, mnemo.EINVALID},
		{"invalid utf-8 tag", func(r *mnemo.Record) { r.Tags = []string{"\xc3"} }, mnemo.EINVALID},
		{"importance > 1", func(r *mnemo.Record) { r.Importance = 1.01 }, mnemo.EINVALID},
		{"confidence < 0", func(r *mnemo.Record) { r.Confidence = -0.5 }, mnemo.EINVALID},
		{"criticality NaN", func(r *mnemo.Record) { r.Criticality = math.NaN() }, mnemo.EINVALID},
		{"scope without slash", func(r *mnemo.Record) { r.Scope = "rules" }, mnemo.EINVALID},
		{"scope with empty segment", func(r *mnemo.Record) { r.Scope = "/a//b" }, mnemo.EINVALID},
		{"scope with space", func(r *mnemo.Record) { r.Scope = "/a b" }, mnemo.EINVALID},
		{"namespace with space", func(r *mnemo.Record) { r.Namespace = "team a" }, mnemo.EINVALID},
		{"negative access level", func(r *mnemo.Record) { r.AccessLevel = -1 }, mnemo.EINVALID},
		{"id too long", func(r *mnemo.Record) { r.ID = strings.Repeat("a", mnemo.MaxIDBytes+1) }, mnemo.EINVALID},
		{"id with a space", func(r *mnemo.Record) { r.ID = "a b" }, mnemo.EINVALID},
		{"id with a control character", func(r *mnemo.Record) { r.ID = "a\x1b[31m" }, mnemo.EINVALID},
		{"decision body on a fact", func(r *mnemo.Record) { r.Decision = &mnemo.Decision{Title: "x"} }, mnemo.EINVALID},
		{"correction body on a fact", func(r *mnemo.Record) { r.Correction = &mnemo.Correction{} }, mnemo.EINVALID},
		{"bad outcome", func(r *mnemo.Record) {
			r.Kind, r.Layer, r.Correction = mnemo.KindCorrection, mnemo.LayerPractitioner, &mnemo.Correction{Outcome: "maybe"}
		}, mnemo.EINVALID},
		{"valid_to before valid_from", func(r *mnemo.Record) { t := r.ValidFrom.Add(-time.Hour); r.ValidTo = &t }, mnemo.EINVALID},
	}
	for _, c := range cases {
		r := valid()
		c.mod(r)
		err := r.Validate(mnemo.DefaultLimits)
		if got := mnemo.ErrorCode(err); got != c.code {
			t.Errorf("%s: got %q (%v), want %q", c.name, got, err, c.code)
		}
	}
}

func TestNewRecordDefaults(t *testing.T) {
	r := mnemo.NewRecord{Text: "x", Source: "llm"}.Record()
	if r.Importance != 0.5 || r.Confidence != 0.7 || r.Criticality != 0 {
		t.Fatalf("llm defaults: %+v", r)
	}
	if mnemo.DefaultConfidence("observed") != 0.5 || mnemo.DefaultConfidence("user") != 1 {
		t.Fatal("DefaultConfidence")
	}
	zero := 0.0
	r = mnemo.NewRecord{Text: "x", Importance: &zero, Decision: &mnemo.Decision{Title: "t"}}.Record()
	if r.Importance != 0 || r.Kind != mnemo.KindDecision || r.Source != "user" {
		t.Fatalf("explicit zero / decision kind: %+v", r)
	}
}

func TestPatchApply(t *testing.T) {
	r := valid()
	imp, text, tags := 0.9, "new", []string{"a"}
	p := mnemo.RecordPatch{Importance: &imp, Text: &text, Tags: &tags}
	if p.Empty() || (mnemo.RecordPatch{}).Empty() == false {
		t.Fatal("Empty")
	}
	p.Apply(r)
	tags[0] = "mutated"
	if r.Importance != 0.9 || r.Text != "new" || r.Tags[0] != "a" {
		t.Fatalf("applied: %+v", r)
	}
}

func TestErrorCodes(t *testing.T) {
	e := mnemo.Errorf(mnemo.ENOTFOUND, "record %s not found", "x")
	wrapped := fmt.Errorf("sqlite: get: %w", e)
	if mnemo.ErrorCode(wrapped) != mnemo.ENOTFOUND || mnemo.ErrorMessage(wrapped) != "record x not found" {
		t.Fatal("wrapped coded error")
	}
	plain := errors.New("disk on fire")
	if mnemo.ErrorCode(plain) != mnemo.EINTERNAL || mnemo.ErrorMessage(plain) != "internal error" {
		t.Fatal("internal errors must not leak their text")
	}
	if mnemo.ErrorCode(nil) != "" {
		t.Fatal("nil")
	}
}

func TestFactorsJSON(t *testing.T) {
	f := mnemo.Factors{"zeta": 2, "keyword": 0.25, "semantic": 0.5, "gate": 1e-7}
	b, err := json.Marshal(struct {
		F mnemo.Factors `json:"factors"`
	}{f})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"factors":{"semantic":0.5,"keyword":0.25,"gate":1e-7,"zeta":2}}`
	if string(b) != want {
		t.Fatalf("got %s\nwant %s", b, want)
	}
	var back struct{ Factors map[string]float64 }
	if err := json.Unmarshal(b, &back); err != nil || back.Factors["gate"] != 1e-7 || len(back.Factors) != 4 {
		t.Fatalf("round trip: %v %v", back, err)
	}
	if b, _ := json.Marshal(mnemo.Factors(nil)); string(b) != "null" {
		t.Fatalf("nil: %s", b)
	}
}
