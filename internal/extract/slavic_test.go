package extract_test

import (
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/extract"
)

type want struct {
	kind mnemo.Kind
	text string
	from string
}

func check(t *testing.T, got []extract.Candidate, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		var texts []string
		for _, c := range got {
			texts = append(texts, string(c.Kind)+" "+c.Text+" <"+c.From+">")
		}
		t.Fatalf("got %d candidates, want %d:\n%s", len(got), len(wants), strings.Join(texts, "\n"))
	}
	for i, w := range wants {
		if got[i].Kind != w.kind || got[i].Text != w.text || got[i].From != w.from {
			t.Errorf("candidate %d = %s %q from %s\n          want %s %q from %s", i, got[i].Kind, got[i].Text, got[i].From, w.kind, w.text, w.from)
		}
	}
}

// A Russian shift thread: the thread that gave no memories under the
// English rules.
func TestExtractRussian(t *testing.T) {
	got := extract.Extract([]extract.Message{
		{ID: "r1", Text: "Анна: Ночью на пролёте над Шпицбергеном пропал аплинк на четыре минуты. Мы решили вести ночные пролёты через Шпицберген, пока Инувик на обслуживании."},
		{ID: "r2", Text: "Борис: Понял. В брифе пролёта всегда должен быть статус резервного канала. Спасибо!"},
		{ID: "r3", Text: "Кира: Я предпочитаю короткие брифы, станция в первой строке. А кто подтверждает слот со станцией?"},
		{ID: "r4", Text: "Анна: Окно обслуживания — 2 декабря в 14:00, длится 3 часа.\nЧтобы переключить канал:\n1. Остановить аплинк\n2. Выбрать резервный канал\n3. Проверить телеметрию"},
		{ID: "r5", Text: "Борис: Мощность аплинка выше 200 Вт без офицера по РЧ-безопасности включать нельзя."},
		{ID: "r6", Text: "Кира: Договорились, берём Шпицберген. Нужно ли предупредить дежурного в Инувике?"},
		{ID: "r7", Text: "Анна: Чтобы выкатить конфиг, сначала прогоните dry-run, потом сравните diff с прошлой сменой."},
		{ID: "r8", Text: "ок"},
	})
	check(t, got, []want{
		{mnemo.KindDecision, "Decided (Анна): Мы решили вести ночные пролёты через Шпицберген, пока Инувик на обслуживании.", "r1"},
		{mnemo.KindFact, "Rule (Борис): В брифе пролёта всегда должен быть статус резервного канала.", "r2"},
		{mnemo.KindPreference, "Preference (Кира): Я предпочитаю короткие брифы, станция в первой строке.", "r3"},
		{mnemo.KindFact, "Open question (Кира): А кто подтверждает слот со станцией?", "r3"},
		{mnemo.KindProcedure, "Procedure: 1. Остановить аплинк 2. Выбрать резервный канал 3. Проверить телеметрию", "r4"},
		{mnemo.KindFact, "Fact (Анна): Окно обслуживания — 2 декабря в 14:00, длится 3 часа.", "r4"},
		{mnemo.KindFact, "Rule (Борис): Мощность аплинка выше 200 Вт без офицера по РЧ-безопасности включать нельзя.", "r5"},
		{mnemo.KindDecision, "Decided (Кира): Договорились, берём Шпицберген.", "r6"},
		{mnemo.KindFact, "Open question (Кира): Нужно ли предупредить дежурного в Инувике?", "r6"},
		{mnemo.KindProcedure, "Procedure (Анна): Чтобы выкатить конфиг, сначала прогоните dry-run, потом сравните diff с прошлой сменой.", "r7"},
	})
	if got[0].Decision == nil || got[0].Decision.Status != "accepted" || got[1].Scope != "/rules" || got[3].Tags[0] != "question" {
		t.Errorf("bodies, scopes and tags: %+v", got[:4])
	}
}

// A Ukrainian release thread, with all three apostrophes.
func TestExtractUkrainian(t *testing.T) {
	got := extract.Extract([]extract.Message{
		{ID: "u1", Text: "Олена: Реліз 4.2 відкладаємо на тиждень. Ми вирішили спершу закрити міграцію бази, а потім вмикати новий кеш."},
		{ID: "u2", Text: "Тарас: Прийнято. Міграції на проді заборонено запускати в п’ятницю."},
		{ID: "u3", Text: "Олена: Я віддаю перевагу коротким changelog без внутрішніх тікетів. Хто напише нотатки до релізу?"},
		{ID: "u4", Text: "Тарас: Дедлайн для міграції — 12 грудня, вікно триває 2 години."},
		{ID: "u5", Text: "Ірина: Щоб відкотити реліз, спочатку вимкніть прапорець кешу, потім поверніть тег v4.1."},
		{ID: "u6", Text: "Ірина: Перед деплоєм обовʼязково перевірити резервну копію. Чи потрібен нам окремий стенд для навантажувальних тестів?"},
		{ID: "u7", Text: "Тарас: Домовилися, стенд беремо з пулу QA."},
		{ID: "u8", Text: "Олена: Будь ласка, не пишіть паролі в чат."},
	})
	check(t, got, []want{
		{mnemo.KindDecision, "Decided (Олена): Ми вирішили спершу закрити міграцію бази, а потім вмикати новий кеш.", "u1"},
		{mnemo.KindFact, "Rule (Тарас): Міграції на проді заборонено запускати в п’ятницю.", "u2"},
		{mnemo.KindPreference, "Preference (Олена): Я віддаю перевагу коротким changelog без внутрішніх тікетів.", "u3"},
		{mnemo.KindFact, "Open question (Олена): Хто напише нотатки до релізу?", "u3"},
		{mnemo.KindFact, "Fact (Тарас): Дедлайн для міграції — 12 грудня, вікно триває 2 години.", "u4"},
		{mnemo.KindProcedure, "Procedure (Ірина): Щоб відкотити реліз, спочатку вимкніть прапорець кешу, потім поверніть тег v4.1.", "u5"},
		{mnemo.KindFact, "Rule (Ірина): Перед деплоєм обовʼязково перевірити резервну копію.", "u6"},
		{mnemo.KindFact, "Open question (Ірина): Чи потрібен нам окремий стенд для навантажувальних тестів?", "u6"},
		{mnemo.KindDecision, "Decided (Тарас): Домовилися, стенд беремо з пулу QA.", "u7"},
		{mnemo.KindPreference, "Preference (Олена): Будь ласка, не пишіть паролі в чат.", "u8"},
	})
}

// Small talk, status and words that only contain a rule word are not
// memories.
func TestExtractSlavicNoise(t *testing.T) {
	for _, s := range []string{
		"Привет всем, как прошли выходные у команды?!",
		"Спасибо, коллеги, отличная работа сегодня.",
		"Всегдашняя история с этим принтером, ничего нового.",
		"Дякую всім, гарного вечора та до завтра.",
		"Незавжди зрозуміло, що саме пише цей скрипт у лог.",
		"Ок, гляну после обеда и отпишусь в канал.",
	} {
		if got := extract.Extract([]extract.Message{{ID: "n", Text: "Анна: " + s}}); len(got) != 0 {
			t.Errorf("%q gave %+v", s, got)
		}
	}
}
