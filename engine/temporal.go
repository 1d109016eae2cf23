package engine

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// Temporal queries.
//
// A query that names a time ("what did we decide last week", «что решили
// вчера», «що вирішили минулого тижня», "in May", "3 days ago") is read as
// an interval of record times relative to the engine's clock. Records
// created inside it rank higher (factor time_boost); the interval is shown
// in every hit's why. The phrase itself is not a content term: "last" and
// "week" are no evidence of relevance.

// interval is a half-open span of time [from, to) read from a query.
type interval struct {
	from, to time.Time
	phrase   string // the words it was read from
}

func (iv *interval) String() string {
	if iv == nil {
		return ""
	}
	return iv.phrase + ": " + iv.from.Format("2006-01-02") + " .. " + iv.to.Add(-time.Nanosecond).Format("2006-01-02")
}

func (iv *interval) contains(t time.Time) bool {
	return iv != nil && !t.Before(iv.from) && t.Before(iv.to)
}

// monthNames maps month names (English, Russian and Ukrainian, in the
// cases a date phrase uses) to months; built on first use.
var monthNames = sync.OnceValue(func() map[string]time.Month {
	names := [][]string{
		{"january", "jan", "январе", "января", "январь", "січні", "січня", "січень"},
		{"february", "feb", "феврале", "февраля", "февраль", "лютому", "лютого", "лютий"},
		{"march", "mar", "марте", "марта", "март", "березні", "березня", "березень"},
		{"april", "apr", "апреле", "апреля", "апрель", "квітні", "квітня", "квітень"},
		{"may", "мае", "мая", "май", "травні", "травня", "травень"},
		{"june", "jun", "июне", "июня", "июнь", "червні", "червня", "червень"},
		{"july", "jul", "июле", "июля", "июль", "липні", "липня", "липень"},
		{"august", "aug", "августе", "августа", "август", "серпні", "серпня", "серпень"},
		{"september", "sep", "sept", "сентябре", "сентября", "сентябрь", "вересні", "вересня", "вересень"},
		{"october", "oct", "октябре", "октября", "октябрь", "жовтні", "жовтня", "жовтень"},
		{"november", "nov", "ноябре", "ноября", "ноябрь", "листопаді", "листопада", "листопад"},
		{"december", "dec", "декабре", "декабря", "декабрь", "грудні", "грудня", "грудень"},
	}
	m := map[string]time.Month{}
	for i, ns := range names {
		for _, n := range ns {
			m[n] = time.Month(i + 1)
		}
	}
	return m
})

type temporalRule struct {
	re  func() *regexp.Regexp // compiled on first use
	get func(m []string, day time.Time) (time.Time, time.Time, bool)
	// month: get succeeds only for a month name (monthNames) that the
	// expression captures as a whole run of letters, so a query without
	// one skips the rule without compiling it (those with \p{L} and (?i)
	// took 4 ms of each process).
	month bool
}

func weekStart(day time.Time) time.Time {
	wd := (int(day.Weekday()) + 6) % 7 // Monday 0
	return day.AddDate(0, 0, -wd)
}

func monthStart(day time.Time) time.Time {
	return time.Date(day.Year(), day.Month(), 1, 0, 0, 0, 0, day.Location())
}

func fixed(f func(day time.Time) (time.Time, time.Time)) func([]string, time.Time) (time.Time, time.Time, bool) {
	return func(_ []string, day time.Time) (time.Time, time.Time, bool) {
		a, b := f(day)
		return a, b, true
	}
}

var unitDays = map[string]int{
	"day": 1, "days": 1, "week": 7, "weeks": 7, "month": 30, "months": 30, "year": 365, "years": 365,
	"день": 1, "дня": 1, "дней": 1, "неделю": 7, "недели": 7, "недель": 7, "месяц": 30, "месяца": 30, "месяцев": 30,
	"год": 365, "года": 365, "лет": 365,
	"днів": 1, "дні": 1, "тиждень": 7, "тижні": 7, "тижнів": 7, "місяць": 30, "місяці": 30, "місяців": 30,
	"рік": 365, "роки": 365, "років": 365,
}

var numberWords = map[string]int{"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
	"seven": 7, "eight": 8, "nine": 9, "ten": 10, "few": 3, "couple": 2}

