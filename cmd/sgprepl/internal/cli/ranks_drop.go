package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cholqr/sgp/sgp/comm"
	"github.com/cholqr/sgp/sgp/data"
	"github.com/cholqr/sgp/sgp/kernel"
)

// spreadKept deals the rows --drop-missing keeps out again in whole
// blocks (comm.Span's layout over the K rows kept, which the fit's
// ordered sums need): each rank has read its span of the file's rows
// and dropped those with a missing value, so rank q holds kept rows
// [C_q, C_q + k_q) of K in file order (kept[q] = k_q), and rank r must
// hold [L_r, H_r) = comm.Span(K, …, r, P). Each rank broadcasts, in rank
// order, the rows it holds outside its own new span (with their targets):
// the rows that cross a boundary, about as many as the rows dropped
// before it, each sent once to every rank, which keeps those of its span.
// No rank holds more than its old and new rows at once.
func spreadKept(world *comm.Comm, rows *rankRows, kept []int) *rankRows {
	p, r := world.Size(), world.Rank()
	var x *kernel.Vectors
	var y []float64
	dim, names := 0, []string(nil)
	if rows.data != nil && rows.data.X != nil {
		x, y, dim, names = rows.data.X, rows.data.Y, rows.data.X.Dim(), rows.data.X.Names()
	}
	dims := world.AllGatherInts([]int{dim})
	dim = slices.Max(dims)
	// The header's names, from the first rank that kept a row: a rank
	// that kept none has none to give the rows it receives.
	var head []byte
	if rows.data != nil {
		head = []byte(strings.Join(append([]string{rows.data.Name, rows.data.TargetName, fmt.Sprint(names != nil)}, names...), "\x00"))
	}
	meta := strings.Split(string(world.BcastBytes(head, slices.IndexFunc(dims, func(d int) bool { return d > 0 }))), "\x00")
	name, target := meta[0], meta[1]
	if names = nil; meta[2] == "true" {
		names = meta[3:]
	}
	total := 0
	from := make([]int, p+1) // from[q] = C_q
	for q, k := range kept {
		from[q+1] = from[q] + k
		total += k
	}
	lo, hi := comm.Span(total, comm.BlockRows, r, p)
	out := make([]float64, 0, (hi-lo)*(dim+1))
	for q := range p {
		a, b := from[q], from[q+1]
		qlo, qhi := comm.Span(total, comm.BlockRows, q, p)
		// The rows of q outside [qlo, qhi): a prefix [a, min(b, qlo)) and
		// a suffix [max(a, qhi), b).
		pre, suf := [2]int{a, max(a, min(b, qlo))}, [2]int{min(b, max(a, qhi)), b}
		var msg []float64
		if sent := pre[1] - pre[0] + suf[1] - suf[0]; sent > 0 {
			msg = make([]float64, 0, sent*(dim+1))
			if q == r {
				for _, s := range [][2]int{pre, suf} {
					for i := s[0]; i < s[1]; i++ {
						msg = append(append(msg, x.Row(i-a)...), y[i-a])
					}
				}
			} else {
				msg = msg[:sent*(dim+1)]
			}
			world.BcastFloat64s(msg, q)
		}
		// This rank's rows of q's, in order: the prefix, q's own span
		// (held by q alone, so only q == r reads it), the suffix.
		at := 0
		for k, s := range [][2]int{pre, {pre[1], suf[0]}, suf} {
			for i := s[0]; i < s[1]; i++ {
				if i >= lo && i < hi {
					switch {
					case k == 1 && q == r:
						out = append(append(out, x.Row(i-a)...), y[i-a])
					case k != 1:
						out = append(out, msg[at:at+dim+1]...)
					}
				}
				if k != 1 {
					at += dim + 1
				}
			}
		}
	}
	ds := &data.Dataset{Name: name, TargetName: target, Y: []float64{}}
	n := hi - lo
	if n > 0 {
		xs := make([]float64, 0, n*dim)
		ds.Y = make([]float64, n)
		for i := range n {
			xs = append(xs, out[i*(dim+1):i*(dim+1)+dim]...)
			ds.Y[i] = out[i*(dim+1)+dim]
		}
		v, err := kernel.NewVectors(n, dim, xs)
		if err != nil {
			panic(err) // the rows read were finite
		}
		if names != nil {
			v, _ = v.WithNames(names)
		}
		ds.X = v
	}
	return &rankRows{data: ds, lo: lo, hi: hi, n: total, kept: total, dropped: rows.n - total}
}
