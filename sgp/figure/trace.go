package figure

import (
	"math"

	"github.com/cholqr/sgp/sgp"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// Trace draws the optimisation trace against the epoch: on top the
// objective (sgp.EpochRecord.Objective, including n/2·log 2π), below its terms
// E_D (data fit), E_C (complexity) and E_V (trace; part of VAR only) from
// sgp.EpochRecord.Parts (see Parts). An empty title becomes "Optimisation
// trace". An empty trace gives a valid figure with empty panels marked
// "(no data)". The default size is 6×6 in.
func Trace(trace []sgp.EpochRecord, title string) *Figure {
	if title == "" {
		title = "Optimisation trace"
	}
	top := newPanel("objective", "epoch", "objective")
	bot := newPanel("objective terms", "epoch", "value")
	if len(trace) == 0 {
		markNoData(top)
		markNoData(bot)
		return newFigure(title, figTallW, figTallH, []*plot.Plot{top}, []*plot.Plot{bot})
	}
	obj := make(plotter.XYs, 0, len(trace))
	parts := [3]plotter.XYs{}
	for _, r := range trace {
		x := float64(r.Epoch)
		if isFinite(r.Objective) {
			obj = append(obj, plotter.XY{X: x, Y: r.Objective})
		}
		for k, v := range [3]float64{r.Parts.DataFit, r.Parts.Complexity, r.Parts.Trace} {
			if isFinite(v) {
				parts[k] = append(parts[k], plotter.XY{X: x, Y: v})
			}
		}
	}
	addLinePoints(top, "", obj, 0)
	names := [3]string{"E_D  data fit", "E_C  complexity", "E_V  trace term"}
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for k, xy := range parts {
		addLinePoints(bot, names[k], xy, k+1)
		for _, q := range xy {
			ymin, ymax = math.Min(ymin, q.Y), math.Max(ymax, q.Y)
		}
	}
	bot.Legend.Top = true
	legendRoom(bot, ymin, ymax, 3, 1.9)
	for _, p := range []*plot.Plot{top, bot} {
		p.X.Tick.Marker = niceTicks{integer: true}
	}
	return newFigure(title, figTallW, figTallH, []*plot.Plot{top}, []*plot.Plot{bot})
}
