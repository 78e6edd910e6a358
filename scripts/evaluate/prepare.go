package main

import (
	"bufio"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// prepVersion changes whenever a set's rows would change; a cached set of
// another version is prepared again.
const prepVersion = 1

// meta describes a prepared set; it is saved as meta.json beside the
// set's train.csv and test.csv.
type meta struct {
	Version  int      `json:"version"`
	Name     string   `json:"name"`
	Group    string   `json:"group"`
	Source   string   `json:"source"`
	NTrain   int      `json:"n_train"`
	NTest    int      `json:"n_test"`
	D        int      `json:"d"` // input columns
	Columns  []string `json:"columns"`
	YMean    float64  `json:"y_mean"` // of the training targets
	YSD      float64  `json:"y_sd"`
	Packages []string `json:"packages,omitempty"` // Debian packages read, with versions
	// Synthetic sets: the noise variance and the test SMSE of the true
	// function, the SMSE a perfect fit would reach.
	NoiseVar   float64  `json:"noise_var,omitempty"`
	OracleSMSE *float64 `json:"oracle_smse,omitempty"`
	SplitSeed  uint64   `json:"split_seed"`
	Prepared   string   `json:"prepared"`
}

// prepared is a set ready to fit.
type prepared struct {
	set         *set
	dir         string
	train, test string
	meta        *meta
}

// prepEnv prepares sets into the cache.
type prepEnv struct {
	cache string
	data  string
}

func newPrepEnv(c config) *prepEnv { return &prepEnv{cache: c.cache, data: c.data} }

// prepare returns the set's cached files, making them first if the cache
// has none of this version.
func (e *prepEnv) prepare(s *set) (*prepared, error) {
	dir := filepath.Join(e.cache, "sets", s.name)
	p := &prepared{set: s, dir: dir, train: filepath.Join(dir, "train.csv"), test: filepath.Join(dir, "test.csv")}
	if b, err := os.ReadFile(filepath.Join(dir, "meta.json")); err == nil {
		var m meta
		if json.Unmarshal(b, &m) == nil && m.Version == prepVersion && exists(p.train) && exists(p.test) {
			m.Group, m.Source = s.group, s.source // the catalogue's words, which may be newer than the rows
			p.meta = &m
			return p, nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+s.name+"-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	m, err := s.make(e, tmp)
	if err != nil {
		return nil, err
	}
	m.Version, m.Name, m.Group, m.Source = prepVersion, s.name, s.group, s.source
	m.SplitSeed = splitSeed(s.name)
	m.Prepared = time.Now().UTC().Format(time.RFC3339)
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tmp, "meta.json"), append(b, '\n'), 0o644); err != nil {
		return nil, err
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return nil, err
	}
	p.meta = m
	return p, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// splitSeed is the seed of a set's train/test split and of its synthetic
// rows: a hash of its name, so that adding a set changes no other.
func splitSeed(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// rngFor returns the random stream of a set's split or generator.
func rngFor(name string) *rand.Rand {
	s := splitSeed(name)
	return rand.New(rand.NewPCG(s, s^0x5851f42d4c957f2d))
}

// split draws nTest test rows (after keeping a random sample of size
// sample, if sample > 0) with the set's seed; the rest are training rows.
// Rows keep their order in both parts.
func split(name string, rows [][]float64, sample, nTest int) (train, test [][]float64, err error) {
	rng := rngFor(name)
	idx := rng.Perm(len(rows))
	if sample > 0 && sample < len(rows) {
		idx = idx[:sample]
	}
	if nTest <= 0 || nTest >= len(idx) {
		return nil, nil, fmt.Errorf("%s: %d test rows of %d", name, nTest, len(idx))
	}
	isTest := make(map[int]bool, nTest)
	for _, i := range idx[:nTest] {
		isTest[i] = true
	}
	inSample := make(map[int]bool, len(idx))
	for _, i := range idx {
		inSample[i] = true
	}
	for i, r := range rows {
		switch {
		case isTest[i]:
			test = append(test, r)
		case inSample[i]:
			train = append(train, r)
		}
	}
	return train, test, nil
}

// fifth is the test share of the sets without a fixed split: one row in 5.
func fifth(n int) int { return max(1, n/5) }

// writeNumeric writes train and test rows (target last) with a header
// row and returns their metadata.
func writeNumeric(dir string, header []string, train, test [][]float64) (*meta, error) {
	for _, f := range []struct {
		name string
		rows [][]float64
	}{{"train.csv", train}, {"test.csv", test}} {
		if err := writeRows(filepath.Join(dir, f.name), header, f.rows); err != nil {
			return nil, err
		}
	}
	y := make([]float64, len(train))
	for i, r := range train {
		y[i] = r[len(r)-1]
	}
	mu, sd := meanSD(y)
	return &meta{NTrain: len(train), NTest: len(test), D: len(header) - 1, Columns: header, YMean: mu, YSD: sd}, nil
}

func writeRows(path string, header []string, rows [][]float64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, strings.Join(header, ","))
	for _, r := range rows {
		for j, v := range r {
			if j > 0 {
				w.WriteByte(',')
			}
			w.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// meanSD returns the mean and the sample standard deviation of y.
func meanSD(y []float64) (mu, sd float64) {
	for _, v := range y {
		mu += v
	}
	mu /= float64(len(y))
	var ss float64
	for _, v := range y {
		ss += (v - mu) * (v - mu)
	}
	if len(y) > 1 {
		sd = math.Sqrt(ss / float64(len(y)-1))
	}
	return mu, sd
}

// readWhitespace reads a file of whitespace-separated numbers, one row a
// line.
func readWhitespace(path string) ([][]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		r = gz
	}
	var rows [][]float64
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		row := make([]float64, len(fields))
		for j, s := range fields {
			if row[j], err = strconv.ParseFloat(s, 64); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, line, err)
			}
		}
		rows = append(rows, row)
	}
	return rows, sc.Err()
}

// readCSV reads a CSV file with a header row and returns its header and
// records.
func readCSV(path string) (header []string, records [][]string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	all, err := r.ReadAll()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(all) < 2 {
		return nil, nil, fmt.Errorf("%s: no data rows", path)
	}
	header = all[0]
	for i, h := range header {
		header[i] = strings.Trim(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")), `"'`)
	}
	return header, all[1:], nil
}

// numericRows parses every field of records as a number; a row with a
// missing or non-numeric field is an error.
func numericRows(path string, records [][]string) ([][]float64, error) {
	rows := make([][]float64, len(records))
	for i, rec := range records {
		rows[i] = make([]float64, len(rec))
		for j, s := range rec {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%s: row %d, column %d: %q is not a finite number", path, i+2, j+1, s)
			}
			rows[i][j] = v
		}
	}
	return rows, nil
}

// --- Debian packages ---

// debFile returns the first of paths (absolute, as installed) that the
// installed system has, or else that package pkg's archive has once
// downloaded with apt-get download and unpacked into the cache (no root
// needed, no dependencies installed). It returns the path and
// "pkg version".
func (e *prepEnv) debFile(pkg string, paths ...string) (string, string, error) {
	for _, p := range paths {
		if exists(p) {
			out, err := exec.Command("dpkg-query", "-W", "-f=${Version}", pkg).Output()
			ver := strings.TrimSpace(string(out))
			if err != nil || ver == "" {
				ver = "installed"
			}
			return p, pkg + " " + ver, nil
		}
	}
	dir := filepath.Join(e.cache, "debs", pkg)
	root := filepath.Join(dir, "root")
	debs, _ := filepath.Glob(filepath.Join(dir, pkg+"_*.deb"))
	if len(debs) == 0 {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", "", err
		}
		if err := aptDownload(dir, pkg); err != nil {
			return "", "", err
		}
		if debs, _ = filepath.Glob(filepath.Join(dir, pkg+"_*.deb")); len(debs) == 0 {
			return "", "", fmt.Errorf("apt-get download %s left no archive in %s", pkg, dir)
		}
	}
	if !exists(root) {
		tmp := root + ".tmp"
		os.RemoveAll(tmp)
		if out, err := exec.Command("dpkg-deb", "-x", debs[0], tmp).CombinedOutput(); err != nil {
			return "", "", fmt.Errorf("dpkg-deb -x %s: %v: %s", debs[0], err, out)
		}
		if err := os.Rename(tmp, root); err != nil {
			return "", "", err
		}
	}
	ver := strings.TrimSuffix(filepath.Base(debs[0]), ".deb")
	if f := strings.Split(ver, "_"); len(f) >= 2 {
		ver = strings.ReplaceAll(f[1], "%3a", ":")
	}
	for _, p := range paths {
		if q := filepath.Join(root, p); exists(q) {
			return q, pkg + " " + ver, nil
		}
	}
	return "", "", fmt.Errorf("package %s has none of %s", pkg, strings.Join(paths, ", "))
}

