package cli

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/cholqr/sgp/sgp"
	"github.com/cholqr/sgp/sgp/kernel"
)

// posteriorFlags are the flags of predict, and of fit with --predictions,
// that add to the predictions from the model's joint posterior (sgp's
// PredictNoisyCov and Sample): an interval, posterior draws and the
// covariance of the rows. Every value is in the target's units, as the
// mean and variances are: the models predict the targets as given.
type posteriorFlags struct {
	interval    float64 // the interval's probability; 0: none
	intervalSet bool
	samples     int
	seed        uint64
	noisy       bool   // draw noisy observations instead of the latent function
	covPath     string // the covariance's file; "": none
}

// register adds the flags to fs, the draws' seed as seedName (predict's
// --seed; fit's own --seed is its fit's, so fit takes --sample-seed).
func (f *posteriorFlags) register(fs *flag.FlagSet, seedName string) {
	fs.Float64Var(&f.interval, "interval", 0, "add columns lower,upper: the central `probability` interval of a noisy observation, mean ± z·√variance with z the normal quantile (0.95: ±1.96 standard deviations); 0 < probability < 1")
	fs.IntVar(&f.samples, "samples", 0, "add `N` columns sample_1 … sample_N: joint draws from the posterior of the latent function at the rows (noisy observations with --noisy-samples), jointly at up to 2000 rows and, for a sparse model above that, with the part the inducing points do not explain drawn independently per row (docs/posterior.md); an exact model draws at up to 2000 rows")
	fs.Uint64Var(&f.seed, seedName, 1, "seed of the --samples draws: the same seed, model and rows give the same draws")
	fs.BoolVar(&f.noisy, "noisy-samples", false, "--samples draws noisy observations (latent draws plus noise) instead of the latent function")
	fs.StringVar(&f.covPath, "cov", "", "write the s×s predictive covariance of noisy observations at the s rows as CSV to `file` (no header; row and column i are row i, its diagonal the variance column); it takes 8s² bytes of memory (800 MB at 10⁴ rows) and is refused beyond half of the machine's available memory")
}

// check returns an error for a bad value of the flags; cmd names the
// command in it.
func (f *posteriorFlags) check(cmd string, fs *flag.FlagSet) error {
	f.intervalSet = isSet(fs, "interval")
	switch {
	case f.intervalSet && !(f.interval > 0 && f.interval < 1):
		return usageErrorf("%s: --interval %v must be a probability strictly between 0 and 1 (0.95 for a 95%% interval)", cmd, f.interval)
	case f.samples < 0:
		return usageErrorf("%s: --samples %d must be ≥ 0 (the number of posterior draws)", cmd, f.samples)
	case f.noisy && f.samples == 0:
		return usageErrorf("%s: --noisy-samples needs --samples N", cmd)
	}
	return nil
}

// columns reports whether the flags add columns to the predictions.
func (f *posteriorFlags) columns() bool { return f.intervalSet || f.samples > 0 }

// maxPosteriorShare is the share of the machine's memory (sgp.MachineMemory)
// that the covariance or the draws may take.
const maxPosteriorShare = 0.5

// checkSize returns an error, before any work at the rows, when the
// covariance of s rows or their draws would not fit in memory, with the
// figures.
func (f *posteriorFlags) checkSize(cmd string, s int) error {
	avail := maxPosteriorShare * sgp.MachineMemory()
	if f.covPath != "" {
		if need := 8 * float64(s) * float64(s); need > avail {
			return fmt.Errorf("%s: --cov of %d rows is a %d×%d matrix, %.3g GB of memory (and about %.2g GB of CSV), more than the %.3g GB (half of the memory available) it may take: predict at fewer rows", cmd, s, s, s, need/1e9, 2.5*need/1e9, avail/1e9)
		}
	}
	if f.samples > 0 {
		need := 8 * float64(s) * float64(f.samples)
		if s <= sgp.MaxJointSample {
			need += 8 * float64(s) * float64(s)
		}
		if need > avail {
			return fmt.Errorf("%s: --samples %d at %d rows take %.3g GB of memory, more than the %.3g GB (half of the memory available) they may take: ask for fewer draws or rows", cmd, f.samples, s, need/1e9, avail/1e9)
		}
	}
	return nil
}

