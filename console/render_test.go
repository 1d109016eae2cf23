package console

import (
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

func TestRenderMarkdownEscapesEverything(t *testing.T) {
	md := "# Digest for <b>task</b>\n\n## Domain\n- fact — <script>x()</script> **bold** `code`\n  - why: <img src=x onerror=y>\n\nplain [l](javascript:z)"
	got := string(renderMarkdown(md))
	want := "<h2>Digest for &lt;b&gt;task&lt;/b&gt;</h2><h3>Domain</h3><ul><li>fact — &lt;script&gt;x()&lt;/script&gt; <strong>bold</strong> <code>code</code></li>" +
		"<ul><li>why: &lt;img src=x onerror=y&gt;</li></ul></ul><p>plain [l](javascript:z)</p>"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestWordDiff(t *testing.T) {
	d := wordDiff("due within 72 hours of discovery", "due within 48 hours of discovery")
	var b strings.Builder
	for _, s := range d {
		switch s.Op {
		case 1:
			b.WriteString("{+" + s.Text + "}")
		case -1:
			b.WriteString("{-" + s.Text + "}")
		default:
			b.WriteString(s.Text)
		}
	}
	if got := b.String(); got != "due within {-72}{+48} hours of discovery" {
		t.Fatalf("diff %q", got)
	}
}

func TestHistoryViewsNeverDiffAgainstHiddenRevisions(t *testing.T) {
	revs := []mnemo.Revision{
		{Seq: 1, Action: "create", Record: &mnemo.Record{Text: "a"}},
		{Seq: 2, Action: "update", Redacted: true},
		{Seq: 3, Action: "update", Record: &mnemo.Record{Text: "c", Importance: 0.5}},
		{Seq: 4, Action: "update", Record: &mnemo.Record{Text: "c d", Importance: 0.7}},
	}
	v := historyViews(revs)
	if !v[0].First || v[1].Text != nil || !v[2].Gap || v[2].Text != nil || v[2].Changes != nil {
		t.Fatalf("views %+v", v)
	}
	if len(v[3].Changes) != 1 || v[3].Changes[0].Field != "importance" || len(v[3].Text) != 2 {
		t.Fatalf("last view %+v", v[3])
	}
}

func TestOwns(t *testing.T) {
	for path, want := range map[string]bool{"/": true, "/records": true, "/records/forget": true, "/record/a/b": true, "/v1/records": false,
		"/mcp": false, "/metrics": false, "/healthz": false, "/recordsx": false, "/assets/console.css": true} {
		if Owns(path) != want {
			t.Errorf("Owns(%q) = %v", path, !want)
		}
	}
}

func TestSafeNextStaysOnTheConsole(t *testing.T) {
	for in, want := range map[string]string{"/search?q=x": "/search?q=x", "//evil.example/": "/records", "https://evil.example": "/records",
		"/\\evil.example": "/records", "/v1/export": "/records", "": "/records"} {
		if got := safeNext(in); got != want {
			t.Errorf("safeNext(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUnchangedFormChangesNothing(t *testing.T) {
	cur := &mnemo.Record{Text: "t", Scope: "/s", Importance: 0.955, Confidence: 1, Criticality: 0.1234, Kind: mnemo.KindDecision, Layer: mnemo.LayerWorkflow}
	form := map[string][]string{"text": {"t"}, "scope": {"/s"}, "importance": {funcs["num"].(func(float64) string)(0.955)},
		"confidence": {"1"}, "criticality": {"0.1234"}, "access_level": {"0"}, "kind": {"decision"}, "layer": {"workflow"},
		"tags": {""}, "component": {""}, "mission": {""}, "thread": {""}, "d_title": {""}, "d_alternatives": {""}}
	p, err := patchFromForm(cur, form)
	if err != nil || !p.Empty() {
		t.Fatalf("an unchanged form makes a patch: %+v %v", p, err)
	}
}
