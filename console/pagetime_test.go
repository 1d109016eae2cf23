package console_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// TestPageTimes times the console's pages on a store of
// $MNEMO_CONSOLE_PAGETIMES records (e.g. 100000) and prints the median
// and slowest of several loads of each. It is a measurement, not an
// assertion: it runs only when the variable is set.
//
//	MNEMO_CONSOLE_PAGETIMES=100000 go test ./console/ -run PageTimes -v
func TestPageTimes(t *testing.T) {
	n := 0
	if _, err := fmt.Sscan(os.Getenv("MNEMO_CONSOLE_PAGETIMES"), &n); err != nil || n <= 0 {
		t.Skip("set MNEMO_CONSOLE_PAGETIMES=N to time the console's pages on a store of N records")
	}
	f := newFixture(t)
	ctx := context.Background()
	local := mnemo.Caller{Name: "loader", Clearance: mnemo.MaxAccessLevel, Role: mnemo.RoleAdmin}
	words := strings.Fields("pump valve uplink breach notification deadline svalbard inuvik pass telemetry power safety officer " +
		"legal dpo regulation escalation drill rotation pager shift cluster staging deploy freeze ledger database migration " +
		"antenna battery thermal attitude orbit window ground station contact schedule anomaly report review audit")
	rng := rand.New(rand.NewPCG(1, 2))
	start := time.Now()
	var someID string
	for done := 0; done < n; {
		batch := make([]mnemo.NewRecord, 0, 1000)
		for i := 0; i < 1000 && done+i < n; i++ {
			var b strings.Builder
			for w := 0; w < 12+rng.IntN(12); w++ {
				b.WriteString(words[rng.IntN(len(words))] + " ")
			}
			r := mnemo.NewRecord{Text: fmt.Sprintf("%s#%d", b.String(), done+i), Scope: "/s" + fmt.Sprint(rng.IntN(20)),
				Component: words[rng.IntN(8)], AccessLevel: rng.IntN(2)}
			if i%50 == 0 {
				r.Thread = fmt.Sprintf("thread-%d", (done+i)/500)
			}
			batch = append(batch, r)
		}
		out, err := f.svc.Remember(mnemo.WithCallerIn(ctx, local, "default"), batch, mnemo.WriteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		someID = out[0].ID
		done += len(batch)
	}
	t.Logf("loaded %d records in %s", n, time.Since(start).Round(time.Second))
	for i := 0; i < 300; i++ {
		if _, err := f.svc.Recall(mnemo.WithCallerIn(ctx, local, "default"), mnemo.RecallRequest{Query: words[i%len(words)] + " " + words[(i*7)%len(words)], K: 10}); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.svc.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	b := f.browser(t)
	b.get("/records") // the keyless local user; warms the indexes
	pages := []string{"/records", "/records?layer=domain&scope=/s3", "/records?component=pump&since=2000-01-01", "/search?q=breach+notification+deadline",
		"/search?q=uplink+power+safety&offset=20", "/record/" + someID, "/digest?task=plan+the+night+pass+via+svalbard&budget=2000",
		"/retrievals", "/corrections", "/handoff?go=1", "/threads", "/thread/thread-3", "/health"}
	t.Logf("%-60s %8s %8s", "page", "median", "max")
	for _, p := range pages {
		var ds []time.Duration
		for range 7 {
			t0 := time.Now()
			st, _, _ := b.get(p)
			ds = append(ds, time.Since(t0))
			if st != http.StatusOK {
				t.Fatalf("%s: %d", p, st)
			}
		}
		slices.Sort(ds)
		t.Logf("%-60s %8s %8s", p, ds[len(ds)/2].Round(100*time.Microsecond), ds[len(ds)-1].Round(100*time.Microsecond))
	}
}
