package prompts_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo/internal/prompts"
	"github.com/mnemo-dev/mnemo/score"
)

func TestClassifyCoding(t *testing.T) {
	tests := []struct {
		text string
		want prompts.CodingIntent
	}{
		{"fix the flaky test in store_test.go", prompts.IntentFix},
		{"The build is broken: panic in recall", prompts.IntentFix},
		{"Исправь ошибку в парсере", prompts.IntentFix},
		{"тест падает после миграции? почини", prompts.IntentFix},
		{"виправ помилку в парсері", prompts.IntentFix},
		{"add a --json flag to prompts stats", prompts.IntentFeature},
		{"Implement the PostgreSQL store", prompts.IntentFeature},
		{"добавь новый флаг", prompts.IntentFeature},
		{"додай підтримку Postgres", prompts.IntentFeature},
		{"refactor the engine into smaller files", prompts.IntentRefactor},
		{"переименуй пакет и упрости код", prompts.IntentRefactor},
		{"перейменуй функцію", prompts.IntentRefactor},
		{"please review my last commit", prompts.IntentReview},
		{"проверь код в capture", prompts.IntentReview},
		{"перевір цей PR", prompts.IntentReview},
		{"deploy to staging and run the CI pipeline", prompts.IntentOps},
		{"задеплой на прод", prompts.IntentOps},
		{"розгорни сервіс", prompts.IntentOps},
		{"what does the recency floor do", prompts.IntentQuestion},
		{"объясни, как работает дайджест", prompts.IntentQuestion},
		{"поясни цей код", prompts.IntentQuestion},
		{"the digest, then?", prompts.IntentQuestion},
		{"ok", prompts.IntentOther},
		{"", prompts.IntentOther},
		// Ties go to the earlier intent: fix before feature.
		{"add a test for the bug", prompts.IntentFix},
	}
	for _, tt := range tests {
		if got := prompts.ClassifyCoding(tt.text); got != tt.want {
			t.Errorf("ClassifyCoding(%q) = %s, want %s", tt.text, got, tt.want)
		}
	}
}