var temporalRules = []temporalRule{
	{re: lazyRegexp(`(?i)\b(day before yesterday)\b|позавчера\p{L}*|позавчора\p{L}*`), get: fixed(func(d time.Time) (time.Time, time.Time) {
		return d.AddDate(0, 0, -2), d.AddDate(0, 0, -1)
	})},
	{re: lazyRegexp(`(?i)\byesterday\b|вчера\p{L}*|вчора\p{L}*|учора\p{L}*`), get: fixed(func(d time.Time) (time.Time, time.Time) {
		return d.AddDate(0, 0, -1), d
	})},
	{re: lazyRegexp(`(?i)\b(today|this morning|tonight)\b|сегодня|сьогодні`), get: fixed(func(d time.Time) (time.Time, time.Time) {
		return d, d.AddDate(0, 0, 1)
	})},
	{re: lazyRegexp(`(?i)\blast week\b|\bprevious week\b|на прошлой неделе|минулого тижня|на минулому тижні`), get: fixed(func(d time.Time) (time.Time, time.Time) {
		w := weekStart(d)
		return w.AddDate(0, 0, -7), w
	})},
	{re: lazyRegexp(`(?i)\bthis week\b|на этой неделе|цього тижня|на цьому тижні`), get: fixed(func(d time.Time) (time.Time, time.Time) {
		w := weekStart(d)
		return w, w.AddDate(0, 0, 7)
	})},
	{re: lazyRegexp(`(?i)\blast month\b|\bprevious month\b|в прошлом месяце|минулого місяця|у минулому місяці`), get: fixed(func(d time.Time) (time.Time, time.Time) {
		m := monthStart(d)
		return m.AddDate(0, -1, 0), m
	})},
	{re: lazyRegexp(`(?i)\bthis month\b|в этом месяце|цього місяця|у цьому місяці`), get: fixed(func(d time.Time) (time.Time, time.Time) {
		m := monthStart(d)
		return m, m.AddDate(0, 1, 0)
	})},
	{re: lazyRegexp(`(?i)\blast year\b|в прошлом году|минулого року|торік`), get: fixed(func(d time.Time) (time.Time, time.Time) {
		y := time.Date(d.Year(), 1, 1, 0, 0, 0, 0, d.Location())
		return y.AddDate(-1, 0, 0), y
	})},
	{re: lazyRegexp(`(?i)\bthis year\b|в этом году|цього року`), get: fixed(func(d time.Time) (time.Time, time.Time) {
		y := time.Date(d.Year(), 1, 1, 0, 0, 0, 0, d.Location())
		return y, y.AddDate(1, 0, 0)
	})},
	// "3 days ago", "a week ago", «2 недели назад», «3 дні тому».
	{re: lazyRegexp(`(?i)\b(\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|few|couple)\s+(?:of\s+)?(days?|weeks?|months?|years?)\s+ago\b|(\d{1,3})\s+(день|дня|дней|неделю|недели|недель|месяц|месяца|месяцев|год|года|лет)\s+назад|(\d{1,3})\s+(день|дні|днів|тиждень|тижні|тижнів|місяць|місяці|місяців|рік|роки|років)\s+тому`), get: func(m []string, d time.Time) (time.Time, time.Time, bool) {
		var num, unit string
		for i := 1; i+1 < len(m); i += 2 {
			if m[i] != "" {
				num, unit = strings.ToLower(m[i]), strings.ToLower(m[i+1])
				break
			}
		}
		n, err := strconv.Atoi(num)
		if err != nil {
			n = numberWords[num]
		}
		u := unitDays[unit]
		if n <= 0 || u == 0 {
			return time.Time{}, time.Time{}, false
		}
		at := d.AddDate(0, 0, -n*u)
		half := max(1, u/2)
		return at.AddDate(0, 0, -half), at.AddDate(0, 0, half+1), true
	}},
	// A date: "April 10, 2022", "10 April 2022", «10 апреля 2022», «10 квітня
	// 2022», "2022-04-10"; "on April 10" (the latest such day not after
	// now).
	{re: lazyRegexp(`(?i)\b((?:19|20)\d{2})-(\d{2})-(\d{2})\b`), get: func(m []string, d time.Time) (time.Time, time.Time, bool) {
		y, _ := strconv.Atoi(m[1])
		mo, _ := strconv.Atoi(m[2])
		day, _ := strconv.Atoi(m[3])
		return dayOf(y, time.Month(mo), day, d)
	}},
	{month: true, re: lazyRegexp(`(?i)(?:^|[^\p{L}])(\p{L}+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+((?:19|20)\d{2}))?\b`), get: func(m []string, d time.Time) (time.Time, time.Time, bool) {
		return dateOf(m[1], m[2], m[3], d)
	}},
	{month: true, re: lazyRegexp(`(?i)(?:^|[^\p{L}\d])(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(\p{L}+)(?:,?\s+((?:19|20)\d{2}))?`), get: func(m []string, d time.Time) (time.Time, time.Time, bool) {
		return dateOf(m[2], m[1], m[3], d)
	}},
	// A week of a month: "the first week of May", "the second weekend of
	// August 2023", "the last two weeks of August 2023".
	{month: true, re: lazyRegexp(`(?i)\b(?:the\s+)?(first|second|third|fourth|last)\s+(?:(two|three)\s+)?(weeks?|weekends?)\s+of\s+(\p{L}+)(?:,?\s+((?:19|20)\d{2}))?`), get: func(m []string, d time.Time) (time.Time, time.Time, bool) {
		from, to, ok := monthOf(m[4], m[5], d)
		if !ok {
			return from, to, false
		}
		n := map[string]int{"first": 1, "second": 2, "third": 3, "fourth": 4, "last": -1}[strings.ToLower(m[1])]
		weeks := max(1, numberWords[strings.ToLower(m[2])])
		if strings.HasPrefix(strings.ToLower(m[3]), "weekend") {
			// The n-th Saturday and the Sunday after it (the last: the
			// month's last Saturday).
			sat := from.AddDate(0, 0, (int(time.Saturday)-int(from.Weekday())+7)%7)
			if n > 0 {
				sat = sat.AddDate(0, 0, 7*(n-1))
			} else {
				for sat.AddDate(0, 0, 7).Before(to) {
					sat = sat.AddDate(0, 0, 7)
				}
			}
			return sat, sat.AddDate(0, 0, 2), true
		}
		if n < 0 {
			return to.AddDate(0, 0, -7*weeks), to, true
		}
		start := from.AddDate(0, 0, 7*(n-1))
		end := start.AddDate(0, 0, 7*weeks)
		if end.After(to) {
			end = to
		}
		return start, end, start.Before(to)
	}},
	// A part of a month: "the beginning of January 2023", "early May",
	// "mid-June", "the end of March"; «в начале января», «в конце мая»,
	// «на початку січня», «наприкінці травня»: its first, middle or last
	// ten days.
	{month: true, re: lazyRegexp(`(?i)(?:^|[^\p{L}])(beginning|start|early|middle|mid|end|late|начале|середине|конце|початку|середині|кінці|наприкінці)(?:\s+of|-)?\s+(\p{L}+)(?:,?\s+((?:19|20)\d{2}))?`), get: func(m []string, d time.Time) (time.Time, time.Time, bool) {
		from, to, ok := monthOf(m[2], m[3], d)
		if !ok {
			return from, to, false
		}
		switch strings.ToLower(m[1]) {
		case "beginning", "start", "early", "начале", "початку":
			return from, from.AddDate(0, 0, 10), true
		case "middle", "mid", "середине", "середині":
			return from.AddDate(0, 0, 10), from.AddDate(0, 0, 20), true
		}
		return from.AddDate(0, 0, 20), to, true
	}},
	// A month and its year anywhere: "most of September 2023", «мае 2024».
	{month: true, re: lazyRegexp(`(?i)(?:^|[^\p{L}])(\p{L}+)\s+((?:19|20)\d{2})\b`), get: func(m []string, d time.Time) (time.Time, time.Time, bool) {
		return monthOf(m[1], m[2], d)
	}},
	// "in May", "in May 2023", «в мае», «у травні 2024».
	{month: true, re: lazyRegexp(`(?i)(?:^|\s)(?:in|during|в|во|у)\s+([\p{L}]+)(?:\s+(\d{4}))?`), get: func(m []string, d time.Time) (time.Time, time.Time, bool) {
		return monthOf(m[1], m[2], d)
	}},
	// "in 2023", «в 2023 году».
	{re: lazyRegexp(`(?i)(?:^|\s)(?:in|during|в|у)\s+((?:19|20)\d{2})\b`), get: func(m []string, d time.Time) (time.Time, time.Time, bool) {
		y, _ := strconv.Atoi(m[1])
		from := time.Date(y, 1, 1, 0, 0, 0, 0, d.Location())
		return from, from.AddDate(1, 0, 0), true
	}},
}

