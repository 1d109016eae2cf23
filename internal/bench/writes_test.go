package bench

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

func TestRunWrites(t *testing.T) {
	rep, err := RunWrites(context.Background(), WritesOptions{Records: 120, Window: 50, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Windows) != 3 || rep.Windows[2].From != 100 || rep.Windows[2].To != 120 {
		t.Fatalf("windows %+v", rep.Windows)
	}
	for _, w := range rep.Windows {
		if w.Latency.P50 <= 0 || w.Latency.P95 < w.Latency.P50 || w.PerSecond <= 0 {
			t.Errorf("window %+v", w)
		}
	}
	if rep.PerSecond <= 0 || rep.FirstLastP95 <= 0 {
		t.Errorf("report %+v", rep)
	}
	var md strings.Builder
	if err := rep.WriteMarkdown(&md); err != nil || !strings.Contains(md.String(), "| 100–120 |") {
		t.Errorf("markdown %q %v", md.String(), err)
	}
}

func TestRunWriteCheck(t *testing.T) {
	c, err := RunWriteCheck(context.Background(), WriteCheckOptions{Small: 60, Large: 150, Writes: 20, LeadIn: 10, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if c.Small != 60 || c.Large != 150 || c.Writes != 20 || c.LeadIn != 10 || c.MaxRatio != 4 {
		t.Fatalf("check %+v", c)
	}
	if c.SmallLatency.P50 <= 0 || c.LargeLatency.P50 <= 0 || c.P50Ratio <= 0 || c.P95Ratio <= 0 || c.LeadInLarge.P50 <= 0 {
		t.Errorf("check %+v", c)
	}
	if s := c.String(); !strings.Contains(s, "up to 60 vs up to 150 records") {
		t.Errorf("summary %q", s)
	}
	if (&WriteCheck{P50Ratio: 1, P95Ratio: 4.5, MaxRatio: 4}).Failed() != true || (*WriteCheck)(nil).Failed() {
		t.Error("Failed")
	}
	if _, err := RunWriteCheck(context.Background(), WriteCheckOptions{Small: 100, Large: 50}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("large below small: %v", err)
	}
}
