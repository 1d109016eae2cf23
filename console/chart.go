package console

import (
	"fmt"
	"html"
	"html/template"
	"strings"

	"github.com/mnemo-dev/mnemo"
)

// correctionChart draws the share of corrections caused by missing context
// per period as an inline SVG bar chart, with the count of corrections in
// each bar's title. It needs no script and nothing from elsewhere.
func correctionChart(periods []mnemo.CorrectionPeriod, bucket string) template.HTML {
	const w, h, left, bottom, top = 640, 220, 40, 30, 10
	n := max(len(periods), 1)
	slot := float64(w-left-10) / float64(n)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %d %d" role="img" aria-label="missing-context share per %s">`, w, h, html.EscapeString(bucket))
	for _, y := range []float64{0, 0.25, 0.5, 0.75, 1} {
		py := float64(h-bottom) - y*float64(h-bottom-top)
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="grid"/><text x="%d" y="%.1f" class="axis" text-anchor="end">%.0f%%</text>`,
			left, w-10, py, py, left-4, py+4, 100*y)
	}
	every := max(1, n/8)
	for i, p := range periods {
		x := float64(left) + float64(i)*slot + slot*0.15
		bh := p.MissingShare * float64(h-bottom-top)
		label := p.Start.UTC().Format("01-02")
		if bucket == mnemo.BucketMonth {
			label = p.Start.UTC().Format("2006-01")
		}
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" class="bar" data-share="%.4f"><title>%s: %d of %d corrections missed context (%.0f%%); %d retrievals</title></rect>`,
			x, float64(h-bottom)-bh, slot*0.7, bh, p.MissingShare, html.EscapeString(label), p.MissingContext, p.Corrections, 100*p.MissingShare, p.Retrievals)
		if i%every == 0 {
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="axis" text-anchor="middle">%s</text>`, x+slot*0.35, h-bottom+16, html.EscapeString(label))
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // numbers and escaped labels only
}
