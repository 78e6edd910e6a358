package figure

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// Series is one named curve for Curves: points (X[i], Y[i]).
type Series struct {
	Name string
	X, Y []float64
}

// Curves draws several named curves (for example SMSE or SNLP against
// m or against seconds, one series per method) as lines with markers and a
// legend. With logX the x axis is logarithmic. Points with a non-finite
// coordinate, and with logX points with X ≤ 0, are skipped. An empty
// series list, or series without points, gives a valid figure whose title
// is marked "(no data)". The default size is 6×4 in.
//
// Curves panics if a series has len(X) ≠ len(Y).
func Curves(title, xlabel, ylabel string, logX bool, series []Series) *Figure {
	p := newPanel(title, xlabel, ylabel)
	total := 0
	for i, s := range series {
		if len(s.X) != len(s.Y) {
			panic(fmt.Sprintf("figure: Curves: series %d (%q) has %d X but %d Y values", i, s.Name, len(s.X), len(s.Y)))
		}
		xy := make(plotter.XYs, 0, len(s.X))
		for k, x := range s.X {
			y := s.Y[k]
			if !isFinite(x) || !isFinite(y) || (logX && x <= 0) {
				continue
			}
			xy = append(xy, plotter.XY{X: x, Y: y})
		}
		total += len(xy)
		addLinePoints(p, s.Name, xy, i)
	}
	if total == 0 {
		markNoData(p)
		return newFigure("", figW, figH, []*plot.Plot{p})
	}
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks{}
	}
	p.Legend.Top = true
	return newFigure("", figW, figH, []*plot.Plot{p})
}
