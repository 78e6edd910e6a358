package kernel_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/internal/kerneltest"
	"github.com/cholqr/sgp/sgp/internal/naive"

	"github.com/cholqr/sgp/sgp/kernel"
)

// kindCase is a kernel of vector inputs with its independent formula.
type kindCase struct {
	name   string
	k      kernel.Kernel
	oracle naive.Func
	dim    int
}

// kindCases returns the Matérn, RQ, linear, periodic and constant kernels,
// and sums and products of them, each with naive's formula at the same
// hyperparameters.
func kindCases() []kindCase {
	ls1, ls2 := []float64{0.7}, []float64{0.8, 1.9}
	return []kindCase{
		{"matern12", kernel.NewMatern(0.5, 1.3, ls2), naive.MaternFunc(0.5, 1.3, ls2), 2},
		{"matern32", kernel.NewMatern(1.5, 0.7, ls2), naive.MaternFunc(1.5, 0.7, ls2), 2},
		{"matern52", kernel.NewMatern(2.5, 2.1, ls2), naive.MaternFunc(2.5, 2.1, ls2), 2},
		{"matern52-1d", kernel.NewMatern(2.5, 0.9, ls1), naive.MaternFunc(2.5, 0.9, ls1), 1},
		{"rq", kernel.NewRQ(1.2, ls2, 0.6), naive.RQFunc(1.2, ls2, 0.6), 2},
		{"rq-large-alpha", kernel.NewRQ(0.8, ls1, 40), naive.RQFunc(0.8, ls1, 40), 1},
		{"linear", kernel.NewLinear([]float64{0.5, 1.7}), naive.LinearFunc([]float64{0.5, 1.7}), 2},
		{"periodic", kernel.NewPeriodic(1.1, []float64{0.9, 1.4}, []float64{1.3, 2.2}), naive.PeriodicFunc(1.1, []float64{0.9, 1.4}, []float64{1.3, 2.2}), 2},
		{"periodic-1d", kernel.NewPeriodic(0.6, []float64{0.5}, []float64{0.8}), naive.PeriodicFunc(0.6, []float64{0.5}, []float64{0.8}), 1},
		{"const", kernel.NewConst(0.4), naive.ConstFunc(0.4), 2},
		{"periodic*rbf", kernel.NewProduct(kernel.NewPeriodic(1.1, ls1, []float64{0.9}), kernel.NewRBF(0.8, []float64{2.5})),
			naive.ProductFunc(naive.PeriodicFunc(1.1, ls1, []float64{0.9}), naive.RBFFunc(0.8, []float64{2.5})), 1},
		{"rbf+linear", kernel.NewSum(kernel.NewRBF(1.2, ls2), kernel.NewLinear([]float64{0.3, 0.2})),
			naive.SumFunc(naive.RBFFunc(1.2, ls2), naive.LinearFunc([]float64{0.3, 0.2})), 2},
		{"matern52+const", kernel.NewSum(kernel.NewMatern(2.5, 1.2, ls2), kernel.NewConst(0.7)),
			naive.SumFunc(naive.MaternFunc(2.5, 1.2, ls2), naive.ConstFunc(0.7)), 2},
		{"(rbf+linear)*matern32", kernel.NewProduct(kernel.NewSum(kernel.NewRBF(1.2, ls2), kernel.NewLinear([]float64{0.3, 0.2})), kernel.NewMatern(1.5, 0.9, ls2)),
			naive.ProductFunc(naive.SumFunc(naive.RBFFunc(1.2, ls2), naive.LinearFunc([]float64{0.3, 0.2})), naive.MaternFunc(1.5, 0.9, ls2)), 2},
		{"linear*linear*const", kernel.NewProduct(kernel.NewLinear([]float64{0.3, 0.2}), kernel.NewLinear([]float64{1.1, 0.6}), kernel.NewConst(2)),
			naive.ProductFunc(naive.LinearFunc([]float64{0.3, 0.2}), naive.LinearFunc([]float64{1.1, 0.6}), naive.ConstFunc(2)), 2},
	}
}

