// Command bigcsv writes a synthetic regression set of any size as CSV,
// one row at a time (constant memory), for measuring fits across MPI
// ranks (docs/scaling.md): n rows of d inputs uniform on [0, 4) and the
// target y = Σ_t sin(2·x_t)/√d + 0.1·ε, ε standard normal, under the
// header x0,…,x(d−1),y.
//
//	go run ./scripts/bigcsv -n 2000000 -d 8 > /tmp/big.csv
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
)

func main() {
	n := flag.Int("n", 100000, "rows")
	d := flag.Int("d", 8, "inputs")
	seed := flag.Uint64("seed", 1, "seed")
	flag.Parse()
	if *n < 1 || *d < 1 {
		fmt.Fprintln(os.Stderr, "bigcsv: -n and -d must be ≥ 1")
		os.Exit(2)
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	for t := range *d {
		fmt.Fprintf(w, "x%d,", t)
	}
	fmt.Fprintln(w, "y")
	rng := rand.New(rand.NewPCG(*seed, 0xb16))
	row := make([]byte, 0, 32*(*d+1))
	scale := 1 / math.Sqrt(float64(*d))
	for range *n {
		row = row[:0]
		var y float64
		for range *d {
			x := 4 * rng.Float64()
			y += math.Sin(2*x) * scale
			row = strconv.AppendFloat(row, x, 'g', 8, 64)
			row = append(row, ',')
		}
		y += 0.1 * rng.NormFloat64()
		row = strconv.AppendFloat(row, y, 'g', 8, 64)
		row = append(row, '\n')
		if _, err := w.Write(row); err != nil {
			fmt.Fprintln(os.Stderr, "bigcsv:", err)
			os.Exit(1)
		}
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "bigcsv:", err)
		os.Exit(1)
	}
}
