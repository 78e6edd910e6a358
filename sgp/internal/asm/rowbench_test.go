package asm

import (
	"fmt"
	"testing"
)

// BenchmarkRows measures the kernels' rows of values from squared scaled
// distances, as the blocks call them (256 values): RBF's exponential, the
// Matérn values, and the rational quadratic's in one pass (RQRow) and in
// two (Log1pRow then ExpRow). Metric: ns/value.
//
//	go test ./sgp/internal/asm -run XXX -bench Rows -cpu 1
func BenchmarkRows(b *testing.B) {
	s := make([]float64, 256)
	for i := range s {
		s[i] = float64(i%97) * 0.07
	}
	dst, tmp := make([]float64, 256), make([]float64, 256)
	for _, r := range []struct {
		name string
		f    func()
	}{
		{"exp", func() { ExpRow(dst, s, 1.3) }},
		{"matern52", func() { MaternRow(dst, s, 1.3, 5, 1, 1.0/3) }},
		{"rq-log1p+exp", func() { Log1pRow(tmp, s, 0.5/0.7, 1.4); ExpRow(dst, tmp, 1.3) }},
		{"rq-fused", func() { RQRow(dst, s, 1.3, 0.5/0.7, 0.7) }},
	} {
		b.Run(fmt.Sprint(r.name), func(b *testing.B) {
			for range b.N {
				r.f()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(s)), "ns/value")
		})
	}
}