// monthOf is the month named name (monthNames) of year (the latest such
// month not after day when year is empty).
func monthOf(name, year string, day time.Time) (time.Time, time.Time, bool) {
	mon, ok := monthNames()[strings.ToLower(name)]
	if !ok {
		return time.Time{}, time.Time{}, false
	}
	y := day.Year()
	if year != "" {
		y, _ = strconv.Atoi(year)
	} else if mon > day.Month() {
		y-- // the latest such month not after now
	}
	from := time.Date(y, mon, 1, 0, 0, 0, 0, day.Location())
	return from, from.AddDate(0, 1, 0), true
}

// dateOf is the day dom of the month named name (monthOf). Without a
// year, an English month must be capitalised ("3 March", not "3 march
// steps").
func dateOf(name, dom, year string, day time.Time) (time.Time, time.Time, bool) {
	mon, ok := monthNames()[strings.ToLower(name)]
	if r, _ := utf8.DecodeRuneInString(name); !ok || year == "" && r < unicode.MaxASCII && !unicode.IsUpper(r) {
		return time.Time{}, time.Time{}, false
	}
	n, _ := strconv.Atoi(dom)
	y := day.Year()
	if year != "" {
		y, _ = strconv.Atoi(year)
	} else if mon > day.Month() || mon == day.Month() && n > day.Day() {
		y--
	}
	return dayOf(y, mon, n, day)
}

