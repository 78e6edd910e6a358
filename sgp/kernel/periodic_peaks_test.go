package kernel

import (
	"math"
	"testing"
)

// TestPeriodPeaks: the periodogram's peaks come strongest first, the
// first is PeriodFromData's, and a peak that explains less than a tenth
// of the variance is not among them.
func TestPeriodPeaks(t *testing.T) {
	t.Parallel()
	n := 600
	xs, y := make([]float64, n), make([]float64, n)
	for i := range xs {
		xs[i] = 30 * float64(i) / float64(n)
		// Variances 4.5, 2 and 0.045: the last explains under a tenth.
		y[i] = 3*math.Sin(2*math.Pi*xs[i]) + 2*math.Sin(2*math.Pi*xs[i]/0.3) + 0.3*math.Cos(2*math.Pi*xs[i]/2.5)
	}
	x, err := NewVectors(n, 1, xs)
	if err != nil {
		t.Fatal(err)
	}
	peaks := PeriodPeaks(x, y, 5)
	if len(peaks) != 2 || math.Abs(peaks[0]-1) > 0.01 || math.Abs(peaks[1]-0.3) > 0.003 {
		t.Fatalf("PeriodPeaks = %v, want about [1 0.3]", peaks)
	}
	if p, ok := PeriodFromData(x, y); !ok || p != peaks[0] {
		t.Errorf("PeriodFromData = %v, %v; want the first peak %v", p, ok, peaks[0])
	}
	if got := PeriodPeaks(x, y, 1); len(got) != 1 || got[0] != peaks[0] {
		t.Errorf("PeriodPeaks(…, 1) = %v, want [%v]", got, peaks[0])
	}
	flat := make([]float64, n)
	if got := PeriodPeaks(x, flat, 3); got != nil {
		t.Errorf("PeriodPeaks of constant targets = %v, want none", got)
	}
}
