package sgp

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cholqr/sgp/sgp/data"
	"github.com/cholqr/sgp/sgp/kernel"
)

// TestChooseDefault checks the default fit's rule: the exact GP at small
// n, the sparse default beyond the point where its estimated time or
// memory exceeds the sparse default's (memory, at n = 1200 with m = 100,
// for small kernels; time first for a kernel of many hyperparameters
// under CholQR), never beyond a time budget the exact GP would overrun,
// and the reason given either way.
func TestChooseDefault(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		n, params int
		hybrid    bool
		budget    time.Duration
		exact     bool
	}{
		{5, 1, false, 0, true}, {20, 1, false, 0, true}, {200, 1, false, 0, true}, {902, 1, false, 0, true},
		{1200, 1, false, 0, true}, {1201, 1, false, 0, false}, {2201, 1, false, 0, false},
		{800, 10, true, 0, true}, {1200, 10, true, 0, true}, {1300, 10, true, 0, false},
		{600, 40, false, 0, false}, {600, 40, true, 0, true},
		{800, 10, true, 20 * time.Second, true}, {800, 10, true, time.Second, false}, {200, 1, true, time.Millisecond, false},
		{MaxExactN + 1, 1, false, 0, false},
	} {
		ch := ChooseDefault(c.n, c.params, c.hybrid, c.budget)
		if ch.Exact != c.exact {
			t.Errorf("n = %d, %d parameters, hybrid %v, budget %v: exact %v, want %v (%s)", c.n, c.params, c.hybrid, c.budget, ch.Exact, c.exact, ch.Reason)
		}
		if ch.M != DefaultM(c.n) || ch.Reason == "" || !strings.Contains(ch.Reason, "exact GP") {
			t.Errorf("n = %d: M %d, reason %q", c.n, ch.M, ch.Reason)
		}
		if ch.Exact && (ch.ExactSeconds > max(ch.SparseSeconds, exactAnywaySec) || ch.ExactBytes > ch.SparseBytes) {
			t.Errorf("n = %d: exact chosen at %.3g s, %.3g B against %.3g s, %.3g B", c.n, ch.ExactSeconds, ch.ExactBytes, ch.SparseSeconds, ch.SparseBytes)
		}
	}
	// With m = 100 (n ≥ 200) the threshold is monotone in n: once sparse,
	// sparse for every larger n. (Below, m = n/2 and both estimates grow
	// as n³.)
	for _, params := range []int{1, 10, 40} {
		for _, hybrid := range []bool{false, true} {
			sparse := false
			for n := 200; n <= 4000; n += 7 {
				ex := ChooseDefault(n, params, hybrid, 0).Exact
				if sparse && ex {
					t.Fatalf("%d parameters, hybrid %v: exact again at n = %d after a sparse default below it", params, hybrid, n)
				}
				sparse = sparse || !ex
			}
		}
	}
}

// TestModelSaysExactIsCheaper: a built model's display says when the
// exact GP is estimated to cost no more than it (n = 300 with the default
// m = 100), as text and HTML, and not where the sparse model is cheaper
// (m = 10).
func TestModelSaysExactIsCheaper(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(300, 1)
	for _, c := range []struct {
		m    int
		want bool
	}{{0, true}, {10, false}} {
		md := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithSeed(1)
		if c.m > 0 {
			md.WithM(c.m)
		}
		if err := md.Build(context.Background()); err != nil {
			t.Fatal(err)
		}
		text, html := md.String(), md.HTML()
		const say = "estimated to cost no more than this sparse model"
		if strings.Contains(text, say) != c.want || strings.Contains(html, say) != c.want || strings.Contains(text, "sgp.NewExact") != c.want {
			t.Errorf("m = %d: want the exact GP named: %v\n%s", md.m, c.want, text)
		}
	}
}