// aptDownload runs apt-get download pkg in dir; as root it updates the
// package lists and tries again if the first attempt fails.
func aptDownload(dir, pkg string) error {
	try := func() ([]byte, error) {
		cmd := exec.Command("apt-get", "download", "-q", pkg)
		cmd.Dir = dir
		return cmd.CombinedOutput()
	}
	out, err := try()
	if err == nil {
		return nil
	}
	if os.Geteuid() == 0 {
		if uout, uerr := exec.Command("apt-get", "update", "-qq").CombinedOutput(); uerr != nil {
			return fmt.Errorf("apt-get update: %v: %s", uerr, lastLine(uout))
		}
		if out, err = try(); err == nil {
			return nil
		}
	}
	hint := "run 'apt-get update' as root, or install " + pkg
	if _, lerr := exec.LookPath("apt-get"); lerr != nil {
		hint = "this needs Debian's apt-get"
	}
	return fmt.Errorf("cannot download Debian package %s (%s): %s", pkg, hint, lastLine(out))
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}

// rscript returns the path of Rscript, installing r-base-core as root
// when it is missing.
func rscript() (string, error) {
	if p, err := exec.LookPath("Rscript"); err == nil {
		return p, nil
	}
	if os.Geteuid() != 0 {
		return "", errors.New("Rscript not found: R's data sets need r-base-core (as root: apt-get install --no-install-recommends r-base-core)")
	}
	install := func() ([]byte, error) {
		cmd := exec.Command("apt-get", "install", "-y", "-qq", "--no-install-recommends", "r-base-core")
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		return cmd.CombinedOutput()
	}
	if _, err := install(); err != nil {
		exec.Command("apt-get", "update", "-qq").Run()
		if out, err := install(); err != nil {
			return "", fmt.Errorf("apt-get install r-base-core: %v: %s", err, lastLine(out))
		}
	}
	return exec.LookPath("Rscript")
}