// checkExact returns an error, before any work, for --samples at more
// rows than an exact model draws at (it draws jointly only, at up to
// sgp.MaxJointSample rows).
func (f *posteriorFlags) checkExact(cmd string, s int) error {
	if f.samples > 0 && s > sgp.MaxJointSample {
		return usageErrorf("%s: --samples: an exact model draws jointly, at up to %d rows, and there are %d; draw at fewer rows at a time, or use a sparse model (fit --m), which draws at any number", cmd, sgp.MaxJointSample, s)
	}
	return nil
}

// add computes what the flags ask for at the inputs x of the predictions
// pred, from the model r.
func (f *posteriorFlags) add(pred *predictions, r sgp.Regressor, x kernel.Inputs) error {
	if f.intervalSet {
		z := distuv.UnitNormal.Quantile(0.5 + f.interval/2)
		pred.level = f.interval
		pred.lower, pred.upper = make([]float64, len(pred.mean)), make([]float64, len(pred.mean))
		for i, m := range pred.mean {
			sd := math.Sqrt(pred.noisy[i])
			pred.lower[i], pred.upper[i] = m-z*sd, m+z*sd
		}
	}
	if f.samples > 0 {
		rng := rand.New(rand.NewPCG(f.seed, sampleStream))
		var err error
		if pred.samples, err = r.SampleWith(x, f.samples, rng, sgp.SampleOptions{Noisy: f.noisy}); err != nil {
			return err
		}
	}
	if f.covPath != "" {
		var err error
		if _, pred.cov, err = r.PredictNoisyCov(x); err != nil {
			return err
		}
	}
	return nil
}

// sampleStream is the second word of the seed of the --samples draws.
const sampleStream = 0x73616d706c6573

// writeExtra writes the header or row i's cells of the columns the
// posterior flags add, each after a comma.
func (p *predictions) writeExtra(bw *bufio.Writer, i int) {
	num := func(v float64) {
		bw.WriteByte(',')
		bw.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	}
	if i < 0 {
		if p.lower != nil {
			bw.WriteString(",lower,upper")
		}
		if p.samples != nil {
			_, n := p.samples.Dims()
			for j := 1; j <= n; j++ {
				bw.WriteString(",sample_" + strconv.Itoa(j))
			}
		}
		return
	}
	if p.lower != nil {
		num(p.lower[i])
		num(p.upper[i])
	}
	if p.samples != nil {
		for _, v := range p.samples.RawRowView(i) {
			num(v)
		}
	}
}

// writeCov writes the covariance as CSV, one line per row, no header.
func (p *predictions) writeCov(w io.Writer) error {
	bw := bufio.NewWriter(w)
	s := p.cov.SymmetricDim()
	for i := 0; i < s; i++ {
		for j := 0; j < s; j++ {
			if j > 0 {
				bw.WriteByte(',')
			}
			bw.WriteString(strconv.FormatFloat(p.cov.At(i, j), 'g', -1, 64))
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// covOutput is the output of --cov FILE.
func (p *predictions) covOutput(path string) output {
	return output{path, func(w io.Writer) error { return p.writeCov(w) }}
}

// jsonFields adds to the JSON object of predict the interval and draws.
func (p *predictions) jsonFields(obj map[string]any) {
	if p.lower != nil {
		obj["interval"], obj["lower"], obj["upper"] = p.level, p.lower, p.upper
	}
	if p.samples != nil {
		s, _ := p.samples.Dims()
		rows := make([][]float64, s)
		for i := range rows {
			rows[i] = p.samples.RawRowView(i)
		}
		obj["samples"] = rows
	}
}

// finish adds what the flags ask for to the predictions pred of a fit
// (nil without --test) at the test inputs x, from its model r, and
// returns the output of --cov for the report's files.
func (f *posteriorFlags) finish(rep *fitReport, pred *predictions, r sgp.Regressor, x kernel.Inputs) (output, error) {
	if pred == nil {
		return output{}, nil
	}
	if err := f.add(pred, r, x); err != nil {
		return output{}, err
	}
	rep.covPath = f.covPath
	return pred.covOutput(f.covPath), nil
}
