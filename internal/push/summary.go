package push

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/gitlog"
	"github.com/mnemo-dev/mnemo/llm"
)

// SummaryByRules is TaskReport.SummaryBy (and the summary's
// "summary-by:" provenance) when the deterministic rules wrote it.
const SummaryByRules = "rules"

// Bounds of a model summary: what goes in, what may come out.
const (
	summaryMaxTokens  = 400
	summaryMaxRunes   = 1500
	summaryCommits    = 20
	summaryComments   = 10
	summaryNews       = 5
	summaryPromptText = `You brief the operator who picks up a long-running task next: what changed since the last brief.
Use only the material given. Name what was decided, what was changed and what is still open; leave out small talk.
At most five sentences of plain text, in the language of the material.
Answer with one JSON object and nothing else: {"summary": "..."}`
)

// modelSummary asks the chat model for the executive summary and checks
// its answer: {"summary": string}, not empty, within summaryMaxRunes.
func (o *Orchestrator) modelSummary(ctx context.Context, t Task, day string, commits []gitlog.Commit, comments []Comment, news []mnemo.RecallHit) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "Task %s: %s\nSince: %s\n", t.ID, oneLine(t.Title), day)
	if len(commits) > 0 {
		fmt.Fprintf(&b, "\nCommits (%d, newest first):\n", len(commits))
		for _, c := range commits[:min(summaryCommits, len(commits))] {
			fmt.Fprintf(&b, "- %s %s\n", c.Hash[:min(8, len(c.Hash))], oneLine(c.Subject))
			if body := oneLine(c.Body); body != "" {
				fmt.Fprintf(&b, "  %s\n", clip(body, 300))
			}
			if len(c.Files) > 0 {
				fmt.Fprintf(&b, "  files: %s\n", strings.Join(c.Files[:min(10, len(c.Files))], ", "))
			}
		}
	}
	if len(comments) > 0 {
		fmt.Fprintf(&b, "\nComments (%d, oldest first):\n", len(comments))
		for _, c := range comments[max(0, len(comments)-summaryComments):] {
			fmt.Fprintf(&b, "- %s (%s): %s\n", oneLine(c.Author), c.At.Format("2006-01-02"), clip(oneLine(c.Text), 500))
		}
	}
	if len(news) > 0 {
		b.WriteString("\nNew in memory:\n")
		for _, h := range news[:min(summaryNews, len(news))] {
			fmt.Fprintf(&b, "- %s: %s\n", h.Kind, clip(oneLine(h.Text), 300))
		}
	}
	var out struct {
		Summary *string `json:"summary"`
	}
	if err := o.Chat.JSON(ctx, llm.Request{System: summaryPromptText, User: b.String(), MaxTokens: summaryMaxTokens}, &out); err != nil {
		return "", err
	}
	if out.Summary == nil {
		return "", fmt.Errorf("no \"summary\" in the answer: %w", llm.ErrInvalid)
	}
	s := oneLine(*out.Summary)
	switch {
	case s == "":
		return "", fmt.Errorf("an empty summary: %w", llm.ErrInvalid)
	case utf8.RuneCountInString(s) > summaryMaxRunes:
		return "", fmt.Errorf("a summary of %d characters, over %d: %w", utf8.RuneCountInString(s), summaryMaxRunes, llm.ErrInvalid)
	}
	return s, nil
}

// sourcesNote names what a model summary was made from, so that its reader
// can check it: the commits and records, by id.
func sourcesNote(commits []gitlog.Commit, comments []Comment, news []mnemo.RecallHit) string {
	var parts []string
	if len(commits) > 0 {
		var hs []string
		for _, c := range commits[:min(5, len(commits))] {
			hs = append(hs, c.Hash[:min(8, len(c.Hash))])
		}
		more := ""
		if len(commits) > 5 {
			more = ", …"
		}
		parts = append(parts, fmt.Sprintf("%d commit%s (%s%s)", len(commits), plural(len(commits)), strings.Join(hs, ", "), more))
	}
	if len(comments) > 0 {
		parts = append(parts, fmt.Sprintf("%d comment%s", len(comments), plural(len(comments))))
	}
	for _, h := range news {
		parts = append(parts, "["+h.ID+"]")
	}
	if len(parts) == 0 {
		return ""
	}
	return " (From " + strings.Join(parts, "; ") + ".)"
}
