package extract_test

import (
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo/internal/extract"
)

func TestSteps(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"Procedure: 1. Stop the uplink 2. Select the backup 3. Verify telemetry", "Stop the uplink|Select the backup|Verify telemetry"},
		{"Procedure (Lena): To roll back, first disable the cache flag, then redeploy the v4.1 tag.", "disable the cache flag|redeploy the v4.1 tag"},
		{"Procedure (Анна): Чтобы выкатить конфиг, сначала прогоните dry-run, потом сравните diff с прошлой сменой.", "прогоните dry-run|сравните diff с прошлой сменой"},
		{"Procedure (Ірина): Щоб відкотити реліз, спочатку вимкніть прапорець кешу, потім поверніть тег v4.1.", "вимкніть прапорець кешу|поверніть тег v4.1"},
		{"- check the ledger\n- retry the invoice\n- tell finance", "check the ledger|retry the invoice|tell finance"},
		{"Procedure: first do it.", ""},
		{"Learned procedure (seen 2 times in 2 threads): 1. a b c 2. d e f", "a b c|d e f"},
	} {
		if got := strings.Join(extract.Steps(c.text), "|"); got != c.want {
			t.Errorf("Steps(%q) = %q, want %q", c.text, got, c.want)
		}
	}
	a := extract.Steps("1. Stop the uplink 2. Select the backup link 3. Verify telemetry")
	b := extract.Steps("1. stop uplink 2. select backup link 3. verify the telemetry frames")
	c := extract.Steps("1. Stop the uplink 2. Call the station 3. Verify telemetry")
	if !extract.SameSteps(a, b) || extract.SameSteps(a, c) || extract.SameSteps(a, a[:2]) {
		t.Errorf("SameSteps: %q %q %q", a, b, c)
	}
}
