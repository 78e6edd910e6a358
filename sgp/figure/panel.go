package figure

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// palette returns the i-th colour of Okabe & Ito's colour-blind safe
// palette.
func palette(i int) color.Color {
	cs := [...]color.RGBA{
		{0, 114, 178, 255},   // blue
		{213, 94, 0, 255},    // vermillion
		{0, 158, 115, 255},   // bluish green
		{204, 121, 167, 255}, // reddish purple
		{230, 159, 0, 255},   // orange
		{86, 180, 233, 255},  // sky blue
		{0, 0, 0, 255},       // black
		{240, 228, 66, 255},  // yellow
	}
	return cs[i%len(cs)]
}

// glyph returns the i-th marker shape.
func glyph(i int) draw.GlyphDrawer {
	gs := [...]draw.GlyphDrawer{
		draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{},
		draw.CrossGlyph{}, draw.RingGlyph{}, draw.PlusGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{},
	}
	return gs[i%len(gs)]
}

// newPanel returns a plot with a title, axis labels, sans-serif text,
// four to seven labelled ticks per axis and a light grid.
func newPanel(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.Padding = vg.Points(6)
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	for _, sty := range []*text.Style{
		&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle,
		&p.X.Tick.Label, &p.Y.Tick.Label, &p.Legend.TextStyle,
	} {
		sty.Font.Variant = "Sans"
	}
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	p.Legend.Padding = vg.Points(2)
	p.Legend.ThumbnailWidth = vg.Points(18)
	p.X.Tick.Marker = niceTicks{}
	p.Y.Tick.Marker = niceTicks{}
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{Y: 225}
	g.Horizontal.Color = color.Gray{Y: 225}
	p.Add(g)
	return p
}

// markNoData appends " (no data)" to the panel title.
func markNoData(p *plot.Plot) {
	if p.Title.Text == "" {
		p.Title.Text = "(no data)"
		return
	}
	p.Title.Text += " (no data)"
}

// bottomMarks draws a glyph at each x along the bottom edge of the data
// area, whatever the y range: a rug of positions such as inducing inputs.
type bottomMarks struct {
	xs    []float64
	style draw.GlyphStyle
}

func (b *bottomMarks) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	y := c.Min.Y + b.style.Radius
	for _, x := range b.xs {
		pt := vg.Point{X: trX(x), Y: y}
		if c.ContainsX(pt.X) {
			c.DrawGlyph(b.style, pt)
		}
	}
}

// Thumbnail draws the legend icon.
func (b *bottomMarks) Thumbnail(c *draw.Canvas) {
	c.DrawGlyph(b.style, c.Center())
}

// addLinePoints adds a line with markers in style i, with a legend entry
// if name is not empty. Empty data adds nothing.
func addLinePoints(p *plot.Plot, name string, xy plotter.XYs, i int) {
	if len(xy) == 0 {
		return
	}
	l, s, err := plotter.NewLinePoints(xy)
	if err != nil {
		return // unreachable: the points are finite
	}
	l.LineStyle = draw.LineStyle{Color: palette(i), Width: vg.Points(1.5)}
	s.GlyphStyle = draw.GlyphStyle{Color: palette(i), Radius: vg.Points(2.5), Shape: glyph(i)}
	p.Add(l, s)
	if name != "" {
		p.Legend.Add(name, l, s)
	}
}

// legendRoom raises the top of p's y axis so that a legend of the given
// number of entries along the top edge sits above data spanning
// [ymin, ymax] in a panel whose data area is about dataHeight inches tall.
func legendRoom(p *plot.Plot, ymin, ymax float64, entries int, dataHeight float64) {
	span := ymax - ymin
	if !(span > 0) || !isFinite(span) {
		return
	}
	// Each entry is about 14 pt = 0.19 in tall; leave a little slack.
	frac := math.Min((0.2*float64(entries)+0.08)/dataHeight, 0.6)
	p.Y.Min = ymin - 0.04*span
	p.Y.Max = ymax + span*frac/(1-frac)
}
