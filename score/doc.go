// Package score is mnemo's ranking math: the composite score, the recency
// half-life table, the scoring presets, rule-based query intent and the
// degraded (triage) ranking used when a namespace is overloaded.
//
// Every candidate record is scored as
//
//	score = w_sem·semantic + w_kw·keyword + w_rec·recency + w_imp·importance
//	      + w_conf·confidence + w_freq·frequency          (clamped to [0, 1])
//	recency = max(2^(−age_days / half_life(scope)), floor)
//
// where every factor is in [0, 1] and the weights come from a [Preset],
// re-weighted per query by [Preset.ForIntent]. Under overload the ranking
// becomes [TriageScore] with α from [TriageAlpha].
//
// The package does no I/O and imports only the standard library and the
// root mnemo package; all functions are pure and safe for concurrent use.
package score
