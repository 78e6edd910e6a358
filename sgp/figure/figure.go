package figure

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/cholqr/sgp/sgp/outfile"

	"gonum.org/v1/plot"
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

// maxPixels bounds the PNG rendering of a figure: 2²⁶ pixels, 256 MiB
// of RGBA image, about 85×85 in at DPI.
const maxPixels = 1 << 26

// WithSize returns a copy of the figure with size w×h inches (at DPI
// for PNG). The copy shares the plots with f. It panics if w or h is not
// positive and finite, or if the PNG would have more than 2²⁶ pixels
// (about 85×85 in): a figure of 1000×1000 in would be 96000×96000 pixels,
// 34 GiB of image, which a REPL rendering it could not survive.
func (f *Figure) WithSize(w, h float64) *Figure {
	if !(w > 0) || !(h > 0) || math.IsInf(w, 0) || math.IsInf(h, 0) {
		panic(fmt.Sprintf("figure: figure size %v×%v in must be positive and finite", w, h))
	}
	if pw, ph := math.Ceil(w*DPI), math.Ceil(h*DPI); pw*ph > maxPixels {
		panic(fmt.Sprintf("figure: a figure of %v×%v in is %.0f×%.0f pixels at %d DPI, %.1f GiB of image; the limit is %d megapixels (about 85×85 in): give a smaller size",
			w, h, pw, ph, DPI, pw*ph*4/(1<<30), maxPixels>>20))
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
// .png, .svg or .pdf, by the rules of package outfile (outfile.Write): a
// regular file is replaced only once the whole figure is written, through
// symbolic links; a device or named pipe is written in place. The figure
// is rendered before the file is opened, so a rendering error leaves no
// file behind.
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
	return outfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