// TestKindsConformance runs the conformance suite on every kernel beyond
// RBF and on sums and products of them: hyperparameter and input
// gradients against finite differences, symmetry, positive
// semi-definiteness, the block paths against the columns, concurrency.
func TestKindsConformance(t *testing.T) {
	t.Parallel()
	for _, tc := range kindCases() {
		t.Run(tc.name, func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(3, uint64(len(tc.name))))
			kerneltest.Test(t, tc.k, mustVectors(t, randomRows(rnd, 40, tc.dim)))
		})
	}
}

// TestKindsAgainstOracle checks Column, Diag and CrossT of every kind beyond RBF
// against naive's formulas, to 1e-13 of the kernel's scale, at inputs near
// each other, far apart and coinciding.
func TestKindsAgainstOracle(t *testing.T) {
	t.Parallel()
	for _, tc := range kindCases() {
		t.Run(tc.name, func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(9, uint64(len(tc.name))))
			rows := randomRows(rnd, 30, tc.dim)
			for i := range rows[20:] {
				for t0 := range rows[20+i] {
					rows[20+i][t0] *= 5 // far apart
				}
			}
			copy(rows[29], rows[3]) // coinciding
			x := mustVectors(t, rows)
			n := len(rows)
			want := naive.Gram(rows, tc.oracle)
			scale := 0.0
			for i := range n {
				scale = math.Max(scale, math.Abs(want.At(i, i)))
			}
			col, diag := make([]float64, n), make([]float64, n)
			tc.k.Diag(diag, x, 0, n)
			cols := []int{0, 3, 17, 29}
			block := make([]float64, n*len(cols))
			if bk, ok := tc.k.(kernel.BlockEvaluator); ok {
				bk.CrossT(block, x, x, cols)
			} else {
				block = nil
			}
			for c, j := range cols {
				tc.k.Column(col, x, 0, n, x, j)
				for i := range n {
					w := want.At(i, j)
					if math.Abs(col[i]-w) > 1e-13*scale {
						t.Fatalf("Column: κ(x%d, x%d) = %.17g, oracle %.17g", i, j, col[i], w)
					}
					if block != nil && math.Abs(block[c*n+i]-w) > 1e-13*scale {
						t.Fatalf("CrossT: κ(x%d, x%d) = %.17g, oracle %.17g", i, j, block[c*n+i], w)
					}
				}
			}
			for i := range n {
				if math.Abs(diag[i]-want.At(i, i)) > 1e-13*scale {
					t.Fatalf("Diag: κ(x%d, x%d) = %.17g, oracle %.17g", i, i, diag[i], want.At(i, i))
				}
			}
		})
	}
}

// TestMatern12InputGradAtCusp: where an inducing input coincides with a
// training input (the continuous refinement starts from CholQR's
// selection, a subset of the inputs), Matérn-1/2 has no derivative; its
// input gradient takes the subgradient 0 for that pair, so it is finite
// and equals the gradient with that pair's weight removed.
func TestMatern12InputGradAtCusp(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(2, 5))
	x := mustVectors(t, randomRows(rnd, 12, 2))
	z := x.Rows([]int{4, 9})
	k := kernel.NewMatern(0.5, 1.3, []float64{0.8, 1.2})
	n, m := 12, 2
	kx, kz := make([]float64, m*n), make([]float64, m*m)
	k.CrossT(kx, x, z, []int{0, 1})
	k.CrossT(kz, z, z, []int{0, 1})
	wx, wz := make([]float64, m*n), make([]float64, m*m)
	for i := range wx {
		wx[i] = rnd.NormFloat64()
	}
	for i := range wz {
		wz[i] = rnd.NormFloat64()
	}
	gz := make([]float64, m*2)
	k.InputGradT(gz, wx, kx, wz, kz, x, z)
	// The same with the coinciding pairs' weights set to 0.
	wx0 := append([]float64(nil), wx...)
	wx0[0*n+4], wx0[1*n+9] = 0, 0
	g0 := make([]float64, m*2)
	k.InputGradT(g0, wx0, kx, wz, kz, x, z)
	for p := range gz {
		if math.IsNaN(gz[p]) || math.IsInf(gz[p], 0) || math.Abs(gz[p]-g0[p]) > 1e-14*math.Max(1, math.Abs(g0[p])) {
			t.Fatalf("∂/∂z[%d] = %v at the cusp, %v without the coinciding pairs", p, gz[p], g0[p])
		}
	}
}

