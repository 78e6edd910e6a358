package figure

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"github.com/cholqr/sgp/sgp"
	"html"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// DPI is the resolution, in dots per inch, at which Figure.PNG
// rasterises: a 6×4 in figure is 576×384 pixels.
const DPI = 96

// Default figure sizes in inches.
const (
	figW, figH         = 6, 4  // one panel
	figWideW, figWideH = 10, 4 // two panels side by side
	figParityW         = 5     // the square parity plot
	figTallW, figTallH = 6, 6  // two panels stacked
)

// Figure is a plot rendered on demand: a value holding one or more
// gonum/plot panels and a size. PNG, SVG and HTML render it to bytes in
// memory, so the same value can be shown by a REPL, by a Jupyter kernel
// (the method sets of gophernotes' PNGer, SVGer and HTMLer) or checked in
// a test; only Save writes a file.
//
// Rendering is deterministic: the same figure rendered twice gives
// identical bytes for the same gonum/plot version. Text uses the
// Liberation fonts embedded in gonum/plot, never system fonts (SVG output
// names the font family without embedding it, to stay small).
//
// A Figure is not safe for concurrent use if its plots are being
// modified; rendering alone does not modify them.
type Figure struct {
	plot          *plot.Plot     // the first panel
	panels        [][]*plot.Plot // rows of panels; a single panel is [[plot]]
	title         string         // figure-level title above all panels (multi-panel figures)
	width, height vg.Length
}

// newFigure returns a figure of rows of panels with the size w×h inches.
func newFigure(title string, w, h float64, panels ...[]*plot.Plot) *Figure {
	return &Figure{
		plot:   panels[0][0],
		panels: panels,
		title:  title,
		width:  vg.Length(w) * vg.Inch,
		height: vg.Length(h) * vg.Inch,
	}
}

// Plot returns the underlying gonum plot for customisation (axis ranges,
// labels, extra plotters). For a multi-panel figure it is the first
// (left or top) panel; see Panels. Changes show in later renderings.
func (f *Figure) Plot() *plot.Plot { return f.plot }

// Panels returns all panels of the figure in reading order (left to
// right, top to bottom).
func (f *Figure) Panels() []*plot.Plot {
	var ps []*plot.Plot
	for _, row := range f.panels {
		ps = append(ps, row...)
	}
	return ps
}

// Size returns the figure size in inches.
func (f *Figure) Size() (w, h float64) {
	return float64(f.width / vg.Inch), float64(f.height / vg.Inch)
}

// WithSize returns a copy of the figure with size w×h inches (at DPI
// for PNG). The copy shares the plots with f. It panics if w or h is not
// positive and finite.
func (f *Figure) WithSize(w, h float64) *Figure {
	if !(w > 0) || !(h > 0) || math.IsInf(w, 0) || math.IsInf(h, 0) {
		panic(fmt.Sprintf("figure: figure size %v×%v in must be positive and finite", w, h))
	}
	g := *f
	g.width, g.height = vg.Length(w)*vg.Inch, vg.Length(h)*vg.Inch
	return &g
}

// String describes the figure, for a REPL's text display.
func (f *Figure) String() string {
	w, h := f.Size()
	title := f.title
	if title == "" && f.plot != nil {
		title = f.plot.Title.Text
	}
	return fmt.Sprintf("Figure(%q, %d panel(s), %.3g×%.3g in)", title, len(f.Panels()), w, h)
}

// PNG returns the figure as a PNG image of width·DPI × height·DPI
// pixels. It never panics; if rendering fails it returns nil (Encode
// reports the error).
func (f *Figure) PNG() []byte {
	b, err := f.Encode("png")
	if err != nil {
		return nil
	}
	return b
}

// SVG returns the figure as an SVG document, or "" if rendering fails
// (Encode reports the error).
func (f *Figure) SVG() string {
	b, err := f.Encode("svg")
	if err != nil {
		return ""
	}
	return string(b)
}

// HTML returns an <img> element holding the PNG inline as a base64 data
// URI, for notebooks. If rendering fails it returns a <pre> element with
// the error.
func (f *Figure) HTML() string {
	b, err := f.Encode("png")
	if err != nil {
		return "<pre>" + html.EscapeString(err.Error()) + "</pre>"
	}
	alt := f.title
	if alt == "" && f.plot != nil {
		alt = f.plot.Title.Text
	}
	w, h := f.pixels()
	return fmt.Sprintf(`<img src="data:image/png;base64,%s" width="%d" height="%d" alt="%s">`,
		base64.StdEncoding.EncodeToString(b), w, h, html.EscapeString(alt))
}

