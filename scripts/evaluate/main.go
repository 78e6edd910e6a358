// Command evaluate runs sgprepl fit over an evaluation set of data sets and
// inducing-point selectors and writes the results as a markdown table and
// a CSV file (docs/evaluation.md describes the sets and how to read the
// table). It is a measurement, not a test: run it by hand before and after
// changing a default, and compare the tables (--baseline).
//
//	go run ./scripts/evaluate [flags]       # or scripts/evaluate.sh
//
// The sets are prepared once into a cache folder outside the repository
// ($SGP_EVAL_CACHE, default /tmp/sgp-eval): the shared tuning sets are read
// from $SGP_DATA (default ../shared/data), public data sets are taken from
// Debian packages (downloaded with apt-get download and unpacked into the
// cache when they are not installed; R's data sets need Rscript, which is
// installed as root when missing), synthetic ones are generated with a
// fixed seed. Each set's train/test split is drawn once with a fixed seed
// and kept in the cache, so every run fits the same rows.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// config holds the command-line settings of a run.
type config struct {
	cache    string        // prepared sets and unpacked packages
	data     string        // the shared tuning sets ($SGP_DATA)
	out      string        // output path prefix: out.md, out.csv, out-logs/
	bin      string        // sgprepl binary; built from the module when empty
	budget   time.Duration // --time-budget of every fit
	seeds    []uint64      // --seed of the fits
	m        int           // inducing points of the explicit-selector rows (0: per set)
	exactMax int           // exact GP rows only for n ≤ exactMax
	sets     []string      // set names or groups to run (empty: all)
	sels     []string      // selectors to run (empty: all that apply)
	quick    bool          // the quick subset of sets
	prepare  bool          // prepare the sets and stop
	baseline string        // CSV of an earlier run to compare with
	kernel   string        // --kernel of the numeric sets (empty: the CLI's default)
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "evaluate:", err)
		os.Exit(1)
	}
}

