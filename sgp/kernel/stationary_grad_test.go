package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestStationaryGradBlock checks the gradient blocks of the Matérn and RQ
// kernels at n = 600 (two full tiles of rows and a partial one) and
// m = 66 inducing points (groups of four and points left over): the same
// bits on one core and on two, where the points split into different
// groups; the per-pair sums of AddGrad to 1e-12 of the terms' scale; and
// no n×m block allocated (ψ is formed tile by tile), measured as the bytes
// allocated by one call.
func TestStationaryGradBlock(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 23))
	const n, d, m = 600, 3, 66
	data := make([]float64, n*d)
	for i := range data {
		data[i] = rng.NormFloat64()
	}
	x, _ := NewVectors(n, d, data)
	cols := make([]int, m)
	for c := range cols {
		cols[c] = rng.IntN(n)
	}
	ls := []float64{0.7, 1.1, 2}
	for _, k := range []BlockEvaluator{NewMatern(0.5, 1.4, ls), NewMatern(1.5, 1.4, ls), NewMatern(2.5, 1.4, ls), NewRQ(1.4, ls, 0.6)} {
		t.Run(specOf(k), func(t *testing.T) {
			kv := make([]float64, m*n)
			k.CrossT(kv, x, x, cols)
			w := make([]float64, m*n)
			for i := range w {
				w[i] = rng.NormFloat64()
			}
			np := k.NumParams()
			grad := func(procs int) []float64 {
				prev := runtime.GOMAXPROCS(procs)
				defer runtime.GOMAXPROCS(prev)
				g := make([]float64, np)
				k.AddGradBlockT(g, w, kv, x, x, cols)
				return g
			}
			one, two := grad(1), grad(2)
			for p := range one {
				if math.Float64bits(one[p]) != math.Float64bits(two[p]) {
					t.Fatalf("parameter %d: %v on one core, %v on two", p, one[p], two[p])
				}
			}
			// AddGrad takes w row-major (n×m), one pair at a time.
			wr := make([]float64, n*m)
			for c := range m {
				for i := range n {
					wr[i*m+c] = w[c*n+i]
				}
			}
			want := make([]float64, np)
			k.AddGrad(want, wr, x, 0, n, x, cols)
			abs := make([]float64, len(wr))
			for i, v := range wr {
				abs[i] = math.Abs(v)
			}
			scale := make([]float64, np)
			k.AddGrad(scale, abs, x, 0, n, x, cols)
			for p := range want {
				if tol := 1e-12 * math.Max(math.Abs(scale[p]), math.Abs(want[p])); math.Abs(one[p]-want[p]) > tol {
					t.Errorf("parameter %d: block %.17g, per pair %.17g", p, one[p], want[p])
				}
			}
			var before, after runtime.MemStats
			g := make([]float64, np)
			runtime.ReadMemStats(&before)
			k.AddGradBlockT(g, w, kv, x, x, cols)
			runtime.ReadMemStats(&after)
			if bytes := after.TotalAlloc - before.TotalAlloc; bytes >= uint64(n*m*8/2) {
				t.Errorf("AddGradBlockT allocated %d bytes; an n×m block is %d", bytes, n*m*8)
			}
		})
	}
}