// pixels returns the PNG size in pixels.
func (f *Figure) pixels() (w, h int) {
	// The same rounding as vgimg.UseWH.
	w = int(math.Ceil(f.width.Dots(DPI)))
	h = int(math.Ceil(f.height.Dots(DPI)))
	return w, h
}

// Encode renders the figure in format "png", "svg" or "pdf". It fails on
// an unknown format, or if gonum/plot fails (or panics) while drawing.
func (f *Figure) Encode(format string) (b []byte, err error) {
	var c vg.CanvasWriterTo
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(
			vgimg.UseWH(f.width, f.height),
			vgimg.UseDPI(DPI),
			vgimg.UseBackgroundColor(color.White),
		)}
	case "svg":
		c = vgsvg.New(f.width, f.height)
	case "pdf":
		c = vgpdf.New(f.width, f.height)
	default:
		return nil, fmt.Errorf("figure: unknown figure format %q: use png, svg or pdf", format)
	}
	defer func() {
		// gonum/plot panics on some degenerate input (for example a
		// non-positive value on a log axis); report it as an error.
		if r := recover(); r != nil {
			b, err = nil, fmt.Errorf("figure: rendering the figure failed: %v", r)
		}
	}()
	f.draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("figure: encoding the figure as %s: %w", format, err)
	}
	return buf.Bytes(), nil
}

// draw draws the panels onto dc, below the figure title if any.
func (f *Figure) draw(dc draw.Canvas) {
	margin := vg.Points(6)
	dc = draw.Crop(dc, margin, -margin, margin, -margin)
	if f.title != "" {
		sty := f.plot.Title.TextStyle
		sty.Font.Size = 14
		sty.XAlign = draw.XCenter
		sty.YAlign = draw.YTop
		dc.FillText(sty, vg.Point{X: dc.Center().X, Y: dc.Max.Y}, f.title)
		dc.Max.Y -= sty.Rectangle(f.title).Size().Y + vg.Points(8)
	}
	if len(f.panels) == 1 && len(f.panels[0]) == 1 {
		f.plot.Draw(dc)
		return
	}
	t := draw.Tiles{
		Rows:      len(f.panels),
		Cols:      len(f.panels[0]),
		PadX:      vg.Points(24),
		PadY:      vg.Points(18),
		PadTop:    vg.Points(2),
		PadBottom: vg.Points(2),
		PadLeft:   vg.Points(2),
		PadRight:  vg.Points(6),
	}
	cs := plot.Align(f.panels, t, dc)
	for i, row := range f.panels {
		for j, p := range row {
			if p != nil {
				p.Draw(cs[i][j])
			}
		}
	}
}

