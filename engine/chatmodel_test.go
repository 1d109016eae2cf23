package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/internal/llmtest"
)

// Recall and digest never ask the model.
func TestChatModelNeverOnTheReadPath(t *testing.T) {
	chat := llmtest.NewFakeChat(t, llmtest.FixedAnswer(`{"intent": "recent"}`))
	f := open(t, "", func(c *engine.Config) { c.Chat = chat.Model(t, time.Second) })
	f.remember(t, "ops", mnemo.NewRecord{Text: "Реліз 4.2 переносять на 12 грудня."})
	ctx := context.Background()
	if _, err := f.svc.Recall(mnemo.WithCallerIn(ctx, admin, "ops"), mnemo.RecallRequest{Query: "коли реліз 4.2?"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Digest(mnemo.WithCallerIn(ctx, admin, "ops"), mnemo.DigestRequest{Task: "реліз 4.2", Budget: 500}); err != nil {
		t.Fatal(err)
	}
	if chat.Calls() != 0 {
		t.Errorf("the read path asked the model %d times", chat.Calls())
	}
}
