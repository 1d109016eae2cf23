package server_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/engine"
)

// benchTasks are the digest tasks of BenchmarkDigestHTTP.
var benchTasks = []string{"plan the payment service migration", "handle a GDPR data breach", "prepare the Friday deploy of the mobile app",
	"why did we choose PostgreSQL for the ledger", "how do I roll back the billing export"}

// loadRecords writes n varied records into the default namespace.
func loadRecords(b testing.TB, svc *engine.Service, n int) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"payment", "ledger", "reactor", "coolant", "pump", "gdpr", "breach", "mobile", "search", "index", "billing",
		"export", "rotation", "satellite", "uplink", "onboarding", "fraud", "model", "warehouse", "release", "gateway", "audit",
		"postgres", "kafka", "redis", "canary", "deploy", "incident", "review", "compliance", "region", "flag", "latency", "budget"}
	for i := 0; i < n; i += 1000 {
		batch := make([]mnemo.NewRecord, 0, 1000)
		for j := i; j < min(i+1000, n); j++ {
			text := fmt.Sprintf("note %d:", j)
			for range 12 {
				text += " " + words[r.IntN(len(words))]
			}
			at := time.Now().Add(-time.Duration(r.IntN(3000)) * time.Hour)
			batch = append(batch, mnemo.NewRecord{Text: text, At: &at})
		}
		if _, err := svc.Remember(mnemo.WithCallerIn(context.Background(), mnemo.Caller{Clearance: 1, Role: mnemo.RoleAdmin}, "default"), batch, mnemo.WriteOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDigestHTTP measures POST /v1/digest over a real loopback
// connection against 10,000 records.
func BenchmarkDigestHTTP(b *testing.B) {
	f := newFixture(b, nil)
	loadRecords(b, f.svc, 10000)
	b.ResetTimer()
	i := 0
	for b.Loop() {
		body := fmt.Sprintf(`{"task_description":%q}`, benchTasks[i%len(benchTasks)])
		i++
		resp, err := http.Post(f.ts.URL+"/v1/digest", "application/json", bytes.NewBufferString(body))
		if err != nil || resp.StatusCode != 200 {
			b.Fatal(err, resp.Status)
		}
		resp.Body.Close()
	}
}