// dayOf is the day y-mon-n, when there is one.
func dayOf(y int, mon time.Month, n int, day time.Time) (time.Time, time.Time, bool) {
	at := time.Date(y, mon, n, 0, 0, 0, 0, day.Location())
	if n < 1 || mon < 1 || mon > 12 || at.Month() != mon {
		return time.Time{}, time.Time{}, false
	}
	return at, at.AddDate(0, 0, 1), true
}

// parseInterval reads the first time expression of q relative to now, and
// returns q with the expression taken out. Rules are tried in order, the
// more specific first, each at every place it matches.
func parseInterval(q string, now time.Time) (*interval, string) {
	return parseIntervalRules(q, now, true)
}

// parseIntervalRules is parseInterval, skipping the month rules when q
// names no month if skip is set (the same answer: see temporalRule.month).
func parseIntervalRules(q string, now time.Time, skip bool) (*interval, string) {
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location())
	months := !skip || namesMonth(q)
	for _, r := range temporalRules {
		if r.month && !months {
			continue
		}
		for _, loc := range r.re().FindAllStringSubmatchIndex(q, -1) {
			m := make([]string, len(loc)/2)
			for i := range m {
				if loc[2*i] >= 0 {
					m[i] = q[loc[2*i]:loc[2*i+1]]
				}
			}
			from, to, ok := r.get(m, day)
			if !ok {
				continue
			}
			rest := q[:loc[0]] + " " + q[loc[1]:]
			return &interval{from: from, to: to, phrase: strings.TrimSpace(m[0])}, rest
		}
	}
	return nil, q
}

// namesMonth reports whether a whole run of letters of q (as \p{L}+
// delimits them) is a month name, in any case.
func namesMonth(q string) bool {
	for i := 0; i < len(q); {
		r, n := utf8.DecodeRuneInString(q[i:])
		if !unicode.IsLetter(r) {
			i += n
			continue
		}
		j := i
		for j < len(q) {
			r, n := utf8.DecodeRuneInString(q[j:])
			if !unicode.IsLetter(r) {
				break
			}
			j += n
		}
		if _, ok := monthNames()[strings.ToLower(q[i:j])]; ok {
			return true
		}
		i = j
	}
	return false
}

// lazyRegexp compiles expr on first use, not when the program starts.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
