package score

import (
	"math"

	"github.com/mnemo-dev/mnemo"
)

// DefaultHalfLifeDays is the half-life of a scope no table entry matches.
const DefaultHalfLifeDays = 30

// ReferenceHalfLives returns the reference half-life table, in its order:
// /news 90, /market 90, /objections 730, /scripts 730, /regulations 3650,
// /rules 3650, /cases 730, /precedents 365. The result is a fresh slice.
func ReferenceHalfLives() []mnemo.HalfLife {
	return []mnemo.HalfLife{
		{Prefix: "/news", Days: 90},
		{Prefix: "/market", Days: 90},
		{Prefix: "/objections", Days: 730},
		{Prefix: "/scripts", Days: 730},
		{Prefix: "/regulations", Days: 3650},
		{Prefix: "/rules", Days: 3650},
		{Prefix: "/cases", Days: 730},
		{Prefix: "/precedents", Days: 365},
	}
}

// ExtendedHalfLives returns the reference table preceded by two entries for
// a memory server: /user_profile at 36500 days (a century: profile data is
// effectively permanent) and /session at 0.01 days (about 14 minutes:
// session scratch fades within the hour). Neither prefix is a prefix of, or
// prefixed by, a reference entry, so putting them first changes no
// reference scope; it only makes them win over any later catch-all entry.
// The result is a fresh slice.
func ExtendedHalfLives() []mnemo.HalfLife {
	return append([]mnemo.HalfLife{
		{Prefix: "/user_profile", Days: 36500},
		{Prefix: "/session", Days: 0.01},
	}, ReferenceHalfLives()...)
}

// ResolveHalfLife returns the days of the first entry of table whose prefix
// scope starts with (plain, case-sensitive string prefix: "/newsletter"
// matches "/news"), else def. A def that is not positive means
// DefaultHalfLifeDays.
func ResolveHalfLife(table []mnemo.HalfLife, scope string, def float64) float64 {
	for _, h := range table {
		if len(scope) >= len(h.Prefix) && scope[:len(h.Prefix)] == h.Prefix {
			return h.Days
		}
	}
	if !(def > 0) {
		return DefaultHalfLifeDays
	}
	return def
}

// HalfLife returns the recency half-life, in days, of records in scope
// under p: the first matching entry of p.HalfLives, else p.DefaultHalfLife
// (DefaultHalfLifeDays when that is not positive).
func (p Preset) HalfLife(scope string) float64 {
	return ResolveHalfLife(p.HalfLives, scope, p.DefaultHalfLife)
}

// Recency returns max(2^(−ageDays/halfLifeDays), floor), the recency factor
// of a record ageDays old. A negative or NaN age counts as 0 (a record from
// the future is as fresh as one from now). A half-life that is not positive
// means the record fades at once: 1 at age 0, floor after. An infinite
// half-life never fades. floor is clamped to [0, 1].
func Recency(ageDays, halfLifeDays, floor float64) float64 {
	floor = clamp01(floor)
	if !(ageDays > 0) {
		return 1
	}
	if !(halfLifeDays > 0) {
		return floor
	}
	return math.Max(math.Pow(2, -ageDays/halfLifeDays), floor)
}

// Recency returns the recency factor under p of a record in scope that is
// ageDays old: Recency(ageDays, p.HalfLife(scope), p.Floor).
func (p Preset) Recency(scope string, ageDays float64) float64 {
	return Recency(ageDays, p.HalfLife(scope), p.Floor)
}
