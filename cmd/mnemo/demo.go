package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// demoTask is the sample task the demo digests.
const demoTask = "Plan tonight's ground-station pass for the Sentinel relay and brief the incoming operator"

func f64(v float64) *float64 { return &v }

// demoMission is a small mission: pinned rules, domain facts, decisions with
// their rejected alternatives, and an operator's correction patterns.
func demoMission(now time.Time) []mnemo.NewRecord {
	ago := func(d time.Duration) *time.Time { t := now.Add(-d); return &t }
	// earlierToday is d ago, but no earlier than today's midnight: the
	// forecast for tonight was issued today whatever the hour, so the task's
	// "tonight" finds it at any time of day.
	earlierToday := func(d time.Duration) *time.Time {
		t := now.Add(-d)
		if midnight := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location()); t.Before(midnight) {
			t = midnight
		}
		return &t
	}
	day := 24 * time.Hour
	return []mnemo.NewRecord{
		{Kind: mnemo.KindCore, Layer: mnemo.LayerDomain, Scope: "/rules/mission", Importance: f64(1),
			Text: "Mission Sentinel-7: keep the relay satellite's telemetry link above 99.5% availability; never command a burn without two-operator sign-off.", At: ago(40 * day)},
		{Kind: mnemo.KindFact, Scope: "/rules/safety", Importance: f64(0.9), Criticality: f64(0.9),
			Text: "Safety rule: uplink power above 200 W requires the RF safety officer on the loop; Svalbard station limits uplink to 150 W after 22:00 local time.", At: ago(300 * day)},
		{Kind: mnemo.KindFact, Scope: "/news/space-weather", Importance: f64(0.6), Criticality: f64(0.7),
			Text: "Space weather: a G2 geomagnetic storm is forecast for tonight; expect scintillation on S-band passes above 60° latitude.", At: earlierToday(6 * time.Hour)},
		{Kind: mnemo.KindFact, Scope: "/market/ground-segment", Importance: f64(0.4),
			Text: "Ground segment: Svalbard and Inuvik both track Sentinel; Inuvik's 13 m antenna is in maintenance until Friday.", At: ago(3 * day)},
		{Kind: mnemo.KindDecision, Scope: "/cases/passes", Importance: f64(0.8), Component: "pass-planning",
			Text: "Night passes go through Svalbard with the backup link pre-armed.", At: ago(2 * day),
			Provenance: []string{"issue:OPS-412", "session:shift-2026-11-27-night"},
			Decision: &mnemo.Decision{Title: "Route night passes via Svalbard", Decision: "Use Svalbard for all night passes while Inuvik is down; pre-arm the backup X-band link.",
				Context: "Inuvik maintenance plus storm season; two missed passes last month came from single-station plans.",
				Alternatives: []mnemo.Alternative{{Option: "Wait for Inuvik", Reason: "misses three days of telemetry"},
					{Option: "Commercial ground network", Reason: "contract latency of 48 h to add a pass"}},
				Principle: "Availability first: never plan a pass with a single point of failure.", Status: "accepted"}},
		{Kind: mnemo.KindDecision, Scope: "/cases/burns", Importance: f64(0.7), Component: "orbit",
			Text: "Station-keeping burn moved to Thursday's daylight pass.", At: ago(1 * day),
			Provenance: []string{"commit:9f3c2ab", "issue:OPS-419"},
			Decision: &mnemo.Decision{Title: "Defer burn to daylight", Decision: "Execute the station-keeping burn on Thursday's 14:10 UTC pass.",
				Alternatives: []mnemo.Alternative{{Option: "Burn tonight", Reason: "storm raises link-loss risk during the burn"}},
				Principle:    "Commands with irreversible effects only on a stable link.", Status: "accepted"}},
		{Kind: mnemo.KindProcedure, Scope: "/scripts/pass", Importance: f64(0.6),
			Text: "How to prepare a pass: 1) check space weather, 2) confirm station availability, 3) load the command plan, 4) pre-arm backup link, 5) get second-operator sign-off.", At: ago(90 * day)},
		{Kind: mnemo.KindCorrection, Scope: "/operators/kim", Importance: f64(0.6), Source: "observed",
			Text: "Operator Kim corrects plans that omit the backup-link check; she expects it stated explicitly in every pass brief.",
			Correction: &mnemo.Correction{Class: "omission", Category: "pass-planning", Component: "pass-planning", Outcome: mnemo.OutcomeModified,
				Summary: "Pass briefs must state the backup-link status.", MissingContext: true}, At: ago(5 * day)},
		{Kind: mnemo.KindPreference, Scope: "/user_profile/kim", Importance: f64(0.5), Source: "observed",
			Text: "Kim prefers briefs as a numbered checklist with UTC times, no prose.", At: ago(20 * day)},
		{Kind: mnemo.KindEpisode, Scope: "/session/2026-11-27", Importance: f64(0.3),
			Text: "Last night's shift: pass 3 lost lock for 40 s at 23:12 UTC; recovered on backup link; no data loss.", At: ago(20 * time.Hour)},
	}
}

func cmdDemo(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	budget := fs.Int("budget", 1200, "token budget of the sample digest")
	if _, err := a.parseFlags(fs, args); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "mnemo-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	a.db = filepath.Join(dir, "demo.db")
	svc, err := a.service(ctx)
	if err != nil {
		return err
	}
	recs := demoMission(time.Now())
	if _, err := svc.Remember(mnemo.WithCallerIn(ctx, a.caller(), a.ns()), recs, mnemo.WriteOptions{}); err != nil {
		return err
	}
	d, err := svc.Digest(mnemo.WithCallerIn(ctx, a.caller(), a.ns()), mnemo.DigestRequest{Task: demoTask, Budget: *budget})
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(d)
	}
	fmt.Fprintf(a.stdout, "Loaded %d example memories into a temporary store (%s).\nTask: %s\n\n", len(recs), a.db, demoTask)
	fmt.Fprint(a.stdout, d.Markdown)
	fmt.Fprintf(a.stdout, "\n%d entries, %d of %d tokens (%s), intent %s, %d candidates left out.\n",
		len(d.Entries), d.UsedTokens, d.Budget, d.Tokenizer, d.Intent, d.Omitted)
	return nil
}
