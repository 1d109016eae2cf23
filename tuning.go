package mnemo

import "time"

// A namespace's tuning history: the versions of its scoring configuration
// (tune, config apply, the cold loop), which one is in force and when it
// changed.

// TuningVersion is one accepted setting of a namespace's weights.
type TuningVersion struct {
	Version   int        `json:"version"`
	At        time.Time  `json:"at"`
	Weights   Weights    `json:"weights"`
	Before    float64    `json:"recall_before"`   // on the search half, with the weights it replaced
	After     float64    `json:"recall_after"`    // on the search half
	HeldOut   [2]float64 `json:"held_out_recall"` // on the held-out half: before, after
	Triples   int        `json:"triples"`         // triples used, both halves
	ActorNote string     `json:"actor,omitempty"` // who tuned
	// Config is the version's whole configuration document (nil for a
	// version that set the weights only: the default with Weights).
	Config *ScoringConfig `json:"config,omitempty"`
	// Action made the version: tune, apply or loop.
	Action string `json:"action,omitempty"`
	// Author is a role (loop/mentor) or a key or operator name.
	Author string `json:"author,omitempty"`
	// Reason says why the version was made.
	Reason string `json:"reason,omitempty"`
	// Evaluation holds the figures measured when it was made, by name.
	Evaluation map[string]float64 `json:"evaluation,omitempty"`
}

// Tuning is a namespace's tuning history and the version in force (0: the
// preset's own weights).
type Tuning struct {
	Active   int             `json:"active"`
	Versions []TuningVersion `json:"versions"`
	Events   []TuningEvent   `json:"events"`
}

// TuningEvent records a change of the active version.
type TuningEvent struct {
	At     time.Time `json:"at"`
	Active int       `json:"active"`
	Action string    `json:"action"` // tune, rollback
	Actor  string    `json:"actor,omitempty"`
}

// TuneResult is what Tune found.
type TuneResult struct {
	Accepted bool       `json:"accepted"`
	Reason   string     `json:"reason"` // why it was accepted or refused
	DryRun   bool       `json:"dry_run,omitempty"`
	Triples  int        `json:"triples"`
	From     Weights    `json:"from"`
	To       Weights    `json:"to"`
	Before   float64    `json:"recall_before"`
	After    float64    `json:"recall_after"`
	HeldOut  [2]float64 `json:"held_out_recall"`
	Version  int        `json:"version,omitempty"` // the new active version when accepted
}
