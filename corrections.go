package mnemo

import (
	"strings"
	"time"
)

// The correction signal. An operator correction records the retrieval it
// followed (Correction.RetrievalID, the RetrievalID of a recall or digest)
// and whether missing context caused it (Correction.MissingContext). The
// share of corrections that missing context caused, and their rate per
// retrieval, are the memory's own quality figures, tracked over time; the
// (query, retrieved, missed) triples of those corrections are training and
// evaluation data.

// Correction report buckets.
const (
	BucketDay   = "day"
	BucketWeek  = "week" // ISO weeks, from Monday 00:00 UTC
	BucketMonth = "month"
)

// CorrectionRequest selects the corrections and retrievals of a report.
type CorrectionRequest struct {
	Since  time.Time `json:"since"`            // zero: 90 days before Until
	Until  time.Time `json:"until"`            // exclusive; zero: now, inclusive
	Bucket string    `json:"bucket,omitempty"` // day, week (default) or month
}

// CorrectionCounts are the figures of one period or group.
type CorrectionCounts struct {
	// Retrievals is the number of recalls and digests logged (0 for a
	// category or component, which retrievals do not have).
	Retrievals int `json:"retrievals"`
	// Corrections is the number of correction records created.
	Corrections int `json:"corrections"`
	// MissingContext counts the corrections that missing context caused.
	MissingContext int `json:"missing_context"`
	// Linked counts the corrections that name a retrieval found in the log.
	Linked int `json:"linked"`
	// MissingShare is MissingContext ÷ Corrections (0 without corrections).
	MissingShare float64 `json:"missing_share"`
	// MissingPer100 is MissingContext per 100 retrievals (0 without
	// retrievals).
	MissingPer100 float64 `json:"missing_per_100_retrievals"`
}

// Finish computes the ratios from the counts.
func (c *CorrectionCounts) Finish() {
	c.MissingShare, c.MissingPer100 = 0, 0
	if c.Corrections > 0 {
		c.MissingShare = float64(c.MissingContext) / float64(c.Corrections)
	}
	if c.Retrievals > 0 {
		c.MissingPer100 = 100 * float64(c.MissingContext) / float64(c.Retrievals)
	}
}

// CorrectionPeriod is one bucket of a report.
type CorrectionPeriod struct {
	Start time.Time `json:"start"`
	CorrectionCounts
}

// CorrectionReport is the correction signal of a namespace over a period.
type CorrectionReport struct {
	Namespace string             `json:"namespace"`
	Since     time.Time          `json:"since"`
	Until     time.Time          `json:"until"`
	Bucket    string             `json:"bucket"`
	Totals    CorrectionCounts   `json:"totals"`
	Periods   []CorrectionPeriod `json:"periods"`
	// ByCategory and ByComponent count corrections (retrievals stay 0);
	// "" is the key of corrections without one.
	ByCategory  map[string]CorrectionCounts `json:"by_category"`
	ByComponent map[string]CorrectionCounts `json:"by_component"`
}

// CorrectionTriple is one missing-context correction with the retrieval it
// followed: what was asked, what was given, and what was missing — the
// records the correction's provenance names as "record:<id>".
type CorrectionTriple struct {
	CorrectionID string    `json:"correction_id"`
	At           time.Time `json:"at"`
	RetrievalID  string    `json:"retrieval_id"`
	Operation    string    `json:"operation"` // recall or digest
	Query        string    `json:"query"`
	Retrieved    []string  `json:"retrieved"`
	Missed       []string  `json:"missed"`
	Category     string    `json:"category,omitempty"`
	Component    string    `json:"component,omitempty"`
	Summary      string    `json:"summary,omitempty"`
}

// MissedRef is the provenance prefix a correction uses to name a record
// whose context was missing.
const MissedRef = "record:"

// MissedIDs returns the record ids a correction's provenance names with
// MissedRef, in order.
func MissedIDs(provenance []string) []string {
	out := []string{}
	for _, p := range provenance {
		if id, ok := strings.CutPrefix(p, MissedRef); ok && id != "" {
			out = append(out, id)
		}
	}
	return out
}

// BucketStart returns the start of the bucket holding t (UTC): the day, the
// ISO week (Monday) or the month. An unknown bucket is treated as a week.
func BucketStart(t time.Time, bucket string) time.Time {
	t = t.UTC()
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	switch bucket {
	case BucketDay:
		return day
	case BucketMonth:
		return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	}
	back := (int(day.Weekday()) + 6) % 7 // days since Monday
	return day.AddDate(0, 0, -back)
}

// NextBucket returns the start of the bucket after the one starting at
// start.
func NextBucket(start time.Time, bucket string) time.Time {
	switch bucket {
	case BucketDay:
		return start.AddDate(0, 0, 1)
	case BucketMonth:
		return start.AddDate(0, 1, 0)
	}
	return start.AddDate(0, 0, 7)
}
