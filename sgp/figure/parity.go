package figure

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Parity draws predicted against measured values — the usual check of a
// regression model on test data — with the line y = x and, if variance is
// not nil, the central 95% predictive interval of each prediction as a
// vertical bar (mean ± 1.96 sd). Non-finite pairs are left out; with none
// left the panel is marked "(no data)". An empty title becomes
// "Predicted against measured". The default size is 5×5 in. It panics if
// the slices differ in length.
func Parity(title string, measured, predicted, variance []float64) *Figure {
	if len(predicted) != len(measured) || (variance != nil && len(variance) != len(measured)) {
		panic(fmt.Sprintf("figure: Parity: %d measured, %d predicted and %d variances", len(measured), len(predicted), len(variance)))
	}
	if title == "" {
		title = "Predicted against measured"
	}
	p := newPanel("", "measured", "predicted")
	pts := make(plotter.XYs, 0, len(measured))
	var bars plotter.XYs
	var lows, highs []float64
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, m := range measured {
		if !isFinite(m) || !isFinite(predicted[i]) {
			continue
		}
		pts = append(pts, plotter.XY{X: m, Y: predicted[i]})
		lo, hi = math.Min(lo, math.Min(m, predicted[i])), math.Max(hi, math.Max(m, predicted[i]))
		if variance != nil && variance[i] >= 0 && isFinite(variance[i]) {
			h := 1.96 * math.Sqrt(variance[i])
			bars = append(bars, plotter.XY{X: m, Y: predicted[i]})
			lows, highs = append(lows, h), append(highs, h)
		}
	}
	if len(pts) == 0 {
		markNoData(p)
		return newFigure(title, figParityW, figParityW, []*plot.Plot{p})
	}
	if len(bars) > 0 {
		errs := make(plotter.YErrors, len(bars))
		for i := range bars {
			errs[i].Low, errs[i].High = lows[i], highs[i]
		}
		eb := &plotter.YErrorBars{XYs: bars, YErrors: errs, LineStyle: draw.LineStyle{Color: color.Gray{Y: 190}, Width: vg.Points(0.6)}}
		p.Add(eb)
		// A line of the same style stands for the bars in the legend.
		key, _ := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}})
		key.LineStyle = eb.LineStyle
		p.Legend.Add("95% interval", key)
	}
	addParity(p, pts, lo, hi, 1.8, "test points")
	return newFigure(title, figParityW, figParityW, []*plot.Plot{p})
}

// addParity adds the points (glyph radius r points, named in the legend)
// and the dashed line y = x over [lo, hi] to p, and returns the line.
func addParity(p *plot.Plot, pts plotter.XYs, lo, hi, r float64, name string) *plotter.Line {
	diag, _ := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}})
	diag.LineStyle = draw.LineStyle{Color: color.Gray{Y: 110}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
	sc, _ := plotter.NewScatter(pts)
	sc.GlyphStyle = draw.GlyphStyle{Color: palette(0), Radius: vg.Points(r), Shape: draw.CircleGlyph{}}
	p.Add(diag, sc)
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.Add(name, sc)
	p.Legend.Add("y = x", diag)
	return diag
}
