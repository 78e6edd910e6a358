package figure

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"sort"

	"github.com/cholqr/sgp/sgp"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/cholqr/sgp/sgp/kernel"
)

// Fit1D draws the fit of a model with 1-D inputs: the training points,
// the predictive mean, a ±2σ band for noisy observations (latent variance
// plus σ², the filled semi-transparent region) and the inducing inputs as
// triangles along the bottom of the plot. The curves are evaluated on a
// grid of 400 points spanning the training inputs padded by 10% of their
// range on each side. An empty title becomes "Sparse GP fit (m = k)".
// The axes carry the data's column names: the input's (kernel.Vectors.
// Names, as read from a CSV header) and the target's
// (Model.WithTargetName), "x" and "y" without them. The default size is
// 6×4 in.
//
// Fit1D builds the model if needed but does not fit it. It returns an
// error if the inputs are not *Vectors of dimension 1, or if the model
// cannot be built or predict.
func Fit1D(m *sgp.Model, title string) (*Figure, error) {
	if m == nil {
		return nil, errors.New("figure: Fit1D: nil model")
	}
	xv, ok := m.Inputs().(*kernel.Vectors)
	if !ok || xv == nil {
		return nil, fmt.Errorf("figure: Fit1D needs 1-D inputs of type *kernel.Vectors, got %T", m.Inputs())
	}
	if xv.Dim() != 1 {
		return nil, fmt.Errorf("figure: Fit1D needs 1-D inputs, got dimension %d", xv.Dim())
	}
	ind, err := m.Inducing()
	if err != nil {
		return nil, err
	}
	xs, ys := xv.RawData(), m.Targets()
	lo, hi := paddedRange(xs)
	grid, mean, vr, err := predictGrid(m, lo, hi, 400)
	if err != nil {
		return nil, err
	}

	if title == "" {
		title = fmt.Sprintf("Sparse GP fit (m = %d)", len(ind))
	}
	p := panel1D(title, xv, m, lo, hi)
	poly, band, ml, err := meanAndBand(grid, mean, vr)
	if err != nil {
		return nil, err
	}
	pts := make(plotter.XYs, len(ys))
	for i, y := range ys {
		pts[i] = plotter.XY{X: xs[i], Y: y}
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: color.Gray{Y: 90}, Radius: vg.Points(1.6), Shape: draw.CircleGlyph{}}
	ix := make([]float64, len(ind))
	for i, j := range ind {
		ix[i] = xs[j]
	}
	sort.Float64s(ix)
	marks := &bottomMarks{xs: ix, style: draw.GlyphStyle{Color: palette(1), Radius: vg.Points(4), Shape: draw.PyramidGlyph{}}}

	p.Add(poly, sc, ml, marks)
	// Room for the legend above the data and for the inducing marks below.
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for _, q := range band {
		ymin, ymax = math.Min(ymin, q.Y), math.Max(ymax, q.Y)
	}
	for _, y := range ys {
		ymin, ymax = math.Min(ymin, y), math.Max(ymax, y)
	}
	legendRoom(p, ymin, ymax, 4, 2.9)
	if span := ymax - ymin; span > 0 {
		p.Y.Min = ymin - 0.08*span
	}
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs = vg.Points(4)
	p.Legend.Add("training data", sc)
	p.Legend.Add("predictive mean", ml)
	p.Legend.Add("±2σ (noisy y)", poly)
	p.Legend.Add(fmt.Sprintf("inducing inputs (%d)", len(ind)), marks)
	return newFigure("", figW, figH, []*plot.Plot{p}), nil
}

// panel1D returns the panel of a 1-D figure over [lo, hi], its axes
// named by the input's and the target's names ("x" and "y" when unnamed).
func panel1D(title string, xv *kernel.Vectors, m *sgp.Model, lo, hi float64) *plot.Plot {
	xlabel, ylabel := "x", "y"
	if names := xv.Names(); len(names) == 1 && names[0] != "" {
		xlabel = names[0]
	}
	if name := m.TargetName(); name != "" {
		ylabel = name
	}
	p := newPanel(title, xlabel, ylabel)
	p.X.Min, p.X.Max = lo, hi
	return p
}

// paddedRange returns the range of xs padded by 10% of its width on each
// side (by 1 for a single value).
func paddedRange(xs []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range xs {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	pad := 0.1 * (hi - lo)
	if pad == 0 {
		pad = 1
	}
	return lo - pad, hi + pad
}

// predictGrid predicts with m at ng points evenly spaced on [lo, hi]: the
// grid, the mean and the variance of a noisy observation.
func predictGrid(m *sgp.Model, lo, hi float64, ng int) (grid, mean, vr []float64, err error) {
	grid = make([]float64, ng)
	for i := range grid {
		grid[i] = lo + (hi-lo)*float64(i)/float64(ng-1)
	}
	gx, err := kernel.NewVectors(ng, 1, grid)
	if err != nil {
		return nil, nil, nil, err
	}
	mean, vr, err = m.PredictNoisy(gx)
	return grid, mean, vr, err
}

// meanAndBand returns the ±2σ band around the mean as a polygon (with its
// outline points) and the mean as a line.
func meanAndBand(grid, mean, vr []float64) (*plotter.Polygon, plotter.XYs, *plotter.Line, error) {
	ng := len(grid)
	band := make(plotter.XYs, 0, 2*ng)
	line := make(plotter.XYs, ng)
	for i, x := range grid {
		s := 2 * math.Sqrt(math.Max(vr[i], 0))
		band = append(band, plotter.XY{X: x, Y: mean[i] + s})
		line[i] = plotter.XY{X: x, Y: mean[i]}
	}
	for i := ng - 1; i >= 0; i-- {
		s := 2 * math.Sqrt(math.Max(vr[i], 0))
		band = append(band, plotter.XY{X: grid[i], Y: mean[i] - s})
	}
	poly, err := plotter.NewPolygon(band)
	if err != nil {
		return nil, nil, nil, err
	}
	poly.Color = color.NRGBA{R: 0, G: 114, B: 178, A: 56}
	poly.LineStyle.Width = 0
	ml, err := plotter.NewLine(line)
	if err != nil {
		return nil, nil, nil, err
	}
	ml.LineStyle = draw.LineStyle{Color: palette(0), Width: vg.Points(2)}
	return poly, band, ml, nil
}