func run() error {
	var c config
	cacheDef := os.Getenv("SGP_EVAL_CACHE")
	if cacheDef == "" {
		cacheDef = filepath.Join(os.TempDir(), "sgp-eval")
	}
	dataDef := os.Getenv("SGP_DATA")
	if dataDef == "" {
		dataDef = filepath.Join("..", "shared", "data")
	}
	flag.StringVar(&c.cache, "cache", cacheDef, "folder for the prepared sets and unpacked packages ($SGP_EVAL_CACHE)")
	flag.StringVar(&c.data, "data", dataDef, "folder of the shared tuning sets ($SGP_DATA)")
	flag.StringVar(&c.out, "out", "", "output path prefix: writes PREFIX.md, PREFIX.csv and the fits' logs in PREFIX-logs/ (default CACHE/results/evaluation-DATE)")
	flag.StringVar(&c.bin, "bin", "", "sgprepl binary to run (default: built from this module)")
	flag.DurationVar(&c.budget, "budget", 20*time.Second, "--time-budget of every fit")
	seeds := flag.String("seeds", "1", "comma-separated --seed values; each set and selector is fitted once per seed")
	flag.IntVar(&c.m, "m", 0, "inducing points of the rows with an explicit selector (0: min(128, n/4) per set)")
	flag.IntVar(&c.exactMax, "exact-max", 3000, "fit the exact GP only on sets with at most this many training rows")
	sets := flag.String("sets", "", "comma-separated set names or groups (tuning, checking, synthetic) to run (default: all)")
	sels := flag.String("selectors", "", "comma-separated selectors to run: default, hybrid, cholqr, sgpr-continuous, random, exact (default: all that apply)")
	flag.BoolVar(&c.quick, "quick", false, "run the quick subset: small sets only, 5 s a fit unless --budget is given (about 2 min)")
	flag.BoolVar(&c.prepare, "prepare", false, "prepare the sets in the cache and stop")
	flag.StringVar(&c.baseline, "baseline", "", "CSV `file` of an earlier run: the table gets the change in F and SMSE against it")
	flag.StringVar(&c.kernel, "kernel", "", "--kernel of every fit on a numeric set, e.g. matern52 or rbf+linear (default: the CLI's default; molecule sets keep their graph kernel)")
	list := flag.Bool("list", false, "list the sets and stop")
	flag.Parse()
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (flags only; see -help)", flag.Arg(0))
	}
	for _, s := range strings.Split(*seeds, ",") {
		v, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return fmt.Errorf("--seeds %q: %q is not a non-negative integer", *seeds, s)
		}
		c.seeds = append(c.seeds, v)
	}
	if c.quick && !isSet("budget") {
		c.budget = 5 * time.Second
	}
	c.sets = splitList(*sets)
	c.sels = splitList(*sels)
	for _, s := range c.sels {
		if !slices.Contains(allSelectors, s) {
			return fmt.Errorf("--selectors: unknown selector %q; choose from %s", s, strings.Join(allSelectors, ", "))
		}
	}
	if c.budget <= 0 {
		return fmt.Errorf("--budget %v must be positive: without a budget a fit can run for hours", c.budget)
	}

	chosen, err := chooseSets(catalogue(), c)
	if err != nil {
		return err
	}
	if *list {
		for _, s := range chosen {
			fmt.Printf("%-18s %-8s %s\n", s.name, s.group, s.source)
		}
		return nil
	}
	if err := os.MkdirAll(c.cache, 0o755); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	env := newPrepEnv(c)
	var ready []*prepared
	var skipped []string
	for _, s := range chosen {
		p, err := env.prepare(s)
		if err != nil {
			fmt.Fprintf(os.Stderr, "evaluate: set %s not run: %v\n", s.name, err)
			skipped = append(skipped, fmt.Sprintf("%s (%v)", s.name, err))
			continue
		}
		fmt.Fprintf(os.Stderr, "evaluate: set %-16s %-8s n=%d test=%d d=%d\n", s.name, s.group, p.meta.NTrain, p.meta.NTest, p.meta.D)
		ready = append(ready, p)
	}
	if c.prepare {
		return nil
	}
	if len(ready) == 0 {
		return errors.New("no set could be prepared; see the messages above")
	}

	if c.bin == "" {
		bin, err := buildCLI(c.cache)
		if err != nil {
			return err
		}
		c.bin = bin
	}
	if c.out == "" {
		c.out = filepath.Join(c.cache, "results", "evaluation-"+time.Now().UTC().Format("20060102-150405"))
	}
	logs := c.out + "-logs"
	if err := os.MkdirAll(logs, 0o755); err != nil {
		return err
	}
	var base map[string]row
	if c.baseline != "" {
		if base, err = readBaseline(c.baseline); err != nil {
			return err
		}
	}

	start, loadStart := time.Now(), loadAverage()
	var rows []row
	for _, p := range ready {
		for _, sel := range selectorsFor(p, c) {
			for _, seed := range c.seeds {
				if ctx.Err() != nil {
					break
				}
				r := fitOne(ctx, c, p, sel, seed, logs)
				fmt.Fprintf(os.Stderr, "evaluate: %-16s %-16s seed %d: %s\n", p.set.name, sel, seed, r.summary())
				rows = append(rows, r)
			}
		}
	}
	run := runInfo{
		Command:  "go run ./scripts/evaluate " + strings.Join(os.Args[1:], " "),
		Date:     time.Now().UTC().Format("2006-01-02 15:04 UTC"),
		Machine:  machine() + ", load average " + loadStart + " at the start, " + loadAverage() + " at the end",
		CLI:      cliVersion(c.bin),
		Budget:   c.budget,
		Seeds:    *seeds,
		Elapsed:  time.Since(start),
		Skipped:  skipped,
		Stopped:  ctx.Err() != nil,
		Baseline: c.baseline,
	}
	if err := writeCSV(c.out+".csv", rows); err != nil {
		return err
	}
	md := markdown(run, ready, rows, base)
	if err := os.WriteFile(c.out+".md", []byte(md), 0o644); err != nil {
		return err
	}
	fmt.Print(md)
	fmt.Fprintf(os.Stderr, "evaluate: wrote %s.md, %s.csv and the fits' output in %s/ (%.0f s)\n", c.out, c.out, logs, run.Elapsed.Seconds())
	if run.Stopped {
		return errors.New("interrupted: the tables hold the fits that finished")
	}
	return nil
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// buildCLI builds sgprepl from the module that holds this program into
// the cache, so that every fit runs the same binary without go run's
// compile time.
func buildCLI(cache string) (string, error) {
	bin := filepath.Join(cache, "bin", "sgprepl")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/sgprepl")
	cmd.Dir = moduleRoot()
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building sgprepl in %s: %w (run from the module, or pass --bin)", cmd.Dir, err)
	}
	return bin, nil
}

// moduleRoot returns the folder of go.mod above the working directory,
// or the working directory.
func moduleRoot() string {
	wd, _ := os.Getwd()
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return wd
		}
	}
}

// machine describes the machine for the table's header.
func machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int
		if _, err := fmt.Sscanf(string(b), "MemTotal: %d kB", &kb); err == nil {
			mem = fmt.Sprintf(", %d GiB", (kb+1<<19)>>20)
		}
	}
	return fmt.Sprintf("%d cores, %s%s, %s/%s", runtime.NumCPU(), model, mem, runtime.GOOS, runtime.GOARCH)
}

// loadAverage is the one-minute load average: other work on the machine
// slows the fits, and a time budget then buys less.
func loadAverage() string {
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			return f[0]
		}
	}
	return "unknown"
}

// isSet reports whether the flag name was given on the command line.
func isSet(name string) bool {
	found := false
	flag.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// cliVersion is the first line of `sgprepl version`.
func cliVersion(bin string) string {
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(out)), " ")
}
