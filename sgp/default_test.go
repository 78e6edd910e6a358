package sgp

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cholqr/sgp/sgp/data"
	"github.com/cholqr/sgp/sgp/kernel"
)

// TestChooseDefault checks the default fit's rule: the exact GP wherever
// its estimated time is within ExactTimeBound and its memory within
// ExactMemoryShare of the machine's — kin8nm's 2000 rows with an ARD
// kernel on 8 inputs, under the hybrid, included — the sparse default
// beyond, never beyond a time budget the exact GP would overrun, and the
// reason given either way.
func TestChooseDefault(t *testing.T) {
	t.Parallel()
	const gib = 1 << 30
	for _, c := range []struct {
		n, params int
		hybrid    bool
		budget    time.Duration
		machine   float64
		exact     bool
		why       string
	}{
		{5, 1, false, 0, 8 * gib, true, "affordable"}, {200, 1, false, 0, 8 * gib, true, "affordable"},
		{902, 1, false, 0, 8 * gib, true, "affordable"}, {1201, 1, false, 0, 8 * gib, true, "affordable"},
		{2000, 9, true, 0, 8 * gib, true, "affordable"}, {2000, 9, false, 0, 8 * gib, true, "affordable"},
		{3000, 9, true, 0, 8 * gib, true, "affordable"}, {4100, 9, true, 0, 8 * gib, true, "affordable"},
		{4300, 9, true, 0, 8 * gib, false, "longer than 60 s"}, {5300, 2, false, 0, 8 * gib, true, "affordable"},
		{5500, 2, false, 0, 8 * gib, false, "longer than 60 s"}, {600, 40, false, 0, 8 * gib, true, "affordable"},
		// Memory: 2000 points need 48 MiB, more than half of 60 MiB.
		{2000, 9, true, 0, 60 << 20, false, "more than 50% of the memory"}, {2000, 9, true, 0, 100 << 20, true, "affordable"},
		{800, 10, true, 20 * time.Second, 8 * gib, true, "affordable"}, {800, 10, true, time.Second, 8 * gib, false, "time budget of 1s"},
		{200, 1, true, time.Millisecond, 8 * gib, false, "time budget"},
		// Estimated at 7.7 s: within a budget of 20 s, but not with the
		// margin of 3 its evaluation count needs.
		{2000, 6, true, 20 * time.Second, 8 * gib, false, "margin of 3×"}, {2000, 6, true, 25 * time.Second, 8 * gib, true, "affordable"},
		{MaxExactN + 1, 1, false, 0, 1e15, false, "limited to n ≤ 20000"},
	} {
		ch := chooseExact(c.n, c.params, DefaultM(c.n), c.hybrid, c.budget, c.machine, false)
		if ch.Exact != c.exact || !strings.Contains(ch.Reason, c.why) {
			t.Errorf("n = %d, %d parameters, hybrid %v, budget %v, %.3g B: exact %v, want %v (%s)", c.n, c.params, c.hybrid, c.budget, c.machine, ch.Exact, c.exact, ch.Reason)
		}
		if ch.M != DefaultM(c.n) || ch.MachineBytes != c.machine {
			t.Errorf("n = %d: M %d, machine %v", c.n, ch.M, ch.MachineBytes)
		}
		if ch.Exact && (ch.ExactSeconds > max(ch.SparseSeconds, ExactTimeBound.Seconds()) || ch.ExactBytes > ExactMemoryShare*c.machine) {
			t.Errorf("n = %d: exact chosen at %.3g s, %.3g B", c.n, ch.ExactSeconds, ch.ExactBytes)
		}
	}
	// The threshold is monotone in n: once sparse, sparse for every
	// larger n.
	for _, params := range []int{1, 10, 40} {
		for _, hybrid := range []bool{false, true} {
			for _, machine := range []float64{200 << 20, 8 * gib} {
				for _, golapack := range []bool{false, true} {
					sparse := false
					for n := 10; n <= 8000; n += 37 {
						ex := chooseExact(n, params, DefaultM(n), hybrid, 0, machine, golapack).Exact
						if sparse && ex {
							t.Fatalf("%d parameters, hybrid %v, %.3g B, Go LAPACK %v: exact again at n = %d after a sparse default below it", params, hybrid, machine, golapack, n)
						}
						sparse = sparse || !ex
					}
				}
			}
		}
	}
	// With the Go LAPACK the estimate is three times as long: kin8nm's
	// 2000 rows stay exact, 3000 do not.
	for _, c := range []struct {
		n     int
		exact bool
	}{{2000, true}, {3000, false}} {
		ch := chooseExact(c.n, 9, DefaultM(c.n), true, 0, 8*gib, true)
		if ch.Exact != c.exact || !ch.GoLAPACK || !strings.Contains(ch.Reason, "with the Go LAPACK") {
			t.Errorf("Go LAPACK, n = %d: exact %v, want %v (%s)", c.n, ch.Exact, c.exact, ch.Reason)
		}
	}
	if m := MachineMemory(); !(m > 0) || math.IsInf(m, 0) {
		t.Errorf("MachineMemory %v", m)
	}
}

// TestParseMeminfo: the machine's memory is /proc/meminfo's MemAvailable,
// else its MemTotal, else 2 GiB.
func TestParseMeminfo(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text string
		want float64
	}{
		{"MemTotal:       16384000 kB\nMemFree:         1000 kB\nMemAvailable:    8192000 kB\n", 8192000 * 1024},
		{"MemTotal:       16384000 kB\nMemFree:         1000 kB\n", 16384000 * 1024},
		{"MemAvailable: lots\n", fallbackMachineBytes},
		{"", fallbackMachineBytes},
	} {
		if got := parseMeminfo(c.text); got != c.want {
			t.Errorf("%q: %v, want %v", c.text, got, c.want)
		}
	}
}

// TestModelSaysExactIsAffordable: a built model's display says when the
// exact GP is affordable at its n (n = 300, whatever m), as text and
// HTML, and not where it is not (n = 6000, estimated above a minute).
func TestModelSaysExactIsAffordable(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		n, m int
		want bool
	}{{300, 0, true}, {300, 10, true}, {6000, 10, false}} {
		train, _ := data.SnelsonLike(c.n, 1)
		md := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithSeed(1)
		if c.m > 0 {
			md.WithM(c.m)
		}
		if err := md.Build(context.Background()); err != nil {
			t.Fatal(err)
		}
		text, html := md.String(), md.HTML()
		const say = "affordable at this n"
		if strings.Contains(text, say) != c.want || strings.Contains(html, say) != c.want || strings.Contains(text, "sgp.NewExact") != c.want {
			t.Errorf("n = %d, m = %d: want the exact GP named: %v\n%s", c.n, md.m, c.want, text)
		}
	}
}