// rTable returns the maker of a set read from R: expr leaves a data frame
// d of numbers, target last, from R's datasets package or, when pkg is
// "debian-package:R-package", from e, the lazy-load data of that package
// (read from its Debian archive; the R package need not be installed).
// One row in five is the test set.
func rTable(name, pkg, expr string) func(*prepEnv, string) (*meta, error) {
	return rTableSample(name, pkg, expr, 0, 0)
}

// rTableSample is rTable keeping a random sample of sample rows, nTest of
// them for testing (0: all rows, one in five for testing).
func rTableSample(name, pkg, expr string, sample, nTest int) func(*prepEnv, string) (*meta, error) {
	return func(e *prepEnv, dir string) (*meta, error) {
		rs, err := rscript()
		if err != nil {
			return nil, err
		}
		rver, _ := exec.Command("dpkg-query", "-W", "-f=${Version}", "r-base-core").Output()
		pkgs := []string{"r-base-core " + strings.TrimSpace(string(rver))}
		script := ""
		if pkg != "" {
			deb, rpkg, _ := strings.Cut(pkg, ":")
			db, ver, err := e.debFile(deb,
				"/usr/lib/R/site-library/"+rpkg+"/data/Rdata.rdb",
				"/usr/lib/R/library/"+rpkg+"/data/Rdata.rdb")
			if err != nil {
				return nil, err
			}
			pkgs = append(pkgs, ver)
			script = fmt.Sprintf("e <- new.env(); lazyLoad(%q, envir = e); ", strings.TrimSuffix(db, ".rdb"))
		}
		raw := filepath.Join(dir, "raw.csv")
		script += expr + fmt.Sprintf("; write.csv(d, %q, row.names = FALSE)", raw)
		if out, err := exec.Command(rs, "--vanilla", "-e", script).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("Rscript: %v: %s", err, lastLine(out))
		}
		header, recs, err := readCSV(raw)
		if err != nil {
			return nil, err
		}
		os.Remove(raw)
		rows, err := numericRows(raw, recs)
		if err != nil {
			return nil, err
		}
		if nTest == 0 {
			nTest = fifth(len(rows))
		}
		train, test, err := split(name, rows, sample, nTest)
		if err != nil {
			return nil, err
		}
		m, err := writeNumeric(dir, header, train, test)
		if m != nil {
			m.Packages = pkgs
		}
		return m, err
	}
}

