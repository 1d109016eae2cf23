package main

import (
	"strings"
	"testing"
	"time"
)

// TestDemoForecastIsToday: the demo's task plans "tonight's" pass, and the
// forecast for tonight is a record of today at every hour the demo may
// run, so its digest (and the golden output) does not depend on the clock.
func TestDemoForecastIsToday(t *testing.T) {
	for _, hm := range [][2]int{{0, 0}, {0, 30}, {3, 0}, {5, 59}, {6, 1}, {12, 0}, {23, 59}} {
		now := time.Date(2026, 12, 2, hm[0], hm[1], 0, 0, time.UTC)
		found := false
		for _, r := range demoMission(now) {
			if !strings.HasPrefix(r.Text, "Space weather") {
				continue
			}
			found = true
			if r.At == nil || r.At.YearDay() != now.YearDay() || r.At.After(now) {
				t.Errorf("at %02d:%02d the forecast is dated %v, want earlier today", hm[0], hm[1], r.At)
			}
		}
		if !found {
			t.Fatal("the demo has no space-weather forecast")
		}
	}
}