// TestAuxGradBlock checks the auxiliary path of the Matérn and RQ
// gradient blocks (CrossAuxT, AddGradAuxT) at d = 1, 8 and 32 with ARD
// lengthscales spread over 10⁻³…10³ (each dimension's inputs on its
// lengthscale's scale, so that the kernel is neither 0 nor constant),
// n = 600 rows (partial tiles) and m = 66 inducing points (groups of four
// and points left over): CrossAuxT's values are CrossT's bit for bit;
// AddGradAuxT agrees with AddGradBlockT, which forms ψ again from the
// inputs, to 1e-12 of the terms' scale, and with central finite
// differences of Σ w∘K to 1e-6 of that scale; and it gives the same bits
// on one core and on two.
func TestAuxGradBlock(t *testing.T) {
	const n, m = 600, 66
	for _, d := range []int{1, 8, 32} {
		rng := rand.New(rand.NewPCG(uint64(d), 41))
		lsSets := [][]float64{}
		if d == 1 {
			lsSets = [][]float64{{1e-3}, {1.7}, {1e3}}
		} else {
			ls := make([]float64, d)
			for t := range ls {
				ls[t] = math.Pow(10, -3+6*float64(t)/float64(d-1))
			}
			rng.Shuffle(d, func(i, j int) { ls[i], ls[j] = ls[j], ls[i] })
			lsSets = [][]float64{ls}
		}
		for _, ls := range lsSets {
			data := make([]float64, n*d)
			for i := range n {
				for t := range d {
					data[i*d+t] = ls[t] * rng.NormFloat64() * 1.5 / math.Sqrt(float64(d))
				}
			}
			x, _ := NewVectors(n, d, data)
			cols := make([]int, m)
			for c := range cols {
				cols[c] = rng.IntN(n)
			}
			cols[1] = cols[0] // a repeated point: r = 0 off the diagonal
			w := make([]float64, m*n)
			for i := range w {
				w[i] = rng.NormFloat64()
			}
			for _, k := range []AuxBlockEvaluator{NewMatern(0.5, 1.4, ls), NewMatern(1.5, 1.4, ls), NewMatern(2.5, 1.4, ls), NewRQ(1.4, ls, 0.6), NewRQ(0.3, ls, 25)} {
				t.Run(fmt.Sprintf("%s,d=%d,ls0=%g", specOf(k), d, ls[0]), func(t *testing.T) {
					checkAuxGrad(t, k, x, cols, w)
				})
			}
		}
	}
}

// checkAuxGrad is TestAuxGradBlock's checks for one kernel.
func checkAuxGrad(t *testing.T, k AuxBlockEvaluator, x *Vectors, cols []int, w []float64) {
	n, m, np := x.Len(), len(cols), k.NumParams()
	kv, kvAux := make([]float64, n*m), make([]float64, n*m)
	aux := make([]float64, k.NumAux()*n*m)
	k.CrossT(kv, x, x, cols)
	k.CrossAuxT(kvAux, aux, x, x, cols)
	for i := range kv {
		if math.Float64bits(kv[i]) != math.Float64bits(kvAux[i]) {
			t.Fatalf("entry %d: CrossAuxT %v, CrossT %v", i, kvAux[i], kv[i])
		}
	}
	grad := func(procs int) []float64 {
		prev := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(prev)
		g := make([]float64, np)
		k.AddGradAuxT(g, append([]float64(nil), w...), kv, aux, x, x, cols)
		return g
	}
	one, two := grad(1), grad(2)
	for p := range one {
		if math.Float64bits(one[p]) != math.Float64bits(two[p]) {
			t.Fatalf("parameter %d: %v on one core, %v on two", p, one[p], two[p])
		}
	}
	old := make([]float64, np)
	k.AddGradBlockT(old, append([]float64(nil), w...), kv, x, x, cols)
	// The scale of each sum: the same sums with |w|.
	abs := make([]float64, len(w))
	for i, v := range w {
		abs[i] = math.Abs(v)
	}
	scale := make([]float64, np)
	k.AddGradBlockT(scale, abs, kv, x, x, cols)
	// Central differences of F(θ) = Σ w∘K(θ).
	theta := k.Params(nil)
	defer k.SetParams(theta)
	f := func(th []float64) float64 {
		k.SetParams(th)
		k.CrossT(kv, x, x, cols)
		var s float64
		for i, v := range kv {
			s += w[i] * v
		}
		return s
	}
	const h = 1e-5
	for p := range np {
		sc := math.Max(math.Abs(scale[p]), 1e-300)
		if math.Abs(one[p]-old[p]) > 1e-12*sc {
			t.Errorf("parameter %d: AddGradAuxT %.17g, AddGradBlockT %.17g (scale %.3g)", p, one[p], old[p], sc)
		}
		th := append([]float64(nil), theta...)
		th[p] = theta[p] + h
		fp := f(th)
		th[p] = theta[p] - h
		fm := f(th)
		if fd := (fp - fm) / (2 * h); math.Abs(one[p]-fd) > 1e-6*sc {
			t.Errorf("parameter %d: AddGradAuxT %.12g, finite differences %.12g (scale %.3g)", p, one[p], fd, sc)
		}
	}
}

