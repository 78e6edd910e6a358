package kernel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestParseSpreadIsParse checks that ParseSpread of SpreadOf(x, y) gives
// every numeric kernel, alone and in a sum or product, the bits of θ that
// Parse gives it from x and y, for inputs of one column (the periodogram's
// period) and of three (one with outliers, which the percentiles of the
// sample decide); that the Spread's strides are those documented; and
// that ParseSpread refuses a kernel of discrete inputs and a Spread
// without columns.
func TestParseSpreadIsParse(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(4, 5))
	for _, d := range []int{1, 3} {
		n := 5000
		data, y := make([]float64, n*d), make([]float64, n)
		for i := range n {
			for c := range d {
				data[i*d+c] = 3 * rng.Float64()
			}
			if d == 3 && i%100 == 0 {
				data[i*d+2] = 1e4 // outliers: the central spread decides ℓ₂
			}
			y[i] = math.Sin(4*data[i*d]) + 0.1*rng.NormFloat64()
		}
		x, err := NewVectors(n, d, data)
		if err != nil {
			t.Fatal(err)
		}
		s := SpreadOf(x, y)
		if len(s.Sample) != d*n || (d == 1) != (len(s.PeriodX) == n/PeriodStride(n)) {
			t.Errorf("d=%d: %d sample values, %d periodogram rows", d, len(s.Sample), len(s.PeriodX))
		}
		for _, spec := range []string{"rbf", "matern12", "matern32", "matern52", "rq", "periodic", "linear", "rbf+linear", "periodic*rbf", "(rbf+const)*linear"} {
			want, err := Parse(spec, x, y)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ParseSpread(spec, s)
			if err != nil {
				t.Fatalf("d=%d %s: %v", d, spec, err)
			}
			if a, b := got.Params(nil), want.Params(nil); !slices.Equal(a, b) {
				t.Errorf("d=%d %s: θ %v, Parse's %v", d, spec, a, b)
			}
		}
		if d == 1 {
			p, ok := PeriodFromData(x, y)
			k, _ := ParseSpread("periodic", s)
			if got := k.(*Periodic).Periods()[0]; !ok || math.Abs(got-2*math.Pi/4) > 0.1 || got != p {
				t.Errorf("period %v, PeriodFromData %v (%v), the data's 2π/4", got, p, ok)
			}
		}
	}
	if SampleStride(1<<15) != 1 || SampleStride(1<<15+1) != 2 || PeriodStride(3999) != 1 || PeriodStride(4000) != 2 {
		t.Errorf("strides %d %d %d %d", SampleStride(1<<15), SampleStride(1<<15+1), PeriodStride(3999), PeriodStride(4000))
	}
	x, _ := NewVectors(2, 1, []float64{0, 1})
	if _, err := ParseSpread("spectrum", SpreadOf(x, nil)); err == nil {
		t.Error("ParseSpread of spectrum: no error")
	}
	if _, err := ParseSpread("rbf", &Spread{}); err == nil {
		t.Error("ParseSpread of an empty Spread: no error")
	}
}
