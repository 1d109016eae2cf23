package console_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/mnemo-dev/mnemo"
)

// chromiumPath finds the system browser, or "".
func chromiumPath() string {
	if p := os.Getenv("MNEMO_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// TestConsoleInABrowser drives the console in a real, headless Chromium:
// sign in, search, open a record, edit it, see the change in the digest,
// forget and restore it, mark a retrieval as missed and see the chart
// change; then a key of another namespace and a read key, and a
// cross-site form post. Screenshots go to $MNEMO_CONSOLE_SCREENSHOTS, or
// to a temporary folder.
func TestConsoleInABrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("the browser test does not run with -short")
	}
	exe := chromiumPath()
	if exe == "" {
		t.Skip("no Chromium found (apt-get install chromium, or set MNEMO_CHROMIUM): the browser test is skipped")
	}
	shots := os.Getenv("MNEMO_CONSOLE_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	} else if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}

	f := newFixture(t)
	writeA := f.key(t, mnemo.RoleWrite, 1, "a")
	readA := f.key(t, mnemo.RoleRead, 1, "a")
	adminB := f.key(t, mnemo.RoleAdmin, 1, "b")
	gdpr := f.remember(t, "a", mnemo.NewRecord{Text: "GDPR breach notification is due within 72 hours", Scope: "/regulations/gdpr",
		Importance: ptr(0.9), Component: "compliance"})
	dpo := f.remember(t, "a", mnemo.NewRecord{Text: "We notify the DPO first, then legal", Kind: mnemo.KindDecision, Scope: "/escalation",
		Decision: &mnemo.Decision{Title: "Breach escalation order", Context: "Legal waits for the DPO anyway",
			Alternatives: []mnemo.Alternative{{Option: "Legal first", Reason: "slower"}}, Principle: "Privacy owner decides first"}})
	f.remember(t, "a", mnemo.NewRecord{Text: "Breach drills run every quarter on the staging cluster", Scope: "/ops", Thread: "shift-7"})
	f.remember(t, "a", mnemo.NewRecord{Text: "Shift 7: pager rotation handed to Kim after the breach drill", Scope: "/ops", Thread: "shift-7"})
	oncall := f.remember(t, "a", mnemo.NewRecord{Text: "The privacy officer's phone number is in the on-call sheet", Scope: "/contacts"})
	f.remember(t, "a", mnemo.NewRecord{Text: "Breach playbook TOPSECRETCODE lives in the vault", AccessLevel: 3})
	ruby := f.remember(t, "b", mnemo.NewRecord{Text: "Breach contacts RUBYSECRET of namespace b"})

	dir := t.TempDir()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.UserDataDir(dir),
		chromedp.Flag("headless", true), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.NoFirstRun)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	// Confirmation dialogs (forget) are accepted.
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for _, err := range dialogs {
			if err != nil {
				return
			}
			_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}
	}()

	base := f.ts.URL
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return s
	}
	bodyText := func() string { return text("body") }
	shot := func(name string) {
		t.Helper()
		b, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(shots, name+".png"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	signIn := func(key string) {
		t.Helper()
		do("sign in",
			chromedp.Navigate(base+"/records"),
			chromedp.WaitVisible(chromedp.ID("key")),
			chromedp.SendKeys(chromedp.ID("key"), key),
			chromedp.Submit(chromedp.ID("key")))
		do("after sign-in", chromedp.WaitVisible(chromedp.CSS("body.page-records")))
	}
	do("viewport", chromedp.EmulateViewport(1100, 760))

	// Sign in.
	do("login page", chromedp.Navigate(base+"/records"), chromedp.WaitVisible(chromedp.ID("key")))
	shot("login")
	signIn(writeA)
	if s := bodyText(); !strings.Contains(s, "GDPR breach notification") || !strings.Contains(s, "write") {
		t.Fatalf("records page after sign-in:\n%s", s)
	}
	shot("records")

	// Search, with the score breakdown.
	do("search",
		chromedp.Navigate(base+"/search"),
		chromedp.WaitVisible(chromedp.ID("q")),
		chromedp.SendKeys(chromedp.ID("q"), "breach deadline"),
		chromedp.Submit(chromedp.ID("q")),
		chromedp.WaitVisible(chromedp.CSS("ol.hits li.hit")),
		chromedp.Click(chromedp.CSS("ol.hits li.hit details summary")),
		chromedp.WaitVisible(chromedp.CSS("ol.hits li.hit .why")))
	if s := bodyText(); !strings.Contains(s, "72 hours") || !strings.Contains(s, "Passed the relevance floor") {
		t.Fatalf("search page:\n%s", s)
	}
	shot("search")

	// Open the record and edit it.
	do("open record",
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`ol.hits a[href="/record/%s"]`, gdpr))),
		chromedp.WaitVisible(chromedp.ID("edit-form")))
	do("edit",
		chromedp.SetValue(chromedp.ID("f-text"), "GDPR breach notification is due within 48 hours of discovery"),
		chromedp.SetValue(chromedp.ID("f-importance"), "0.95"),
		chromedp.Click(chromedp.ID("save")),
		chromedp.WaitVisible(chromedp.CSS("p.flash")))
	if s := text("#record-text"); !strings.Contains(s, "48 hours") {
		t.Fatalf("record after edit: %q", s)
	}
	if s := text("ol.history"); !strings.Contains(s, "72") || !strings.Contains(s, "importance") {
		t.Fatalf("history after edit:\n%s", s)
	}
	shot("record")
	do("history", chromedp.ScrollIntoView(chromedp.ID("hist-h")))
	shot("record-history")

	// The digest playground carries the edit.
	do("digest",
		chromedp.Navigate(base+"/digest"),
		chromedp.WaitVisible(chromedp.ID("task")),
		chromedp.SendKeys(chromedp.ID("task"), "handle a data breach"),
		chromedp.Submit(chromedp.ID("task")),
		chromedp.WaitVisible(chromedp.ID("digest-rendered")))
	if s := text("#digest-rendered"); !strings.Contains(s, "48 hours") || strings.Contains(s, "72 hours") {
		t.Fatalf("digest after edit:\n%s", s)
	}
	if s := text("#digest-summary"); !strings.Contains(s, "of 8000 tokens") {
		t.Fatalf("digest summary: %s", s)
	}
	shot("digest")

	// Forget (confirmed in a dialog), then restore.
	do("forget",
		chromedp.Navigate(base+"/record/"+gdpr),
		chromedp.WaitVisible(chromedp.ID("forget")),
		chromedp.Click(chromedp.ID("forget")),
		chromedp.WaitVisible(chromedp.ID("restore")))
	do("search after forget", chromedp.Navigate(base+"/search?q=breach+notification"), chromedp.WaitVisible(chromedp.CSS("ol.hits")))
	if strings.Contains(bodyText(), "48 hours") {
		t.Fatal("a forgotten record is still found")
	}
	do("restore",
		chromedp.Navigate(base+"/record/"+gdpr),
		chromedp.Click(chromedp.ID("restore")),
		chromedp.WaitVisible(chromedp.ID("edit-form")))
	do("search after restore", chromedp.Navigate(base+"/search?q=breach+notification"), chromedp.WaitVisible(chromedp.CSS("ol.hits")))
	if !strings.Contains(bodyText(), "48 hours") {
		t.Fatal("a restored record is not found")
	}

	// Mark the last retrieval as missing context; the chart changes.
	if err := f.svc.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	do("corrections before", chromedp.Navigate(base+"/corrections?by=day"), chromedp.WaitVisible(chromedp.CSS("svg.chart")))
	before, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('svg.chart rect.bar[data-share="1.0000"]').length`))
	if err != nil {
		t.Fatal(err)
	}
	do("retrievals",
		chromedp.Navigate(base+"/retrievals"),
		chromedp.WaitVisible(chromedp.ID("retrievals")))
	shot("retrievals")
	do("open retrieval",
		chromedp.Click(chromedp.CSS(`#retrievals tbody a[href^="/retrieval/"]`)),
		chromedp.WaitVisible(chromedp.ID("missed-form")),
		chromedp.SendKeys(chromedp.CSS(`input[name=find]`), "privacy officer phone on-call sheet"),
		chromedp.Submit(chromedp.CSS(`input[name=find]`)),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`input[type=radio][value="%s"]`, oncall))),
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`input[type=radio][value="%s"]`, oncall))),
		chromedp.SendKeys(chromedp.CSS(`input[name=category]`), "escalation"),
		chromedp.Click(chromedp.ID("mark-missed")),
		chromedp.WaitVisible(chromedp.CSS("body.page-corrections svg.chart")))
	after, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('svg.chart rect.bar[data-share="1.0000"]').length`))
	if err != nil {
		t.Fatal(err)
	}
	if after != before+1 {
		t.Fatalf("the chart did not change: %d bars at 100%% before, %d after", before, after)
	}
	if s := text("#corrections-total"); !strings.Contains(s, "1 caused by missing context") {
		t.Fatalf("corrections total: %s", s)
	}
	shot("corrections")

	do("handoff", chromedp.Navigate(base+"/handoff?go=1&budget=1500"), chromedp.WaitVisible(chromedp.ID("handoff-brief")))
	shot("handoff")
	do("thread", chromedp.Navigate(base+"/thread/shift-7"), chromedp.WaitVisible(chromedp.CSS("ol.timeline")))
	shot("thread")
	do("health", chromedp.Navigate(base+"/health"), chromedp.WaitVisible(chromedp.CSS("body.page-health")))

	// Phone width.
	do("phone", chromedp.EmulateViewport(390, 800), chromedp.Navigate(base+"/record/"+dpo), chromedp.WaitVisible(chromedp.CSS("section.decision")))
	shot("record-phone")
	do("laptop", chromedp.EmulateViewport(1100, 760))

	// Nothing above the clearance, nothing of namespace b.
	for _, p := range []string{"/records", "/search?q=breach+playbook+vault", "/search?q=breach+contacts", "/digest?task=breach+playbook+contacts",
		"/handoff?go=1", "/retrievals"} {
		do(p, chromedp.Navigate(base+p), chromedp.WaitVisible(chromedp.CSS("main")))
		if s := bodyText(); strings.Contains(s, "TOPSECRETCODE") || strings.Contains(s, "RUBYSECRET") {
			t.Fatalf("%s shows a hidden record:\n%s", p, s)
		}
	}
	do("b's record", chromedp.Navigate(base+"/record/"+ruby), chromedp.WaitVisible(chromedp.CSS("main")))
	if s := bodyText(); !strings.Contains(s, "Not Found") || strings.Contains(s, "RUBYSECRET") {
		t.Fatalf("b's record by id:\n%s", s)
	}
	// The namespace picker offers a only.
	opts2, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#ns-pick option')].map(o => o.value)`))
	if err != nil || len(opts2) != 1 || opts2[0] != "a" {
		t.Fatalf("namespaces offered: %v %v", opts2, err)
	}

	// A cross-site page that posts a form to the console is refused.
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<form id="f" method="post" action="%s/record/%s"><input name="action" value="forget"></form>
<script>document.getElementById("f").submit()</script>`, base, gdpr)
	}))
	defer evil.Close()
	evilURL := strings.Replace(evil.URL, "127.0.0.1", "localhost", 1)
	do("cross-site post", chromedp.Navigate(evilURL), chromedp.Sleep(1500*time.Millisecond))
	if rec, _ := f.svc.Get(mnemo.WithCallerIn(context.Background(), mnemo.Caller{Clearance: 1, Role: mnemo.RoleAdmin}, "a"), gdpr); rec.DeletedAt != nil {
		t.Fatal("a cross-site form post forgot the record")
	}

	// A read key gets no edit controls, and the server refuses its edits.
	do("sign out", chromedp.Navigate(base+"/records"), chromedp.WaitVisible(chromedp.CSS("header form[action='/logout'] button")),
		chromedp.Click(chromedp.CSS("header form[action='/logout'] button")), chromedp.WaitVisible(chromedp.ID("key")))
	signIn(readA)
	do("record as reader", chromedp.Navigate(base+"/record/"+gdpr), chromedp.WaitVisible(chromedp.ID("record-text")))
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#edit-form, #forget, #restore, input[name=action]').length`))
	if err != nil || n != 0 {
		t.Fatalf("a read key sees %d edit controls (%v)", n, err)
	}
	// A hand-made form with the session's token is refused by the server.
	do("forged edit",
		chromedp.Evaluate[chromedp.Void](`(() => { const f = document.createElement('form'); f.method = 'post'; f.action = location.pathname;
  f.innerHTML = '<input name="action" value="edit"><input name="text" value="changed by a reader"><input name="csrf" value="' +
  document.querySelector('input[name=csrf]').value + '">'; document.body.appendChild(f); f.submit(); })()`),
		chromedp.WaitVisible(chromedp.CSS("body.page-error")))
	if s := bodyText(); !strings.Contains(s, "cannot change records") {
		t.Fatalf("forged edit by a read key:\n%s", s)
	}
	if rec, _ := f.svc.Get(mnemo.WithCallerIn(context.Background(), mnemo.Caller{Clearance: 1, Role: mnemo.RoleAdmin}, "a"), gdpr); strings.Contains(rec.Text, "reader") {
		t.Fatal("a read key changed the record")
	}

	// A key of namespace b sees b only.
	do("sign out", chromedp.Navigate(base+"/records"), chromedp.WaitVisible(chromedp.CSS("header form[action='/logout'] button")),
		chromedp.Click(chromedp.CSS("header form[action='/logout'] button")), chromedp.WaitVisible(chromedp.ID("key")))
	signIn(adminB)
	if s := bodyText(); !strings.Contains(s, "RUBYSECRET") || strings.Contains(s, "GDPR") {
		t.Fatalf("b's records page:\n%s", s)
	}
	t.Logf("screenshots in %s", shots)
}
