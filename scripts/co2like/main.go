// Command co2like writes the CO₂-like series of data.CO2Like as CSV
// files, train.csv and test.csv in the directory -out, with a header
// "t,ppm": the synthetic stand-in for statsmodels' weekly Mauna Loa
// record on which docs/defaults.md measures restarts.
//
//	go run ./scripts/co2like -years 40 -per-year 52 -out /tmp/co2
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/cholqr/sgp/sgp/data"
)

func main() {
	years := flag.Int("years", 40, "years of data")
	perYear := flag.Int("per-year", 52, "points a year")
	seed := flag.Uint64("seed", 1, "seed of the noise")
	out := flag.String("out", ".", "output `directory`")
	flag.Parse()
	if *years < 1 || *perYear < 4 {
		fmt.Fprintln(os.Stderr, "co2like: -years must be ≥ 1 and -per-year ≥ 4")
		os.Exit(2)
	}
	train, test := data.CO2Like(*years, *perYear, *seed)
	for name, d := range map[string]*data.Dataset{"train.csv": train, "test.csv": test} {
		if err := write(filepath.Join(*out, name), d); err != nil {
			fmt.Fprintln(os.Stderr, "co2like:", err)
			os.Exit(1)
		}
	}
}

// write writes d to path as CSV with a header, every value exactly.
func write(path string, d *data.Dataset) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "t,ppm")
	for i := range d.Y {
		fmt.Fprintf(w, "%s,%s\n", strconv.FormatFloat(d.X.At(i, 0), 'g', -1, 64), strconv.FormatFloat(d.Y[i], 'g', -1, 64))
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
