package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/internal/llmtest"
	"github.com/mnemo-dev/mnemo/score"
)

// generalQuery is a query the rules call general.
const generalQuery = "night pass brief for the Svalbard station"

// intentFixture is a service asking chat for the intents the rules call
// general.
func intentFixture(t *testing.T, chat *llmtest.FakeChat, timeout time.Duration) *fixture {
	t.Helper()
	f := open(t, "", func(c *engine.Config) { c.Chat = chat.Model(t, timeout); c.IntentModel = true })
	f.remember(t, "ops", mnemo.NewRecord{Text: "Night pass briefs list the Svalbard station first."})
	return f
}

func recallIntent(t *testing.T, f *fixture, ns, query, intent string) *mnemo.RecallResult {
	t.Helper()
	res, err := f.svc.Recall(mnemo.WithCallerIn(context.Background(), admin, ns), mnemo.RecallRequest{Query: query, Intent: intent})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func waitIntents(t *testing.T, f *fixture) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := f.svc.WaitIntents(ctx); err != nil {
		t.Fatal(err)
	}
}

// A query the rules call general is answered by the rules and queued for
// the model; once the model has answered, later requests with the same
// query (case and spacing aside) in the namespace take its intent, and
// say so. A query the rules classify never reaches the model, nor does a
// request naming its intent.
func TestIntentByModel(t *testing.T) {
	if score.Classify(generalQuery) != score.IntentGeneral {
		t.Fatalf("the rules classify %q", generalQuery)
	}
	chat := llmtest.NewFakeChat(t, llmtest.FixedAnswer(`{"intent": "howto", "confidence": 0.9}`))
	f := intentFixture(t, chat, 5*time.Second)
	if res := recallIntent(t, f, "ops", generalQuery, ""); res.Intent != "general" || res.IntentBy != "rules" {
		t.Fatalf("first request: %s by %s", res.Intent, res.IntentBy)
	}
	waitIntents(t, f)
	res := recallIntent(t, f, "ops", "  Night PASS brief for the   svalbard station ", "")
	if res.Intent != "howto" || res.IntentBy != "model" {
		t.Fatalf("after the model's answer: %s by %s", res.Intent, res.IntentBy)
	}
	if b, _ := json.Marshal(res); !strings.Contains(string(b), `"intent":"howto","intent_by":"model"`) {
		t.Fatalf("recall JSON: %s", b)
	}
	d, err := f.svc.Digest(mnemo.WithCallerIn(context.Background(), admin, "ops"), mnemo.DigestRequest{Task: generalQuery, Budget: 500})
	if err != nil {
		t.Fatal(err)
	}
	if d.Intent != "howto" || d.IntentBy != "model" || !strings.Contains(string(d.AppendJSON(nil)), `"intent":"howto","intent_by":"model"`) {
		t.Fatalf("digest: %s by %s", d.Intent, d.IntentBy)
	}
	// The weights are those of the model's intent.
	p, _ := f.svc.Preset("")
	if want := p.ForIntent(score.IntentHowTo).Map(); fmt.Sprint(res.Weights["semantic"]) != fmt.Sprint(want["semantic"]) {
		t.Fatalf("weights %v, want those of howto %v", res.Weights, want)
	}
	if chat.Calls() != 1 {
		t.Fatalf("the model was asked %d times for one query", chat.Calls())
	}
	// Another namespace has its own answers.
	if res := recallIntent(t, f, "lab", generalQuery, ""); res.IntentBy != "rules" {
		t.Fatalf("another namespace: %s by %s", res.Intent, res.IntentBy)
	}
	waitIntents(t, f)
	// Classified by the rules, or named by the request: no model.
	if res := recallIntent(t, f, "ops", "why did we route night passes via Svalbard", ""); res.Intent != "why" || res.IntentBy != "rules" {
		t.Fatalf("rules: %s by %s", res.Intent, res.IntentBy)
	}
	if res := recallIntent(t, f, "ops", "brand new words about antennas", "recent"); res.Intent != "recent" || res.IntentBy != "request" {
		t.Fatalf("request: %s by %s", res.Intent, res.IntentBy)
	}
	waitIntents(t, f)
	if chat.Calls() != 2 {
		t.Fatalf("%d model calls, want 2 (one per namespace)", chat.Calls())
	}
	for _, u := range chat.Users() {
		if strings.Contains(u, "why did") || strings.Contains(u, "antennas") {
			t.Fatalf("the model was asked about %q", u)
		}
	}
}

