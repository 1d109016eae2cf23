package loops

import (
	"context"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/tuning"
)

// ApplyOptions says how Apply treats a configuration document.
type ApplyOptions struct {
	// Force skips the Mentor's rules; the version is recorded all the same,
	// its reason saying it was forced.
	Force bool
	// Reason says why (default "applied from a file").
	Reason string
}

// Apply makes cfg a new version of the namespace's configuration, by c:
// unless forced, it must pass the rules that need no measurement (the
// configuration's bounds and the bounded step from the active version).
// Its evaluation holds the validation score of the current probes before
// and after. Errors: EINVALID for a malformed document or a failed rule
// (the message names the rule: "refused by rule step: …").
func (l *Loops) Apply(ctx context.Context, c mnemo.Caller, ns string, cfg mnemo.ScoringConfig, opt ApplyOptions) (*tuning.ConfigVersion, error) {
	ns = nsOf(ns)
	defer l.lock(ns)()
	active, err := l.Svc.Config(mnemo.WithCallerIn(ctx, c, ns), -1)
	if err != nil {
		return nil, err
	}
	if v := l.Check(active.Config, cfg); !v.OK && !opt.Force {
		return nil, mnemo.Errorf(mnemo.EINVALID, "refused by rule %s: %s", v.Rule, v.Detail)
	}
	before, after, probes, err := l.Evaluate(ctx, c, ns, cfg)
	if err != nil {
		return nil, err
	}
	why := opt.Reason
	if why == "" {
		why = "applied from a file"
	}
	if opt.Force {
		why += " (forced: rules not checked)"
	}
	return l.Svc.ApplyConfig(mnemo.WithCallerIn(ctx, c, ns), cfg, tuning.ConfigChange{Action: "apply", Author: c.Name, Reason: why,
		Evaluation: map[string]float64{"validation_before": before, "validation_after": after, "probes": float64(probes)}})

}

// Check applies the rules a document must pass to be applied without
// force: its own bounds, then the bounded step from the active version.
func (l *Loops) Check(active, cfg mnemo.ScoringConfig) Verdict {
	if v := CheckConfig(cfg); !v.OK {
		return v
	}
	return CheckStep(active, cfg)
}
