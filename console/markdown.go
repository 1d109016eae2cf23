package console

import (
	"html"
	"html/template"
	"regexp"
	"strings"
	"sync"
)

// The inline patterns, compiled on first use (not in every process's
// start: the console is one command's).
var (
	mdBold = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\*\*([^*\n]+)\*\*`) })
	mdCode = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`([^`\n]+)`") })
)

// renderMarkdown renders the Markdown that mnemo writes (headings, bullet
// lists, paragraphs, **bold**, `code`) as HTML. Every character of the
// input is escaped first: text from records never becomes markup, links
// are not made, and raw HTML in a record shows as text.
func renderMarkdown(md string) template.HTML {
	var b strings.Builder
	inList := 0 // nesting depth of open lists
	closeLists := func(to int) {
		for ; inList > to; inList-- {
			b.WriteString("</ul>")
		}
	}
	inline := func(s string) string {
		s = html.EscapeString(s)
		s = mdCode().ReplaceAllString(s, "<code>$1</code>")
		return mdBold().ReplaceAllString(s, "<strong>$1</strong>")
	}
	for _, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		indent := (len(line) - len(trimmed)) / 2
		switch {
		case strings.TrimSpace(line) == "":
			closeLists(0)
		case strings.HasPrefix(trimmed, "#"):
			closeLists(0)
			level := len(trimmed) - len(strings.TrimLeft(trimmed, "#"))
			level = min(max(level, 1), 6) + 1 // the page holds the h1
			if level > 6 {
				level = 6
			}
			tag := "h" + string(rune('0'+level))
			b.WriteString("<" + tag + ">" + inline(strings.TrimSpace(strings.TrimLeft(trimmed, "#"))) + "</" + tag + ">")
		case strings.HasPrefix(trimmed, "- ") || strings.HasPrefix(trimmed, "* "):
			depth := indent + 1
			for inList < depth {
				b.WriteString("<ul>")
				inList++
			}
			closeLists(depth)
			b.WriteString("<li>" + inline(trimmed[2:]) + "</li>")
		default:
			closeLists(0)
			b.WriteString("<p>" + inline(trimmed) + "</p>")
		}
	}
	closeLists(0)
	return template.HTML(b.String()) //nolint: every piece of input was escaped above
}
