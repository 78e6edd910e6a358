package rank

import "testing"

// TestOf: ranks largest first, ties sharing the mean of their ranks.
func TestRanks(t *testing.T) {
	t.Parallel()
	got := Of([]float64{0.5, 2, -1, 2})
	want := []float64{3, 1.5, 4, 1.5}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("ranks = %v, want %v", got, want)
		}
	}
}
