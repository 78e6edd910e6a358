package figure

import (
	"fmt"
	"math"

	"github.com/cholqr/sgp/sgp"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/cholqr/sgp/sgp/internal/rank"
)

// CostRanking draws the exact against the approximate objective
// decrease ΔF of every candidate of cr, as in the cost-ranking figure of
// Cao et al. (2013): on the left approximate ΔF against exact ΔF with the
// line y = x; on the right each candidate's rank by approximate ΔF against
// its rank by exact ΔF (rank 1 is the largest decrease). The figure title
// names the removed point. A nil or empty ranking gives a valid figure
// with empty panels marked "(no data)". The default size is 10×4 in.
func CostRanking(cr *sgp.CostRanking) *Figure {
	left := newPanel("approximate vs exact ΔF", "exact ΔF", "approximate ΔF")
	right := newPanel("rank by approximate vs rank by exact ΔF", "rank by exact ΔF", "rank by approximate ΔF")
	title := "Cost ranking: no candidates"
	var ex, ap []float64
	if cr != nil {
		n := min(len(cr.Exact), len(cr.Approx))
		ex, ap = cr.Exact[:n], cr.Approx[:n]
		title = fmt.Sprintf("Cost ranking after removing point %d (%d candidates, %d information pivots)",
			cr.Removed, n, len(cr.InfoPivots))
	}
	// Finite pairs only.
	var fe, fa []float64
	for i := range ex {
		if isFinite(ex[i]) && isFinite(ap[i]) {
			fe, fa = append(fe, ex[i]), append(fa, ap[i])
		}
	}
	if len(fe) == 0 {
		markNoData(left)
		markNoData(right)
		return newFigure(title, figWideW, figWideH, []*plot.Plot{left, right})
	}

	pts := make(plotter.XYs, len(fe))
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range fe {
		pts[i] = plotter.XY{X: fe[i], Y: fa[i]}
		lo = math.Min(lo, math.Min(fe[i], fa[i]))
		hi = math.Max(hi, math.Max(fe[i], fa[i]))
	}
	diag := addParity(left, pts, lo, hi, 2, "candidates")

	re, ra := rank.Of(fe), rank.Of(fa)
	rp := make(plotter.XYs, len(fe))
	for i := range fe {
		rp[i] = plotter.XY{X: re[i], Y: ra[i]}
	}
	n := float64(len(fe))
	rdiag, _ := plotter.NewLine(plotter.XYs{{X: 1, Y: 1}, {X: n, Y: n}})
	rdiag.LineStyle = diag.LineStyle
	rs, _ := plotter.NewScatter(rp)
	rs.GlyphStyle = draw.GlyphStyle{Color: palette(1), Radius: vg.Points(1.5), Shape: draw.CircleGlyph{}}
	right.Add(rdiag, rs)
	return newFigure(title, figWideW, figWideH, []*plot.Plot{left, right})
}