// A request never waits for the model: while the model holds its answer,
// requests with the query are answered by the rules; the queue is
// bounded, and Close does not wait for the model either.
func TestIntentModelNeverOnTheRequestPath(t *testing.T) {
	started, release := make(chan struct{}, 1000), make(chan struct{})
	chat := llmtest.NewFakeChat(t, func(_ http.ResponseWriter, _, _ string) (string, string) {
		started <- struct{}{}
		<-release
		return `{"intent": "rules"}`, "stop"
	})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free) // before the fake server closes
	f := intentFixture(t, chat, time.Hour)
	if res := recallIntent(t, f, "ops", generalQuery, ""); res.IntentBy != "rules" {
		t.Fatalf("first: %+v", res.IntentBy)
	}
	<-started // the model is asked, and holds its answer
	for i := range 200 {
		if res := recallIntent(t, f, "ops", fmt.Sprintf("%s number %d", generalQuery, i), ""); res.IntentBy != "rules" || res.Intent != "general" {
			t.Fatalf("while the model is asked: %s by %s", res.Intent, res.IntentBy)
		}
		if res := recallIntent(t, f, "ops", generalQuery, ""); res.IntentBy != "rules" {
			t.Fatalf("while the model is asked: %s by %s", res.Intent, res.IntentBy)
		}
	}
	free()
	waitIntents(t, f)
	if res := recallIntent(t, f, "ops", generalQuery, ""); res.Intent != "rules" || res.IntentBy != "model" {
		t.Fatalf("after the answer: %s by %s", res.Intent, res.IntentBy)
	}
	// One call in flight and a bounded queue behind it: the other
	// queries were dropped, to be queued again by a later request.
	if n := chat.Calls(); n > 1+64 {
		t.Fatalf("%d model calls for 201 queries", n)
	}

	// Close with a call in flight: it is cancelled, not waited for.
	blocked := make(chan struct{})
	chat2 := llmtest.NewFakeChat(t, func(_ http.ResponseWriter, _, _ string) (string, string) {
		started <- struct{}{}
		<-blocked
		return `{"intent": "rules"}`, "stop"
	})
	t.Cleanup(func() { close(blocked) })
	g := intentFixture(t, chat2, time.Hour)
	recallIntent(t, g, "ops", generalQuery, "")
	<-started
	if err := g.svc.Close(); err != nil {
		t.Fatal(err)
	}
}

// Slow (past the call's time bound), refusing, cut off, malformed or
// out-of-shape answers leave the rules' intent, and the query is not
// asked again at once.
func TestIntentModelFailuresLeaveTheRules(t *testing.T) {
	models := llmtest.BrokenModels(`{"intent": "howto"}`)
	for name, content := range map[string]string{
		"unknown intent": `{"intent": "banana"}`,
		"no intent":      `{"mood": "howto"}`,
		"not a string":   `{"intent": 3}`,
		"empty intent":   `{"intent": ""}`,
		"not an object":  `["howto"]`,
	} {
		models[name] = llmtest.FixedAnswer(content)
	}
	for name, answer := range models {
		t.Run(name, func(t *testing.T) {
			chat := llmtest.NewFakeChat(t, answer)
			f := intentFixture(t, chat, llmtest.CallBound(name, 100*time.Millisecond))
			recallIntent(t, f, "ops", generalQuery, "")
			waitIntents(t, f)
			for range 2 {
				if res := recallIntent(t, f, "ops", generalQuery, ""); res.Intent != "general" || res.IntentBy != "rules" {
					t.Fatalf("%s by %s", res.Intent, res.IntentBy)
				}
				waitIntents(t, f)
			}
			if chat.Calls() != 1 {
				t.Fatalf("the failing model was asked %d times", chat.Calls())
			}
		})
	}
}
