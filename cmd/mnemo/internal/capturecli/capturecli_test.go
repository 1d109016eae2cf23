package capturecli

import "testing"

func TestRepoArg(t *testing.T) {
	t.Setenv("MNEMO_PROMPTS_REPO", "/default.git")
	tests := []struct {
		args []string
		want string
		ok   bool
	}{
		{nil, "/default.git", true},
		{[]string{"--repo", "/r.git"}, "/r.git", true},
		{[]string{"-repo", "/r.git"}, "/r.git", true},
		{[]string{"--repo=/r.git"}, "/r.git", true},
		{[]string{"-repo=/r.git"}, "/r.git", true},
		{[]string{"--repo="}, "", true}, // as the flag package reads it: an empty repository, refused later
		{[]string{"--repo", "-x"}, "-x", true},
		// Left to main's flag parse:
		{[]string{"--repo"}, "", false},
		{[]string{"--help"}, "", false},
		{[]string{"/r.git"}, "", false},
		{[]string{"---repo=/r.git"}, "", false},
		{[]string{"--repo", "/r.git", "--"}, "", false},
		{[]string{"--repo=/r.git", "extra"}, "", false},
		{[]string{"--other", "/r.git"}, "", false},
	}
	for _, tt := range tests {
		got, ok := repoArg(tt.args)
		if got != tt.want || ok != tt.ok {
			t.Errorf("repoArg(%q) = %q, %v; want %q, %v", tt.args, got, ok, tt.want, tt.ok)
		}
	}
}
