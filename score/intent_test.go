package score_test

import (
	"math"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/score"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		text string
		want score.Intent
	}{
		// recent — English
		{"what did we decide on yesterday's call?", score.IntentRecent},
		{"What did we decide on yesterday’s call?", score.IntentRecent},
		{"WHAT DID WE DECIDE ON YESTERDAY'S CALL?", score.IntentRecent},
		{"anything new from today's standup", score.IntentRecent},
		{"what changed last week in billing", score.IntentRecent},
		{"latest status of the migration", score.IntentRecent},
		{"how did we decide on the vendor?", score.IntentRecent},
		{"which option was decided for the cache", score.IntentRecent},
		// recent — Russian
		{"Что мы решили на вчерашнем созвоне?", score.IntentRecent},
		{"ЧТО МЫ РЕШИЛИ НА ВЧЕРАШНЕМ СОЗВОНЕ?", score.IntentRecent},
		{"что обсуждали вчера", score.IntentRecent},
		{"Последние изменения в биллинге", score.IntentRecent},
		{"о чём договорились на прошлой неделе", score.IntentRecent},
		{"Как мы решили поступить с кэшем?", score.IntentRecent},
		{"что сегодня произошло с релизом", score.IntentRecent},
		{"недавние инциденты в проде", score.IntentRecent},
		{"Что нового по проекту Ёлка?", score.IntentRecent},
		// recent — Ukrainian
		{"Що ми вирішили вчора?", score.IntentRecent},
		{"ЩО МИ ВИРІШИЛИ ВЧОРА?", score.IntentRecent},
		{"про що домовились на вчорашній зустрічі", score.IntentRecent},
		{"останні зміни в білінгу", score.IntentRecent},
		{"що сталося сьогодні з релізом", score.IntentRecent},
		{"нещодавні інциденти", score.IntentRecent},

		// rules — English
		{"what are the baseline security rules?", score.IntentRules},
		{"What is our data retention policy", score.IntentRules},
		{"compliance requirements for EU customers", score.IntentRules},
		{"what must never be logged", score.IntentRules},
		{"coding guidelines for the API", score.IntentRules},
		// rules — Russian
		{"Каковы базовые правила безопасности?", score.IntentRules},
		{"КАКОВЫ БАЗОВЫЕ ПРАВИЛА БЕЗОПАСНОСТИ?", score.IntentRules},
		{"политика хранения данных", score.IntentRules},
		{"требования регулятора к отчётности", score.IntentRules},
		{"что запрещено делать в проде", score.IntentRules},
		{"что нельзя логировать", score.IntentRules},
		// rules — Ukrainian
		{"Які базові правила безпеки?", score.IntentRules},
		{"ЯКІ БАЗОВІ ПРАВИЛА БЕЗПЕКИ?", score.IntentRules},
		{"вимоги до зберігання персональних даних", score.IntentRules},
		{"що заборонено робити в продакшені", score.IntentRules},
		{"обов’язкові перевірки перед релізом", score.IntentRules},
		{"політика доступу до логів", score.IntentRules},

		// howto — English
		{"how do I rotate the API key?", score.IntentHowTo},
		{"How to deploy the worker", score.IntentHowTo},
		{"how can we restore a backup", score.IntentHowTo},
		{"what are the steps to onboard a customer", score.IntentHowTo},
		{"walk me through the release process", score.IntentHowTo},
		{"how should I configure sqlite for tests", score.IntentHowTo},
		// howto — Russian
		{"как развернуть воркер?", score.IntentHowTo},
		{"Как восстановить бэкап", score.IntentHowTo},
		{"подскажи, как настроить репликацию", score.IntentHowTo},
		{"каким образом выпускается релиз", score.IntentHowTo},
		{"инструкция по ротации ключей", score.IntentHowTo},
		// howto — Ukrainian
		{"як розгорнути воркер?", score.IntentHowTo},
		{"Як відновити бекап", score.IntentHowTo},
		{"підкажи, як налаштувати реплікацію", score.IntentHowTo},
		{"яким чином випускається реліз", score.IntentHowTo},
		{"інструкція з ротації ключів", score.IntentHowTo},

		// why — English
		{"why did we choose SQLite?", score.IntentWhy},
		{"Why did we drop the cache yesterday?", score.IntentWhy},
		{"what was the reason for the rewrite", score.IntentWhy},
		{"rationale behind the retry policy", score.IntentWhy},
		// why — Russian
		{"почему мы выбрали SQLite?", score.IntentWhy},
		{"ПОЧЕМУ МЫ ОТКАЗАЛИСЬ ОТ КЭША", score.IntentWhy},
		{"зачем нужен второй индекс", score.IntentWhy},
		{"по какой причине откатили релиз", score.IntentWhy},
		// why — Ukrainian
		{"чому ми обрали SQLite?", score.IntentWhy},
		{"Чому ми відмовилися від кешу", score.IntentWhy},
		{"навіщо потрібен другий індекс", score.IntentWhy},

		// general
		{"", score.IntentGeneral},
		{"   ?!  ", score.IntentGeneral},
		{"tell me about the acme account", score.IntentGeneral},
		{"summarize the deployment architecture", score.IntentGeneral},
		{"how many users signed up", score.IntentGeneral},
		{"the ruler of the kingdom", score.IntentGeneral},
		{"list open incidents for component billing", score.IntentGeneral},
		{"Расскажи про клиента Acme", score.IntentGeneral},
		{"Правильно ли настроен сервер?", score.IntentGeneral},
		{"такой же отчёт, как раньше", score.IntentGeneral},
		{"опиши архитектуру сервиса", score.IntentGeneral},
		{"Опиши архітектуру сервісу", score.IntentGeneral},
		{"Хто відповідає за білінг?", score.IntentGeneral},
		{"зроби звіт, як раніше", score.IntentGeneral},
		{"последовательность вызовов в API", score.IntentGeneral},
	} {
		if got := score.Classify(tc.text); got != tc.want {
			t.Errorf("Classify(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestParseIntent(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want score.Intent
	}{
		{"", ""}, {"  ", ""}, {"general", score.IntentGeneral}, {"recent", score.IntentRecent},
		{"rules", score.IntentRules}, {"howto", score.IntentHowTo}, {"why", score.IntentWhy},
		{" Recent ", score.IntentRecent}, {"HOWTO", score.IntentHowTo},
	} {
		got, err := score.ParseIntent(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseIntent(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"how-to", "latest", "rule", "x", "général"} {
		got, err := score.ParseIntent(bad)
		if mnemo.ErrorCode(err) != mnemo.EINVALID || got != "" {
			t.Errorf("ParseIntent(%q) = %q, %v; want an %s error", bad, got, err, mnemo.EINVALID)
		}
	}
	for _, i := range score.Intents() {
		if got, err := score.ParseIntent(string(i)); err != nil || got != i {
			t.Errorf("ParseIntent(%q) = %q, %v", i, got, err)
		}
	}
}

func TestForIntent(t *testing.T) {
	for _, name := range []string{"aura", "alma", "default"} {
		p, _ := score.Lookup(name)
		for _, i := range append(score.Intents(), "", "bogus") {
			w := p.ForIntent(i)
			if math.Abs(w.Sum()-p.Weights.Sum()) > 1e-12 {
				t.Errorf("%s/%s: sum %v, want %v", name, i, w.Sum(), p.Weights.Sum())
			}
			for k, v := range w.Map() {
				if v < 0 {
					t.Errorf("%s/%s: negative weight %s=%v", name, i, k, v)
				}
			}
			largest := func(factor string) {
				m := w.Map()
				for k, v := range m {
					if k != factor && v >= m[factor] {
						t.Errorf("%s/%s: %s=%v is not below %s=%v", name, i, k, v, factor, m[factor])
					}
				}
			}
			switch i {
			case score.IntentRecent:
				largest(mnemo.FactorRecency)
			case score.IntentRules:
				largest(mnemo.FactorImportance)
			case score.IntentGeneral, "", "bogus":
				if w != p.Weights {
					t.Errorf("%s/%q: weights %+v changed", name, i, w)
				}
			case score.IntentHowTo, score.IntentWhy:
				if !(w.Recency < p.Weights.Recency) || !(w.Semantic > p.Weights.Semantic) {
					t.Errorf("%s/%s: %+v should move recency to semantic", name, i, w)
				}
			}
		}
	}

	aura, _ := score.Lookup("aura")
	for _, tc := range []struct {
		i    score.Intent
		want mnemo.Weights
	}{
		{score.IntentRecent, mnemo.Weights{Semantic: 0.25, Recency: 0.65, Importance: 0.1}},
		{score.IntentRules, mnemo.Weights{Semantic: 0.25, Recency: 0.15, Importance: 0.6}},
		{score.IntentHowTo, mnemo.Weights{Semantic: 0.65, Recency: 0.15, Importance: 0.2}},
		{score.IntentWhy, mnemo.Weights{Semantic: 0.65, Recency: 0.15, Importance: 0.2}},
	} {
		got := aura.ForIntent(tc.i)
		for k, v := range tc.want.Map() {
			if math.Abs(got.Map()[k]-v) > 1e-12 {
				t.Errorf("aura/%s: %s = %v, want %v", tc.i, k, got.Map()[k], v)
			}
		}
	}
}

func TestKindBoost(t *testing.T) {
	for _, tc := range []struct {
		i    score.Intent
		k    mnemo.Kind
		want float64
	}{
		{score.IntentHowTo, mnemo.KindProcedure, 1.5},
		{score.IntentHowTo, mnemo.KindDecision, 1},
		{score.IntentWhy, mnemo.KindDecision, 1.5},
		{score.IntentWhy, mnemo.KindProcedure, 1},
		{score.IntentRecent, mnemo.KindDecision, 1.25},
		{score.IntentRecent, mnemo.KindEvent, 1.25},
		{score.IntentRecent, mnemo.KindEpisode, 1.25},
		{score.IntentRecent, mnemo.KindRefresh, 1.25},
		{score.IntentRecent, mnemo.KindFact, 1},
		{score.IntentRules, mnemo.KindCore, 1},
		{score.IntentGeneral, mnemo.KindProcedure, 1},
		{"", mnemo.KindDecision, 1},
	} {
		if got := score.KindBoost(tc.i, tc.k); got != tc.want {
			t.Errorf("KindBoost(%q, %q) = %v, want %v", tc.i, tc.k, got, tc.want)
		}
	}
	for _, i := range score.Intents() {
		for _, k := range mnemo.Kinds {
			if b := score.KindBoost(i, k); b < 1 {
				t.Errorf("KindBoost(%q, %q) = %v < 1", i, k, b)
			}
		}
	}
}

var classifyQueries = []string{
	"what did we decide on yesterday's call?",
	"Что мы решили на вчерашнем созвоне?",
	"Які базові правила безпеки?",
	"how do I rotate the API key for the billing worker in production?",
	"tell me everything about the acme account and its open incidents, contracts and contacts",
}

func BenchmarkClassify(b *testing.B) {
	var n int
	for b.Loop() {
		for _, q := range classifyQueries {
			if score.Classify(q) != score.IntentGeneral {
				n++
			}
		}
	}
	_ = n
}