// TestKindsDisplay checks the one-line displays, in the format of the
// other kernels: name(hyperparameter value, …), products joined by " * "
// and sums by " + ".
func TestKindsDisplay(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		k    kernel.Kernel
		want string
	}{
		{kernel.NewMatern(2.5, 1.2, []float64{0.8, 2.1}), "matern52(variance 1.2, lengthscales [0.8 2.1])"},
		{kernel.NewMatern(0.5, 1, []float64{3}), "matern12(variance 1, lengthscales [3])"},
		{kernel.NewRQ(2, []float64{0.5}, 0.25), "rq(variance 2, lengthscales [0.5], alpha 0.25)"},
		{kernel.NewLinear([]float64{0.5, 1.5}), "linear(variances [0.5 1.5])"},
		{kernel.NewPeriodic(1, []float64{0.7}, []float64{12}), "periodic(variance 1, lengthscales [0.7], periods [12])"},
		{kernel.NewConst(0.3), "const(variance 0.3)"},
		{kernel.NewSum(kernel.NewMatern(2.5, 1.2, []float64{0.8}), kernel.NewLinear([]float64{0.1})), "matern52(variance 1.2, lengthscales [0.8]) + linear(variances [0.1])"},
		{kernel.NewProduct(kernel.NewPeriodic(1, []float64{0.7}, []float64{12}), kernel.NewRBF(2, []float64{40})), "periodic(variance 1, lengthscales [0.7], periods [12]) * rbf(variance 2, lengthscales [40])"},
		{kernel.NewProduct(kernel.NewSum(kernel.NewConst(1), kernel.NewLinear([]float64{2})), kernel.NewConst(3)), "(const(variance 1) + linear(variances [2])) * const(variance 3)"},
	} {
		if got := fmt.Sprint(tc.k); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}