const (
	sklearnData     = "/usr/lib/python3/dist-packages/sklearn/datasets/data/"
	statsmodelsData = "/usr/lib/python3/dist-packages/statsmodels/datasets/"
)

// makeDiabetes reads scikit-learn's diabetes set: 442 patients, 10
// baseline variables (unscaled), disease progression after a year.
func makeDiabetes(e *prepEnv, dir string) (*meta, error) {
	xp, ver, err := e.debFile("python3-sklearn", sklearnData+"diabetes_data_raw.csv.gz")
	if err != nil {
		return nil, err
	}
	yp, _, err := e.debFile("python3-sklearn", sklearnData+"diabetes_target.csv.gz")
	if err != nil {
		return nil, err
	}
	x, err := readWhitespace(xp)
	if err != nil {
		return nil, err
	}
	y, err := readWhitespace(yp)
	if err != nil {
		return nil, err
	}
	if len(x) != len(y) {
		return nil, fmt.Errorf("diabetes: %d input rows, %d targets", len(x), len(y))
	}
	rows := make([][]float64, len(x))
	for i := range x {
		rows[i] = append(append([]float64{}, x[i]...), y[i][0])
	}
	train, test, err := split("diabetes", rows, 0, fifth(len(rows)))
	if err != nil {
		return nil, err
	}
	m, err := writeNumeric(dir, []string{"age", "sex", "bmi", "bp", "s1", "s2", "s3", "s4", "s5", "s6", "progression"}, train, test)
	if m != nil {
		m.Packages = []string{ver}
	}
	return m, err
}

// makeStatsmodels returns the maker of a numeric statsmodels CSV file
// whose first column is the target (randhie) or its last (fair).
func makeStatsmodels(name, rel string, sample, nTest int) func(*prepEnv, string) (*meta, error) {
	return func(e *prepEnv, dir string) (*meta, error) {
		path, ver, err := e.debFile("python3-statsmodels", statsmodelsData+rel)
		if err != nil {
			return nil, err
		}
		header, recs, err := readCSV(path)
		if err != nil {
			return nil, err
		}
		rows, err := numericRows(path, recs)
		if err != nil {
			return nil, err
		}
		if name == "randhie" { // mdvis (doctor visits) is the first column
			header = append(header[1:], header[0])
			for i, r := range rows {
				rows[i] = append(r[1:], r[0])
			}
		}
		if nTest == 0 {
			nTest = fifth(len(rows))
		}
		train, test, err := split(name, rows, sample, nTest)
		if err != nil {
			return nil, err
		}
		m, err := writeNumeric(dir, header, train, test)
		if m != nil {
			m.Packages = []string{ver}
		}
		return m, err
	}
}

