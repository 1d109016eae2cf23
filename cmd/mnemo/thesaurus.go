package main

import (
	"fmt"

	"github.com/mnemo-dev/mnemo/thesaurus"
)

// thesaurusConfig is where the thesauri are: MNEMO_THESAURUS (a directory,
// a file or a list of them; "off" disables), else the standard system
// locations of WordNet and MyThes.
func (a *app) thesaurusConfig() thesaurus.Config {
	cfg := thesaurus.ParseLocation(a.env("MNEMO_THESAURUS"))
	// MNEMO_THESAURUS_CACHE: where the thesauri's indexes are kept
	// between processes; "off" keeps them in memory only.
	switch v := a.env("MNEMO_THESAURUS_CACHE"); v {
	case "off":
	case "":
		cfg.CacheDir = thesaurus.DefaultCacheDir()
	default:
		cfg.CacheDir = v
	}
	return cfg
}

// printLexicalResources lists the active thesauri for `version --verbose`.
// Opening them reads only their headers.
func (a *app) printLexicalResources(version string) error {
	cfg := a.thesaurusConfig()
	th, err := thesaurus.Load(cfg)
	if err != nil {
		fmt.Fprintln(a.stderr, "mnemo: warning:", err)
	}
	defer th.Close()
	src := th.Sources()
	if a.json {
		if src == nil {
			src = []thesaurus.Source{}
		}
		return a.printJSON(map[string]any{"version": version, "lexical_resources": src})
	}
	fmt.Fprintln(a.stdout, "mnemo", version)
	switch {
	case cfg.Off:
		fmt.Fprintln(a.stdout, "lexical resources: off (MNEMO_THESAURUS=off)")
	case len(src) == 0:
		fmt.Fprintln(a.stdout, "lexical resources: none (apt-get install wordnet-base mythes-en-us mythes-ru mythes-uk, or set MNEMO_THESAURUS)")
	default:
		fmt.Fprintln(a.stdout, "lexical resources:")
		for _, s := range src {
			fmt.Fprintf(a.stdout, "  %-14s %s  %d entries  %s\n", s.Name, s.Lang, s.Entries, s.Path)
		}
	}
	return nil
}