// TestParseKinds: the specifications of the kernels beyond RBF and their sums
// and products give the kernels they name, with starting hyperparameters
// from the data: a sum's terms share var(y), a product's first factor
// has it.
func TestParseKinds(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(4, 4))
	x := mustVectors(t, randomRows(rnd, 50, 2))
	y := make([]float64, 50)
	for i := range y {
		y[i] = 3 * rnd.NormFloat64()
	}
	vy := variance(y)
	for _, tc := range []struct {
		spec, text string // text: the kernel's display with its numbers dropped
		variances  []float64
	}{
		{"matern12", "matern12", []float64{vy}},
		{"Matern32", "matern32", []float64{vy}},
		{" matern52 ", "matern52", []float64{vy}},
		{"rq", "rq", []float64{vy}},
		{"periodic", "periodic", []float64{vy}},
		{"const", "const", []float64{vy}},
		{"rbf+linear", "rbf + linear", []float64{vy / 2}},
		{"matern52 + const", "matern52 + const", []float64{vy / 2, vy / 2}},
		{"periodic*rbf", "periodic * rbf", []float64{vy, 1}},
		{"(rbf+linear)*const", "(rbf + linear) * const", []float64{vy / 2, 1}},
		{"rbf*periodic+const", "rbf * periodic + const", []float64{vy / 2, 1, vy / 2}},
	} {
		k, err := kernel.Parse(tc.spec, x, y)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.spec, err)
			continue
		}
		if got := shape(kernel.Text(k)); got != tc.text {
			t.Errorf("Parse(%q) = %s, want the structure %s", tc.spec, kernel.Text(k), tc.text)
		}
		names, theta := k.ParamNames(), k.Params(nil)
		var got []float64
		for p, name := range names {
			if name == "variance" || strings.HasSuffix(name, ".variance") {
				got = append(got, math.Exp(theta[p]))
			}
		}
		if len(got) != len(tc.variances) {
			t.Errorf("Parse(%q): variances %v, want %v", tc.spec, got, tc.variances)
			continue
		}
		for i := range got {
			if math.Abs(got[i]-tc.variances[i]) > 1e-12*tc.variances[i] {
				t.Errorf("Parse(%q): variances %v, want %v", tc.spec, got, tc.variances)
			}
		}
		name, _, err := kernel.SplitSpec(tc.spec)
		if err != nil || !kernel.NumericSpec(name) {
			t.Errorf("SplitSpec(%q) = %q, %v: not a numeric specification", tc.spec, name, err)
		}
	}
	for _, tc := range []struct{ spec, want string }{
		{"matern", "unknown kernel"},
		{"rbf+", "a kernel name is missing"},
		{"rbf+wl", "only the numeric kernels combine"},
		{"(rbf+linear", "closing parenthesis"},
		{"rbf)+const", "unexpected"},
		{"rbf+gauss", "unknown kernel"},
		{"matern52:2", "takes no parameter"},
		{strings.Repeat("(", 12) + "rbf" + strings.Repeat(")", 12), "nested"},
	} {
		_, err := kernel.Parse(tc.spec, x, y)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "matern52") {
			t.Errorf("Parse(%q): error %v, want it to say %q and list the kernels", tc.spec, err, tc.want)
		}
	}
}

// shape drops the parenthesised arguments of a kernel's display, keeping
// its structure: "rbf(variance 1) + linear(…)" → "rbf + linear".
func shape(text string) string {
	var b strings.Builder
	depth := 0
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '(' && i > 0 && text[i-1] >= 'a' && text[i-1] <= 'z' || c == '(' && i > 0 && text[i-1] >= '0' && text[i-1] <= '9':
			depth++
		case c == '(' && depth > 0:
			depth++
		case c == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// variance returns the population variance of v.
func variance(v []float64) float64 {
	var m, s float64
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	for _, x := range v {
		s += (x - m) * (x - m)
	}
	return s / float64(len(v))
}

// TestPeriodFromData: the periodogram finds the period of a noisy sine
// beside a linear trend, sampled at uneven inputs, and finds none in
// noise.
func TestPeriodFromData(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(6, 1))
	const n, period = 400, 3.7
	rows, y, noise := make([][]float64, n), make([]float64, n), make([]float64, n)
	for i := range rows {
		rows[i] = []float64{40 * rnd.Float64()}
		y[i] = math.Sin(2*math.Pi*rows[i][0]/period) + 0.2*rows[i][0] + 0.3*rnd.NormFloat64() // a trend beside it
		noise[i] = rnd.NormFloat64()
	}
	x := mustVectors(t, rows)
	p, ok := kernel.PeriodFromData(x, y)
	if !ok || math.Abs(p-period) > 0.02*period {
		t.Errorf("PeriodFromData = %v, %v; want %v", p, ok, period)
	}
	if k := kernel.NewPeriodicFromData(x, y); math.Abs(k.Periods()[0]-p) > 1e-12 {
		t.Errorf("NewPeriodicFromData's period %v, periodogram's %v", k.Periods()[0], p)
	}
	if p, ok := kernel.PeriodFromData(x, noise); ok {
		t.Errorf("PeriodFromData of noise = %v, want none", p)
	}
}
