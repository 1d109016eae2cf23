package push_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func readRepoFile(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	return string(b)
}

// TestDeploymentExamples: the ways to run push mode that docs/PUSH.md
// documents exist and hold together: the Dockerfile builds the static
// binary into a scratch image running unprivileged with its database in a
// volume; the systemd service runs one cycle, started hourly by its timer
// (made up after downtime); the cron line runs one cycle under flock; the
// service and cron read the same environment file in the one format both
// understand; and every command line uses only flags and variables that
// mnemo orchestrate knows.
func TestDeploymentExamples(t *testing.T) {
	doc := readRepoFile(t, "docs/PUSH.md")
	docker := readRepoFile(t, "Dockerfile")
	service := readRepoFile(t, "docs/examples/mnemo-orchestrate.service")
	timer := readRepoFile(t, "docs/examples/mnemo-orchestrate.timer")
	cron := readRepoFile(t, "docs/examples/mnemo-orchestrate.cron")
	for _, link := range []string{"(examples/mnemo-orchestrate.service)", "(examples/mnemo-orchestrate.timer)", "(examples/mnemo-orchestrate.cron)",
		"`Dockerfile`", "docker build -t mnemo .", "docker run "} {
		if !strings.Contains(doc, link) {
			t.Errorf("PUSH.md does not name %s", link)
		}
	}

	// The image.
	for _, want := range []string{"CGO_ENABLED=0 go build", "./cmd/mnemo", "\nFROM scratch\n", "ca-certificates.crt", "\nVOLUME /data\n",
		"MNEMO_DB=/data/", `ENTRYPOINT ["/mnemo"]`} {
		if !strings.Contains(docker, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	if m := regexp.MustCompile(`(?m)^USER\s+(\S+)`).FindStringSubmatch(docker); m == nil || strings.HasPrefix(m[1], "0") || strings.HasPrefix(m[1], "root") {
		t.Errorf("the image does not run as an unprivileged user: %v", m)
	}
	goMod := readRepoFile(t, "go.mod")
	goVer := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindStringSubmatch(goMod)
	if img := regexp.MustCompile(`FROM golang:(\d+\.\d+)`).FindStringSubmatch(docker); img == nil || goVer == nil || img[1] != goVer[1] {
		t.Errorf("the build image %v is not go.mod's Go %v", img, goVer)
	}

	// systemd.
	for _, want := range []string{"[Service]", "Type=oneshot", "EnvironmentFile=/etc/mnemo/orchestrate.env", "StateDirectory=mnemo", "NoNewPrivileges=yes"} {
		if !strings.Contains(service, want) {
			t.Errorf("the service lacks %q", want)
		}
	}
	for _, want := range []string{"[Timer]", "OnCalendar=hourly", "Persistent=true", "WantedBy=timers.target"} {
		if !strings.Contains(timer, want) {
			t.Errorf("the timer lacks %q", want)
		}
	}
	// systemd's EnvironmentFile= takes NAME=VALUE lines only (an "export"
	// line is ignored): the file's format, as both examples show it.
	for name, text := range map[string]string{"service": service, "cron": cron} {
		if !strings.Contains(text, "#   MNEMO_GITHUB_TOKEN=") || strings.Contains(text, "export MNEMO_") {
			t.Errorf("the %s example shows another format of the environment file", name)
		}
	}

	// cron: five time fields, a user, one cycle under flock, the file's
	// assignments exported.
	var line string
	for _, l := range strings.Split(cron, "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			line = l
		}
	}
	if f := strings.Fields(line); len(f) < 7 || f[5] != "mnemo" || !strings.Contains(line, "set -a && . /etc/mnemo/orchestrate.env") ||
		!strings.Contains(line, "flock -n ") {
		t.Errorf("cron line %q", line)
	}

	// Every command line: mnemo [global flags] orchestrate [its flags] --once.
	known := map[string]bool{}
	for _, m := range regexp.MustCompile(`fs\.\w+\("([a-z-]+)"`).FindAllStringSubmatch(readRepoFile(t, "cmd/mnemo/orchestrate.go"), -1) {
		known[m[1]] = true
	}
	app := readRepoFile(t, "cmd/mnemo/app.go")
	for _, m := range regexp.MustCompile(`fs\.\w+Var\(&a\.\w+, "([a-z-]+)"`).FindAllStringSubmatch(app, -1) {
		known[m[1]] = true
	}
	if !known["once"] || !known["tracker"] || !known["db"] || !known["namespace"] {
		t.Fatalf("the flags were not found in the command's source: %v", known)
	}
	var cmds []string
	for name, text := range map[string]string{"Dockerfile": docker, "PUSH.md": doc, "service": service, "cron": cron} {
		text = strings.ReplaceAll(text, "\\\n", " ")
		n := 0
		for _, l := range strings.Split(text, "\n") {
			i := strings.Index(l, " orchestrate --")
			if i < 0 || strings.Contains(l, "[flags]") { // the synopsis
				continue
			}
			// From the binary on: what comes before is docker's.
			if j := strings.LastIndex(l[:i+1], "mnemo "); j >= 0 {
				l = l[j:]
			}
			cmds = append(cmds, name+": "+l)
			n++
		}
		if n == 0 {
			t.Errorf("%s has no orchestrate command line", name)
		}
	}
	flag := regexp.MustCompile(`(?:^|\s)--([a-z][a-z-]*)`)
	for _, c := range cmds {
		if !strings.Contains(c, "--once") && !strings.Contains(c, "--every") && !strings.Contains(c, "--dry-run") {
			t.Errorf("neither one cycle nor a loop: %s", c)
		}
		for _, m := range flag.FindAllStringSubmatch(c, -1) {
			if !known[m[1]] {
				t.Errorf("unknown flag --%s in %s", m[1], c)
			}
		}
	}
	for _, v := range []string{"MNEMO_DB", "MNEMO_NAMESPACE"} {
		if !strings.Contains(app, `"`+v+`"`) {
			t.Errorf("%s is not read by the command", v)
		}
	}
	if !strings.Contains(readRepoFile(t, "cmd/mnemo/orchestrate.go"), `"MNEMO_GITHUB_TOKEN"`) {
		t.Error("MNEMO_GITHUB_TOKEN is not read by orchestrate")
	}
}