// TestAuxInputGrad checks InputGradAuxT, which reads the ψ of K_mn from
// CrossAuxT's auxiliary values, against InputGradT, which forms it again,
// and against central finite differences in the inducing inputs, at
// d = 1, 8 and 32 with ARD lengthscales spread over 10⁻³…10³ (inputs on
// their lengthscales' scale), n = 300 and m = 21 inducing inputs, two of
// them equal (r = 0 between them, Matérn-1/2's subgradient).
func TestAuxInputGrad(t *testing.T) {
	const n, m = 300, 21
	for _, d := range []int{1, 8, 32} {
		rng := rand.New(rand.NewPCG(uint64(d), 43))
		ls := []float64{0.02}
		if d > 1 {
			ls = make([]float64, d)
			for t := range ls {
				ls[t] = math.Pow(10, -3+6*float64(t)/float64(d-1))
			}
			rng.Shuffle(d, func(i, j int) { ls[i], ls[j] = ls[j], ls[i] })
		}
		data := make([]float64, n*d)
		for i := range n {
			for t := range d {
				data[i*d+t] = ls[t] * rng.NormFloat64() * 1.5 / math.Sqrt(float64(d))
			}
		}
		x, _ := NewVectors(n, d, data)
		zd := make([]float64, m*d)
		for c := range m {
			copy(zd[c*d:(c+1)*d], x.Row(rng.IntN(n)))
			for t := range d {
				zd[c*d+t] += 0.1 * ls[t] * rng.NormFloat64()
			}
		}
		copy(zd[d:2*d], zd[:d])
		z, _ := NewVectors(m, d, zd)
		wx, wz := make([]float64, m*n), make([]float64, m*m)
		for i := range wx {
			wx[i] = rng.NormFloat64()
		}
		for i := range wz {
			wz[i] = rng.NormFloat64()
		}
		seq := seqCols(m)
		for _, k := range []AuxInputGradient{NewMatern(0.5, 1.4, ls), NewMatern(1.5, 1.4, ls), NewMatern(2.5, 1.4, ls), NewRQ(1.4, ls, 0.6), NewRQ(0.3, ls, 25)} {
			t.Run(fmt.Sprintf("%s,d=%d", specOf(k), d), func(t *testing.T) {
				kx, kz := make([]float64, m*n), make([]float64, m*m)
				aux := make([]float64, k.NumAux()*m*n)
				k.CrossAuxT(kx, aux, x, z, seq)
				k.CrossT(kz, z, z, seq)
				got, want := make([]float64, m*d), make([]float64, m*d)
				k.InputGradAuxT(got, wx, kx, aux, wz, kz, x, z)
				k.InputGradT(want, wx, kx, wz, kz, x, z)
				var scale float64
				for _, v := range want {
					scale = math.Max(scale, math.Abs(v))
				}
				for i := range got {
					if math.Abs(got[i]-want[i]) > 1e-11*scale {
						t.Fatalf("∂/∂z[%d]: InputGradAuxT %.17g, InputGradT %.17g (largest %.3g)", i, got[i], want[i], scale)
					}
				}
				// F(z) = Σ wx∘K(x, z) + Σ wz∘K(z, z), in a few coordinates
				// of the inducing inputs other than the repeated pair.
				f := func() float64 {
					k.CrossT(kx, x, z, seq)
					k.CrossT(kz, z, z, seq)
					var s float64
					for i, v := range kx {
						s += wx[i] * v
					}
					for i, v := range kz {
						s += wz[i] * v
					}
					return s
				}
				for range 6 {
					q := 2*d + rng.IntN((m-2)*d)
					h := 1e-6 * ls[q%d]
					z0 := zd[q]
					zd[q] = z0 + h
					fp := f()
					zd[q] = z0 - h
					fm := f()
					zd[q] = z0
					if fd := (fp - fm) / (2 * h); math.Abs(got[q]-fd) > 1e-5*scale {
						t.Errorf("∂/∂z[%d]: InputGradAuxT %.12g, finite differences %.12g (largest %.3g)", q, got[q], fd, scale)
					}
				}
			})
		}
	}
}
