package figure

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"math/rand/v2"

	"github.com/cholqr/sgp/sgp"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/cholqr/sgp/sgp/kernel"
)

// Samples draws n joint posterior draws of the latent function of a model
// with 1-D inputs over its predictive mean and a ±2σ band of the latent
// function (the band the draws stay in about 95% of the time), with the
// training points: on the grid of Fit1D (400 points spanning the
// training inputs padded by 10% of their range), from Model.Sample with
// the seed (rand.NewPCG(seed, 0)), so that the same seed draws the same
// curves. n is between 1 and 20. An empty title becomes "Posterior draws
// (m = k)". The axes are named as in Fit1D; the default size is 6×4 in.
//
// Samples builds the model if needed but does not fit it. It returns an
// error if the inputs are not *Vectors of dimension 1, if n is out of
// range, or if the model cannot be built, predict or draw.
func Samples(m *sgp.Model, n int, seed uint64, title string) (*Figure, error) {
	if m == nil {
		return nil, errors.New("figure: Samples: nil model")
	}
	if n < 1 || n > 20 {
		return nil, fmt.Errorf("figure: Samples draws 1 to 20 curves, got %d", n)
	}
	xv, ok := m.Inputs().(*kernel.Vectors)
	if !ok || xv == nil || xv.Dim() != 1 {
		return nil, fmt.Errorf("figure: Samples needs 1-D inputs of type *kernel.Vectors, got %T", m.Inputs())
	}
	ind, err := m.Inducing()
	if err != nil {
		return nil, err
	}
	xs, ys := xv.RawData(), m.Targets()
	lo, hi := paddedRange(xs)
	const ng = 400
	grid := make([]float64, ng)
	for i := range grid {
		grid[i] = lo + (hi-lo)*float64(i)/float64(ng-1)
	}
	gx, err := kernel.NewVectors(ng, 1, grid)
	if err != nil {
		return nil, err
	}
	mean, vr, err := m.Predict(gx)
	if err != nil {
		return nil, err
	}
	draws, err := m.Sample(gx, n, rand.New(rand.NewPCG(seed, 0)))
	if err != nil {
		return nil, err
	}
	if title == "" {
		title = fmt.Sprintf("Posterior draws (m = %d)", len(ind))
	}
	p := panel1D(title, xv, m, lo, hi)
	poly, band, ml, err := meanAndBand(grid, mean, vr)
	if err != nil {
		return nil, err
	}
	pts := make(plotter.XYs, len(ys))
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for i, y := range ys {
		pts[i] = plotter.XY{X: xs[i], Y: y}
		ymin, ymax = math.Min(ymin, y), math.Max(ymax, y)
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: color.Gray{Y: 150}, Radius: vg.Points(1.4), Shape: draw.CircleGlyph{}}
	p.Add(poly, sc)
	lines, err := drawLines(grid, draws)
	if err != nil {
		return nil, err
	}
	for _, l := range lines {
		p.Add(l)
		for _, q := range l.XYs {
			ymin, ymax = math.Min(ymin, q.Y), math.Max(ymax, q.Y)
		}
	}
	p.Add(ml)
	for _, q := range band {
		ymin, ymax = math.Min(ymin, q.Y), math.Max(ymax, q.Y)
	}
	legendRoom(p, ymin, ymax, 4, 2.9)
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs = vg.Points(4)
	p.Legend.Add("training data", sc)
	p.Legend.Add("predictive mean", ml)
	p.Legend.Add("±2σ (latent f)", poly)
	p.Legend.Add(fmt.Sprintf("posterior draws (%d)", n), lines[0])
	return newFigure("", figW, figH, []*plot.Plot{p}), nil
}

// drawLines returns a thin line for each column of draws over grid, in
// the palette's colours after the mean's.
func drawLines(grid []float64, draws *mat.Dense) ([]*plotter.Line, error) {
	_, n := draws.Dims()
	lines := make([]*plotter.Line, n)
	for j := range lines {
		pts := make(plotter.XYs, len(grid))
		for i, x := range grid {
			pts[i] = plotter.XY{X: x, Y: draws.At(i, j)}
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		l.LineStyle = draw.LineStyle{Color: palette(1 + j%5), Width: vg.Points(0.8)}
		lines[j] = l
	}
	return lines, nil
}