func TestTerms(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"Please fix the digest budget in the digest renderer, 2024", []string{"fix", "digest", "budget", "digest", "renderer"}},
		{"Почему не работает поиск по тегам?", []string{"работает", "поиск", "тегам"}},
		{"Чому не працює пошук? Будь ласка", []string{"працює", "пошук"}},
		{"it's a go-git thing", []string{"git"}},
		{"", nil},
	}
	for _, tt := range tests {
		if got := prompts.Terms(tt.text); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Terms(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestAnalyze(t *testing.T) {
	// Monday 2025-01-06 is in ISO week 2; Monday 2025-01-13 in week 3.
	t0 := time.Date(2025, 1, 6, 9, 0, 0, 0, time.UTC)
	at := func(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) }
	// In time order the repositories are A A B A A A C C B (the input is
	// shuffled): switches A→B after a run of 2, B→A after 1, A→C after 3,
	// C→B after 2; runs 5; median of [1 2 2 3] = 2.
	in := []prompts.Prompt{
		{Text: "why does the digest skip decisions?", Time: at(1), Session: "s1", Repository: "/src/a"},
		{Text: "fix the digest budget overflow", Time: at(0), Session: "s1", Repository: "/src/a"},
		{Text: "add budget flag", Time: at(2), Session: "s2", Repository: "/src/b"},
		{Text: "refactor digest renderer", Time: at(3), Session: "s1", Repository: "/src/a"},
		{Text: "исправь digest в рендере", Time: at(4), Session: "s1", Repository: "/src/a"},
		{Text: "review the budget code", Time: at(5), Session: "s1", Repository: "/src/a"},
		{Text: "deploy the server", Time: at(24 * 7), Session: "s3", Repository: "/src/c"},
		{Text: "deploy again, server down", Time: at(24*7 + 1), Session: "s3", Repository: "/src/c"},
		{Text: "how to configure budget", Time: at(24*7 + 2), Session: "s2", Repository: "/src/b"},
		{Text: "no time at all", Session: "s4", Repository: "/src/d"},
	}
	st := prompts.Analyze(in, prompts.Options{TopTerms: 2})
	if st.Prompts != 10 || st.Sessions != 4 || st.Repositories != 4 {
		t.Errorf("counts = %d prompts, %d sessions, %d repositories", st.Prompts, st.Sessions, st.Repositories)
	}
	if !st.First.Equal(at(0)) || !st.Last.Equal(at(24*7+2)) {
		t.Errorf("first, last = %v, %v", st.First, st.Last)
	}
	wantCoding := map[prompts.CodingIntent]int{
		prompts.IntentQuestion: 1, prompts.IntentFix: 2, prompts.IntentFeature: 1, prompts.IntentRefactor: 1,
		prompts.IntentReview: 1, prompts.IntentOps: 2, prompts.IntentOther: 1,
		// "how to configure budget" is a question by its keywords
	}
	wantCoding[prompts.IntentQuestion]++
	if !reflect.DeepEqual(st.CodingIntents, wantCoding) {
		t.Errorf("coding intents = %v, want %v", st.CodingIntents, wantCoding)
	}
	total := 0
	for _, n := range st.Intents {
		total += n
	}
	if total != 10 || st.Intents[score.IntentWhy] != 1 || st.Intents[score.IntentHowTo] != 1 {
		t.Errorf("intents = %v", st.Intents)
	}

	wantTopics := []prompts.Topic{
		{Repository: "/src/a", Week: "2025-W02", Prompts: 5, Terms: []prompts.TermCount{{"digest", 4}, {"budget", 2}}},
		{Repository: "/src/b", Week: "2025-W02", Prompts: 1, Terms: []prompts.TermCount{{"add", 1}, {"budget", 1}}},
		{Repository: "/src/b", Week: "2025-W03", Prompts: 1, Terms: []prompts.TermCount{{"budget", 1}, {"configure", 1}}},
		{Repository: "/src/c", Week: "2025-W03", Prompts: 2, Terms: []prompts.TermCount{{"deploy", 2}, {"server", 2}}},
	}
	if !reflect.DeepEqual(st.Topics, wantTopics) {
		t.Errorf("topics =\n%+v\nwant\n%+v", st.Topics, wantTopics)
	}

	sw := st.Switching
	wantTr := map[string]map[string]int{"/src/a": {"/src/b": 1, "/src/c": 1}, "/src/b": {"/src/a": 1}, "/src/c": {"/src/b": 1}}
	if sw.Switches != 4 || sw.Runs != 5 || sw.MedianRunLength != 2 || !reflect.DeepEqual(sw.Transitions, wantTr) {
		t.Errorf("switching = %+v", sw)
	}

	// JSON and text never carry prompt text beyond single terms.
	data, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := st.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{string(data), buf.String()} {
		if strings.Contains(out, "digest budget") || strings.Contains(out, "server down") {
			t.Errorf("output leaks prompt text:\n%s", out)
		}
	}
	for _, want := range []string{`"coding_intents":{`, `"median_run_length":2`, `"week":"2025-W02"`, `"transitions":{"/src/a":{"/src/b":1,"/src/c":1}`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("JSON lacks %s:\n%s", want, data)
		}
	}
	if !strings.Contains(buf.String(), "FROM \\ TO") || !strings.Contains(buf.String(), "digest(4) budget(2)") {
		t.Errorf("text output:\n%s", buf.String())
	}
}

func TestAnalyzeEmpty(t *testing.T) {
	st := prompts.Analyze(nil, prompts.Options{})
	data, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"prompts":0,"sessions":0,"repositories":0,"intents":{},"coding_intents":{},"topics":[],"switching":{"switches":0,"runs":0,"median_run_length":0,"transitions":{}}}`
	if string(data) != want {
		t.Errorf("JSON = %s\nwant %s", data, want)
	}
	var buf bytes.Buffer
	if err := st.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
}