// makeCO2 reads the Mauna Loa weekly CO₂ series (statsmodels), drops the
// weeks without a measurement and turns the date into a decimal year.
func makeCO2(e *prepEnv, dir string) (*meta, error) {
	path, ver, err := e.debFile("python3-statsmodels", statsmodelsData+"co2/co2.csv")
	if err != nil {
		return nil, err
	}
	_, recs, err := readCSV(path)
	if err != nil {
		return nil, err
	}
	var rows [][]float64
	for _, r := range recs {
		if len(r) < 2 || strings.TrimSpace(r[1]) == "" {
			continue
		}
		t, err := time.Parse("20060102", strings.TrimSpace(r[0]))
		if err != nil {
			return nil, fmt.Errorf("%s: date %q: %w", path, r[0], err)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(r[1]), 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %q: %w", path, r[1], err)
		}
		year := time.Date(t.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
		days := time.Date(t.Year()+1, 1, 1, 0, 0, 0, 0, time.UTC).Sub(year).Hours() / 24
		rows = append(rows, []float64{float64(t.Year()) + t.Sub(year).Hours()/24/days, v})
	}
	train, test, err := split("co2", rows, 0, fifth(len(rows)))
	if err != nil {
		return nil, err
	}
	m, err := writeNumeric(dir, []string{"year", "co2"}, train, test)
	if m != nil {
		m.Packages = []string{ver}
	}
	return m, err
}

// --- the shared tuning sets ---

// makeSnelson splits the 200 training rows of Snelson's set 150/50 (the
// set ships no test targets).
func makeSnelson(e *prepEnv, dir string) (*meta, error) {
	x, err := readWhitespace(filepath.Join(e.data, "snelson1d", "train_inputs"))
	if err != nil {
		return nil, err
	}
	y, err := readWhitespace(filepath.Join(e.data, "snelson1d", "train_outputs"))
	if err != nil {
		return nil, err
	}
	if len(x) != len(y) {
		return nil, fmt.Errorf("snelson1d: %d inputs, %d outputs", len(x), len(y))
	}
	rows := make([][]float64, len(x))
	for i := range x {
		rows[i] = []float64{x[i][0], y[i][0]}
	}
	train, test, err := split("snelson1d", rows, 0, 50)
	if err != nil {
		return nil, err
	}
	return writeNumeric(dir, []string{"x", "y"}, train, test)
}

// makeKin40k keeps KIN40K's own split: 10,000 training and 30,000 test
// rows.
func makeKin40k(e *prepEnv, dir string) (*meta, error) {
	read := func(part string) ([][]float64, error) {
		x, err := readWhitespace(filepath.Join(e.data, "kin40k", "kin40k_"+part+"_data.asc"))
		if err != nil {
			return nil, err
		}
		y, err := readWhitespace(filepath.Join(e.data, "kin40k", "kin40k_"+part+"_labels.asc"))
		if err != nil {
			return nil, err
		}
		if len(x) != len(y) {
			return nil, fmt.Errorf("kin40k %s: %d input rows, %d labels", part, len(x), len(y))
		}
		for i := range x {
			x[i] = append(x[i], y[i][0])
		}
		return x, nil
	}
	train, err := read("train")
	if err != nil {
		return nil, err
	}
	test, err := read("test")
	if err != nil {
		return nil, err
	}
	return writeNumeric(dir, []string{"x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "y"}, train, test)
}

// makeKin8nm uses the first of kin8nm's 20 standard splits.
func makeKin8nm(e *prepEnv, dir string) (*meta, error) {
	base := filepath.Join(e.data, "kin8nm")
	rows, err := readWhitespace(filepath.Join(base, "data.txt"))
	if err != nil {
		return nil, err
	}
	pick := func(file string) ([][]float64, error) {
		idx, err := readWhitespace(filepath.Join(base, file))
		if err != nil {
			return nil, err
		}
		out := make([][]float64, len(idx))
		for i, v := range idx {
			k := int(v[0])
			if k < 0 || k >= len(rows) {
				return nil, fmt.Errorf("%s: row index %d out of range", file, k)
			}
			out[i] = rows[k]
		}
		return out, nil
	}
	train, err := pick("index_train_0.txt")
	if err != nil {
		return nil, err
	}
	test, err := pick("index_test_0.txt")
	if err != nil {
		return nil, err
	}
	return writeNumeric(dir, []string{"x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "y"}, train, test)
}

// makeThrombin keeps MoleculeACE's split of the thrombin set; the target
// is pKi.
func makeThrombin(e *prepEnv, dir string) (*meta, error) {
	path := filepath.Join(e.data, "thrombin_chembl204", "CHEMBL204_Ki.csv")
	header, recs, err := readCSV(path)
	if err != nil {
		return nil, err
	}
	si, yi, pi := colOf(header, "smiles"), colOf(header, "y [pEC50/pKi]"), colOf(header, "split")
	if si < 0 || yi < 0 || pi < 0 {
		return nil, fmt.Errorf("%s: expected columns smiles, 'y [pEC50/pKi]' and split", path)
	}
	var train, test []molRow
	for _, r := range recs {
		y, err := strconv.ParseFloat(r[yi], 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if r[pi] == "test" {
			test = append(test, molRow{r[si], y})
		} else {
			train = append(train, molRow{r[si], y})
		}
	}
	return writeMolecules(dir, train, test)
}

// makeLipophilicity splits the lipophilicity set one in five for testing.
func makeLipophilicity(e *prepEnv, dir string) (*meta, error) {
	path := filepath.Join(e.data, "lipophilicity", "Lipophilicity.csv")
	header, recs, err := readCSV(path)
	if err != nil {
		return nil, err
	}
	si, yi := colOf(header, "smiles"), colOf(header, "exp")
	if si < 0 || yi < 0 {
		return nil, fmt.Errorf("%s: expected columns smiles and exp", path)
	}
	rows := make([]molRow, len(recs))
	for i, r := range recs {
		y, err := strconv.ParseFloat(r[yi], 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		rows[i] = molRow{r[si], y}
	}
	idx := rngFor("lipophilicity").Perm(len(rows))
	isTest := make(map[int]bool)
	for _, i := range idx[:fifth(len(rows))] {
		isTest[i] = true
	}
	var train, test []molRow
	for i, r := range rows {
		if isTest[i] {
			test = append(test, r)
		} else {
			train = append(train, r)
		}
	}
	return writeMolecules(dir, train, test)
}

// colOf returns the index of the column named name, or -1.
func colOf(header []string, name string) int {
	for i, h := range header {
		if h == name {
			return i
		}
	}
	return -1
}

// molRow is a molecule and its target.
type molRow struct {
	smiles string
	y      float64
}

// writeMolecules writes train.csv and test.csv with the columns smiles
// and y.
func writeMolecules(dir string, train, test []molRow) (*meta, error) {
	for _, f := range []struct {
		name string
		rows []molRow
	}{{"train.csv", train}, {"test.csv", test}} {
		fh, err := os.Create(filepath.Join(dir, f.name))
		if err != nil {
			return nil, err
		}
		w := csv.NewWriter(fh)
		w.Write([]string{"smiles", "y"})
		for _, r := range f.rows {
			w.Write([]string{r.smiles, strconv.FormatFloat(r.y, 'g', -1, 64)})
		}
		w.Flush()
		if err := errors.Join(w.Error(), fh.Close()); err != nil {
			return nil, err
		}
	}
	y := make([]float64, len(train))
	for i, r := range train {
		y[i] = r.y
	}
	mu, sd := meanSD(y)
	return &meta{NTrain: len(train), NTest: len(test), D: 1, Columns: []string{"smiles", "y"}, YMean: mu, YSD: sd}, nil
}
