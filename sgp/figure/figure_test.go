package figure

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp"

	"gonum.org/v1/plot"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"
)

// plotModel returns a small model fitted for three epochs on Snelson-like
// data.
func plotModel(t *testing.T) *sgp.Model {
	t.Helper()
	train, _ := data.SnelsonLike(120, 1)
	m := sgp.NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(8).WithMaxEpochs(3)
	if _, err := m.Fit(); err != nil {
		t.Fatalf("Fit: %v", err)
	}
	return m
}

// checkFigure checks that f renders to a PNG of wPx×hPx pixels, to SVG and
// to HTML, and that rendering twice gives identical bytes.
func checkFigure(t *testing.T, f *Figure, wPx, hPx int) {
	t.Helper()
	b := f.PNG()
	if b == nil {
		_, err := f.Encode("png")
		t.Fatalf("PNG returned nil: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("PNG does not decode: %v", err)
	}
	if got := img.Bounds().Size(); got.X != wPx || got.Y != hPx {
		t.Errorf("PNG is %d×%d px, want %d×%d", got.X, got.Y, wPx, hPx)
	}
	if again := f.PNG(); !bytes.Equal(b, again) {
		t.Errorf("two PNG renderings differ (%d and %d bytes)", len(b), len(again))
	}
	s := f.SVG()
	if !strings.Contains(s, "<svg") {
		t.Errorf("SVG output holds no <svg element: %.80q", s)
	}
	if again := f.SVG(); s != again {
		t.Errorf("two SVG renderings differ (%d and %d bytes)", len(s), len(again))
	}
	h := f.HTML()
	if !strings.HasPrefix(h, `<img src="data:image/png;base64,`) {
		t.Errorf("HTML is not an inline PNG: %.80q", h)
	}
	if !strings.Contains(h, `width="`+strconv.Itoa(wPx)+`"`) {
		t.Errorf("HTML lacks width=%d: %.120q", wPx, h)
	}
}

func TestFit1D(t *testing.T) {
	t.Parallel()
	m := plotModel(t)
	f, err := Fit1D(m, "")
	if err != nil {
		t.Fatal(err)
	}
	checkFigure(t, f, 6*DPI, 4*DPI)
	if got, want := f.Plot().Title.Text, "Sparse GP fit (m = 8)"; got != want {
		t.Errorf("default title %q, want %q", got, want)
	}
	// The x range is the data range padded by 10% on each side.
	xs := m.Inputs().(*kernel.Vectors).RawData()
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range xs {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	p := f.Plot()
	if pad := 0.1 * (hi - lo); math.Abs(p.X.Min-(lo-pad)) > 1e-12 || math.Abs(p.X.Max-(hi+pad)) > 1e-12 {
		t.Errorf("x range [%g, %g], want [%g, %g]", p.X.Min, p.X.Max, lo-pad, hi+pad)
	}
	if !strings.Contains(f.String(), "Sparse GP fit") {
		t.Errorf("String() = %q", f.String())
	}
}

func TestPlotFit1DErrors(t *testing.T) {
	t.Parallel()
	x2, err := kernel.NewVectors(4, 2, []float64{0, 0, 1, 0, 0, 1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	y := []float64{0, 1, 2, 3}
	x1, _ := kernel.NewVectors(4, 1, []float64{0, 1, 2, 3})
	strs, _ := kernel.NewStrings([]string{"a", "b", "c", "d"})
	for _, tc := range []struct {
		name string
		m    *sgp.Model
		want string
	}{
		{"nil", nil, "nil model"},
		{"2-D", sgp.NewModel(x2, y, kernel.NewRBFFromData(x2, y)).WithM(2), "dimension 2"},
		{"strings", sgp.NewModel(strs, y, kernel.NewRBF(1, []float64{1})).WithM(2), "*kernel.Vectors"},
		{"bad m", sgp.NewModel(x1, y, kernel.NewRBFFromData(x1, y)).WithM(9), "m=9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Fit1D(tc.m, "")
			if err == nil || f != nil {
				t.Fatalf("PlotFit1D = %v, %v; want an error", f, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}

func TestCostRanking(t *testing.T) {
	t.Parallel()
	m := plotModel(t)
	ind, err := m.Inducing()
	if err != nil {
		t.Fatal(err)
	}
	cr, err := m.CostRanking(ind[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(cr.Candidates) == 0 {
		t.Fatal("no candidates")
	}
	f := CostRanking(cr)
	checkFigure(t, f, 10*DPI, 4*DPI)
	if !strings.Contains(f.title, "removing point "+strconv.Itoa(ind[0])+" ") {
		t.Errorf("title %q does not name the removed point %d", f.title, ind[0])
	}
	if n := len(f.Panels()); n != 2 {
		t.Errorf("%d panels, want 2", n)
	}
	for _, cr := range []*sgp.CostRanking{nil, {Removed: 3}} {
		f := CostRanking(cr)
		checkFigure(t, f, 10*DPI, 4*DPI)
		if !strings.Contains(f.Plot().Title.Text, "(no data)") {
			t.Errorf("empty ranking: panel title %q lacks (no data)", f.Plot().Title.Text)
		}
	}
}

func TestTrace(t *testing.T) {
	t.Parallel()
	m := plotModel(t)
	tr := m.Trace()
	if len(tr) == 0 {
		t.Fatal("empty trace")
	}
	f := Trace(tr, "")
	checkFigure(t, f, 6*DPI, 6*DPI)
	if n := len(f.Panels()); n != 2 {
		t.Errorf("%d panels, want 2", n)
	}
	f = Trace(nil, "nothing yet")
	checkFigure(t, f, 6*DPI, 6*DPI)
	if !strings.Contains(f.Plot().Title.Text, "(no data)") {
		t.Errorf("empty trace: panel title %q lacks (no data)", f.Plot().Title.Text)
	}
}

func TestCurves(t *testing.T) {
	t.Parallel()
	series := []Series{
		{Name: "CholQR-sgp.VAR", X: []float64{10, 20, 50, 100}, Y: []float64{0.2, 0.1, 0.05, 0.03}},
		{Name: "Random", X: []float64{10, 20, 50, 100}, Y: []float64{0.4, 0.2, math.NaN(), 0.05}},
		{Name: "", X: []float64{0, 10}, Y: []float64{1, 1}}, // x = 0 is skipped on a log axis
	}
	for _, logX := range []bool{false, true} {
		f := Curves("SMSE against m", "m", "SMSE", logX, series)
		checkFigure(t, f, 6*DPI, 4*DPI)
	}
	for _, s := range [][]Series{nil, {{Name: "empty"}}} {
		f := Curves("empty", "x", "y", true, s)
		checkFigure(t, f, 6*DPI, 4*DPI)
		if got := f.Plot().Title.Text; got != "empty (no data)" {
			t.Errorf("empty series: title %q, want %q", got, "empty (no data)")
		}
	}
	if !panics(func() { Curves("", "", "", false, []Series{{X: []float64{1}}}) }) {
		t.Error("PlotCurves with len(X) ≠ len(Y) did not panic")
	}
}

func TestFigureWithSize(t *testing.T) {
	t.Parallel()
	f := Curves("t", "x", "y", false, []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{3, 4}}})
	g := f.WithSize(3, 2.5)
	checkFigure(t, g, 3*DPI, 240)
	if w, h := f.Size(); w != 6 || h != 4 {
		t.Errorf("WithSize changed the original: %g×%g", w, h)
	}
	if g.Plot() != f.Plot() {
		t.Error("WithSize copy does not share the plot")
	}
	// 1000×1000 in would be 96000² pixels at 96 DPI, 34 GiB to render.
	for _, wh := range [][2]float64{{0, 1}, {1, -1}, {math.NaN(), 1}, {1, math.Inf(1)}, {1000, 1000}, {1e6, 1}, {86, 86}} {
		if !panics(func() { f.WithSize(wh[0], wh[1]) }) {
			t.Errorf("WithSize(%v, %v) did not panic", wh[0], wh[1])
		}
	}
	if w, h := f.WithSize(80, 80).Size(); w != 80 || h != 80 {
		t.Errorf("WithSize(80, 80) gave %g×%g", w, h)
	}
}

func TestFigureSaveAndEncode(t *testing.T) {
	t.Parallel()
	f := Curves("t", "x", "y", true, []Series{{Name: "a", X: []float64{1, 10}, Y: []float64{3, 4}}})
	dir := t.TempDir()
	for _, ext := range []string{"png", "svg", "pdf"} {
		path := filepath.Join(dir, "fig."+ext)
		if err := f.Save(path); err != nil {
			t.Fatalf("Save(%s): %v", path, err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) == 0 {
			t.Errorf("%s is empty", path)
		}
		if ext == "png" && !bytes.Equal(b, f.PNG()) {
			t.Errorf("saved PNG differs from PNG()")
		}
	}
	if err := f.Save(filepath.Join(dir, "fig.bmp")); err == nil {
		t.Error("Save to .bmp: no error")
	}
	if _, err := os.Stat(filepath.Join(dir, "fig.bmp")); err == nil {
		t.Error("Save to .bmp created a file")
	}
	if _, err := f.Encode("gif"); err == nil {
		t.Error(`Encode("gif"): no error`)
	}

	// gonum/plot panics on a log axis whose range includes 0; the figure
	// reports it instead of panicking.
	bad := Curves("bad", "x", "y", false, []Series{{Name: "a", X: []float64{0, 1}, Y: []float64{1, 2}}})
	bad.Plot().X.Scale = plot.LogScale{}
	if b := bad.PNG(); b != nil {
		t.Errorf("PNG of an unrenderable figure: %d bytes, want nil", len(b))
	}
	if s := bad.SVG(); s != "" {
		t.Errorf("SVG of an unrenderable figure: %d bytes, want \"\"", len(s))
	}
	if h := bad.HTML(); !strings.HasPrefix(h, "<pre>") {
		t.Errorf("HTML of an unrenderable figure: %.80q", h)
	}
	if err := bad.Save(filepath.Join(dir, "bad.png")); err == nil {
		t.Error("Save of an unrenderable figure: no error")
	}
}

func TestNiceTicks(t *testing.T) {
	t.Parallel()
	labels := func(tk niceTicks, lo, hi float64) string {
		var s []string
		for _, x := range tk.Ticks(lo, hi) {
			if x.Label != "" {
				s = append(s, x.Label)
			}
		}
		return strings.Join(s, " ")
	}
	for _, tc := range []struct {
		tk     niceTicks
		lo, hi float64
		want   string
	}{
		{niceTicks{}, -0.6, 6.6, "0 1 2 3 4 5 6"},
		{niceTicks{}, -2.9, 2.7, "-2 -1 0 1 2"},
		{niceTicks{}, 0, 0.012, "0.000 0.002 0.004 0.006 0.008 0.010 0.012"},
		{niceTicks{}, 180, 260, "180 200 220 240 260"},
		{niceTicks{}, -1, 1, "-1.0 -0.5 0.0 0.5 1.0"},
		{niceTicks{integer: true}, 1, 3, "1 2 3"},
	} {
		if got := labels(tc.tk, tc.lo, tc.hi); got != tc.want {
			t.Errorf("Ticks(%g, %g) labels %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
}

// panics reports whether fn panics.
func panics(fn func()) (panicked bool) {
	defer func() { panicked = recover() != nil }()
	fn()
	return false
}

// TestParity: the predicted-against-measured figure renders with and
// without intervals, leaves out non-finite pairs, and panics on a length
// mismatch.
func TestParity(t *testing.T) {
	t.Parallel()
	m := []float64{1, 2, 3, 4, math.NaN()}
	p := []float64{1.1, 1.9, 3.2, 3.8, 2}
	v := []float64{0.01, 0.02, 0.01, 0.05, 0.01}
	for _, f := range []*Figure{Parity("parity", m, p, v), Parity("", m, p, nil)} {
		checkFigure(t, f, 5*DPI, 5*DPI)
	}
	if f := Parity("", nil, nil, nil); !strings.Contains(f.Plot().Title.Text, "(no data)") {
		t.Errorf("empty parity plot: title %q", f.Plot().Title.Text)
	}
	if !panics(func() { Parity("", m, p[:2], nil) }) {
		t.Error("length mismatch did not panic")
	}
}