// Save writes the figure to path in the format given by its extension:
// .png, .svg or .pdf. The figure is rendered before the file is created,
// so a rendering error leaves no file behind.
func (f *Figure) Save(path string) error {
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	switch ext {
	case "png", "svg", "pdf":
	default:
		return fmt.Errorf("figure: cannot save figure as %q: the file name must end in .png, .svg or .pdf", path)
	}
	b, err := f.Encode(ext)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

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

// Fit1D draws the fit of a model with 1-D inputs: the training points,
// the predictive mean, a ±2σ band for noisy observations (latent variance
// plus σ², the filled semi-transparent region) and the inducing inputs as
// triangles along the bottom of the plot. The curves are evaluated on a
// grid of 400 points spanning the training inputs padded by 10% of their
// range on each side. An empty title becomes "Sparse GP fit (m = k)".
// The default size is 6×4 in.
//
// Fit1D builds the model if needed but does not fit it. It returns an
// error if the inputs are not *Vectors of dimension 1, or if the model
// cannot be built or predict.
func Fit1D(m *sgp.Model, title string) (*Figure, error) {
	if m == nil {
		return nil, errors.New("figure: Fit1D: nil model")
	}
	xv, ok := m.Inputs().(*sgp.Vectors)
	if !ok || xv == nil {
		return nil, fmt.Errorf("figure: Fit1D needs 1-D inputs of type *sgp.Vectors, got %T", m.Inputs())
	}
	if xv.Dim() != 1 {
		return nil, fmt.Errorf("figure: Fit1D needs 1-D inputs, got dimension %d", xv.Dim())
	}
	ind, err := m.Inducing()
	if err != nil {
		return nil, err
	}
	xs, ys := xv.RawData(), m.Targets()
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range xs {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	pad := 0.1 * (hi - lo)
	if pad == 0 {
		pad = 1
	}
	lo, hi = lo-pad, hi+pad

	const ng = 400
	grid := make([]float64, ng)
	for i := range grid {
		grid[i] = lo + (hi-lo)*float64(i)/(ng-1)
	}
	gx, err := sgp.NewVectors(ng, 1, grid)
	if err != nil {
		return nil, err
	}
	mean, vr, err := m.PredictNoisy(gx)
	if err != nil {
		return nil, err
	}

	if title == "" {
		title = fmt.Sprintf("Sparse GP fit (m = %d)", len(ind))
	}
	p := newPanel(title, "x", "y")
	p.X.Min, p.X.Max = lo, hi

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
		return nil, err
	}
	poly.Color = color.NRGBA{R: 0, G: 114, B: 178, A: 56}
	poly.LineStyle.Width = 0

	pts := make(plotter.XYs, len(ys))
	for i, y := range ys {
		pts[i] = plotter.XY{X: xs[i], Y: y}
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: color.Gray{Y: 90}, Radius: vg.Points(1.6), Shape: draw.CircleGlyph{}}

	ml, err := plotter.NewLine(line)
	if err != nil {
		return nil, err
	}
	ml.LineStyle = draw.LineStyle{Color: palette(0), Width: vg.Points(2)}

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

	re, ra := sgp.Ranks(fe), sgp.Ranks(fa)
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

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

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

// niceTicks places labelled ticks at multiples of 1, 2 or 5 × 10ᵏ, about
// four to seven per axis, with four or one minor ticks between them. With integer set
// the step is at least 1 (epochs).
type niceTicks struct{ integer bool }

// Ticks implements plot.Ticker.
func (t niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || !isFinite(lo) || !isFinite(hi) {
		return (plot.DefaultTicks{}).Ticks(lo, hi)
	}
	const want = 5
	raw := (hi - lo) / want
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	var step float64
	minor := 5
	switch r := raw / mag; {
	case r < 1.5:
		step = mag
	case r < 3.5:
		step, minor = 2*mag, 2
	case r < 7.5:
		step = 5 * mag
	default:
		step = 10 * mag
	}
	if t.integer && step < 1 {
		step, minor = 1, 1
	}
	prec := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	format := func(v float64) string {
		if a := math.Abs(v); a != 0 && (a >= 1e6 || a < 1e-4) {
			return strconv.FormatFloat(v, 'g', 4, 64)
		}
		s := strconv.FormatFloat(v, 'f', prec, 64)
		if strings.Trim(s, "-0.") == "" {
			s = strings.TrimPrefix(s, "-") // no "-0"
		}
		return s
	}
	var ticks []plot.Tick
	first := math.Ceil(lo/step - 1e-9)
	for k := first - 1; ; k++ {
		v := k * step
		if v > hi+1e-9*step {
			break
		}
		if v >= lo-1e-9*step {
			ticks = append(ticks, plot.Tick{Value: v, Label: format(v)})
		}
		for j := 1; j < minor; j++ {
			if w := v + float64(j)*step/float64(minor); w >= lo && w <= hi {
				ticks = append(ticks, plot.Tick{Value: w})
			}
		}
	}
	return ticks
}

// logTicks labels 1, 2 and 5 × 10ᵏ on a log axis spanning at most two
// decades, and powers of ten only on a longer one; the other integer
// multiples of 10ᵏ get minor ticks.
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) || math.IsInf(hi, 0) {
		return (plot.LogTicks{Prec: -1}).Ticks(lo, hi)
	}
	dense := math.Log10(hi/lo) <= 2
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		p := math.Pow(10, e)
		for d := 1; d <= 9; d++ {
			v := float64(d) * p
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if d == 1 || (dense && (d == 2 || d == 5)) {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
			}
			ticks = append(ticks, t)
		}
	}
	if len(ticks) < 2 {
		return (plot.LogTicks{Prec: -1}).Ticks(lo, hi)
	}
	return ticks
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
