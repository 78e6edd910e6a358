package main

import (
	"fmt"
	"slices"
)

// The groups of sets. The tuning sets are those the defaults were measured
// on (docs/results.md and the tests read them); the checking sets
// played no part in choosing any default.
const (
	groupTuning   = "tuning"
	groupChecking = "checking"
)

// A set is one data set of the evaluation: where it comes from and how
// its train and test files are made.
type set struct {
	name   string
	group  string // groupTuning or groupChecking
	source string // one line: origin and licence (docs/evaluation.md has more)
	// synthetic sets have a known truth; prepare records the test SMSE of
	// the true function (the best a fit can expect) in the metadata.
	synthetic bool
	quick     bool // in the --quick subset
	// molecule sets have a SMILES column and a graph kernel; the others
	// are numeric CSV files with the target in the last column.
	molecule bool
	kernel   string   // --kernel for molecule sets
	inputs   []string // --input-column for molecule sets
	target   string   // --target-column for molecule sets
	// make writes the set's train.csv and test.csv into dir and returns
	// what it knows about them.
	make func(e *prepEnv, dir string) (*meta, error)
}

// catalogue lists every set of the evaluation, tuning sets first.
func catalogue() []*set {
	return []*set{
		// Tuning: the shared sets the defaults were chosen on.
		{name: "snelson1d", group: groupTuning, quick: true,
			source: "Snelson & Ghahramani's 1-D toy set ($SGP_DATA/snelson1d); 200 rows split 150/50",
			make:   makeSnelson},
		{name: "kin40k", group: groupTuning,
			source: "KIN40K, Schwaighofer & Tresp's split ($SGP_DATA/kin40k); 10,000/30,000",
			make:   makeKin40k},
		{name: "kin8nm", group: groupTuning,
			source: "kin8nm, DELVE, standard split 0 ($SGP_DATA/kin8nm); 7,373/819",
			make:   makeKin8nm},
		{name: "thrombin", group: groupTuning, molecule: true, kernel: "wl-depth:3", inputs: []string{"smiles"}, target: "y",
			source: "thrombin Ki (ChEMBL204, MoleculeACE split; $SGP_DATA/thrombin_chembl204); WL kernel",
			make:   makeThrombin},
		{name: "lipophilicity", group: groupTuning, molecule: true, kernel: "wl-depth:3", inputs: []string{"smiles"}, target: "y",
			source: "Lipophilicity logD (ChEMBL/MoleculeNet via GAUCHE; $SGP_DATA/lipophilicity); WL kernel",
			make:   makeLipophilicity},

		// Checking: public data that Debian packages ship.
		{name: "diabetes", group: groupChecking, quick: true,
			source: "diabetes progression, Efron et al. 2004 (python3-sklearn, BSD-3-Clause)",
			make:   makeDiabetes},
		{name: "quakes", group: groupChecking, quick: true,
			source: "Fiji earthquakes: magnitude from lat, long, depth, stations (R datasets, r-base-core, GPL-2 | GPL-3)",
			make:   rTable("quakes", "", `d <- datasets::quakes[, c("lat","long","depth","stations","mag")]`)},
		{name: "airquality", group: groupChecking, quick: true,
			source: "New York ozone, 1973, complete rows (R datasets, r-base-core, GPL-2 | GPL-3)",
			make:   rTable("airquality", "", `d <- datasets::airquality; d <- d[complete.cases(d), c("Solar.R","Wind","Temp","Month","Day","Ozone")]`)},
		{name: "trees", group: groupChecking, quick: true,
			source: "black cherry trees: volume from girth and height (R datasets, r-base-core, GPL-2 | GPL-3)",
			make:   rTable("trees", "", `d <- datasets::trees[, c("Girth","Height","Volume")]`)},
		{name: "mtcars", group: groupChecking,
			source: "Motor Trend cars, 1974: mpg from 10 inputs (R datasets, r-base-core, GPL-2 | GPL-3)",
			make:   rTable("mtcars", "", `d <- datasets::mtcars; d <- d[, c(setdiff(names(d), "mpg"), "mpg")]`)},
		{name: "mcycle", group: groupChecking,
			source: "simulated motorcycle crash: acceleration against time (R MASS, r-cran-mass, GPL-2|3)",
			make:   rTable("mcycle", "r-cran-mass:MASS", `d <- e$mcycle[, c("times","accel")]`)},
		{name: "co2", group: groupChecking,
			source: "Mauna Loa weekly CO2, 1958–2001, against decimal year (python3-statsmodels, public domain)",
			make:   makeCO2},
		{name: "fair", group: groupChecking,
			source: "Fair's affairs survey, 1978: 8 few-valued inputs (python3-statsmodels; included with the author's permission)",
			make:   makeStatsmodels("fair", "fair/fair.csv", 0, 0)},
		{name: "randhie", group: groupChecking,
			source: "RAND health insurance experiment: doctor visits (python3-statsmodels, public domain); 15,000 of 20,190 rows",
			make:   makeStatsmodels("randhie", "randhie/randhie.csv", 15000, 5000)},
		{name: "concrete", group: groupChecking,
			source: "concrete compressive strength, Yeh 1998 (R modeldata, r-cran-modeldata, MIT)",
			make:   rTable("concrete", "r-cran-modeldata:modeldata", `d <- as.data.frame(e$concrete)`)},
		{name: "ames", group: groupChecking,
			source: "Ames housing sale prices, De Cock 2011: the numeric columns (R modeldata, r-cran-modeldata, MIT)",
			make: rTable("ames", "r-cran-modeldata:modeldata",
				`d <- as.data.frame(e$ames); num <- names(d)[sapply(d, is.numeric)]; d <- d[, c(setdiff(num, "Sale_Price"), "Sale_Price")]`)},
		{name: "diamonds", group: groupChecking,
			source: "diamond prices, ordered factors as codes (R ggplot2, r-cran-ggplot2, MIT); 15,000 of 53,940 rows",
			make: rTableSample("diamonds", "r-cran-ggplot2:ggplot2",
				`d <- as.data.frame(e$diamonds); for (v in c("cut","color","clarity")) d[[v]] <- as.integer(d[[v]]); d <- d[, c("carat","cut","color","clarity","depth","table","x","y","z","price")]`,
				15000, 5000)},

		// Checking: synthetic sets with a known truth.
		{name: "synth-twovalued", group: groupChecking, synthetic: true, quick: true,
			source: "synthetic: 5 inputs in {0, 1e-4}, 2 in [0, 1]; test rows with unseen combinations; standardised targets",
			make:   makeTwoValued},
		{name: "synth-lattice", group: groupChecking, synthetic: true,
			source: "synthetic: 4 inputs on the lattice {0..5}⁴, repeated sites, unseen test sites",
			make:   makeLattice},
		{name: "synth-smooth", group: groupChecking, synthetic: true,
			source: "synthetic: smooth function of 2 inputs, n = 10,000, clustered inputs",
			make:   makeSmooth},
		{name: "synth-trend", group: groupChecking, synthetic: true, quick: true,
			source: "synthetic: y = 50 + 3 sin x₀ + x₁²/100 + ε, x₁ ∈ [0, 1000], var ε = 0.25",
			make:   makeTrend},
		{name: "synth-raw", group: groupChecking, synthetic: true,
			source: "synthetic: y = 10⁴ + 20 sin x₀ cos x₁ + 5 x₂ + ε: raw targets around 10⁴, sd about 12",
			make:   makeRaw},
	}
}

// chooseSets applies --quick and --sets.
func chooseSets(all []*set, c config) ([]*set, error) {
	var out []*set
	for _, s := range all {
		if c.quick && !s.quick {
			continue
		}
		if len(c.sets) > 0 && !slices.ContainsFunc(c.sets, func(w string) bool {
			return w == s.name || w == s.group || (w == "synthetic" && s.synthetic)
		}) {
			continue
		}
		out = append(out, s)
	}
	for _, w := range c.sets {
		if !slices.ContainsFunc(all, func(s *set) bool {
			return w == s.name || w == s.group || (w == "synthetic" && s.synthetic)
		}) {
			return nil, fmt.Errorf("--sets: no set or group %q (see --list)", w)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--sets %v with --quick=%v selects no set (see --list)", c.sets, c.quick)
	}
	return out, nil
}

// allSelectors are the rows of each set, in table order. "default" is the
// CLI with neither --selector nor --m.
var allSelectors = []string{"default", "hybrid", "cholqr", "sgpr-continuous", "random", "exact"}

// selectorsFor returns the selectors that apply to a prepared set: the
// continuous ones need numeric inputs, the exact GP at most exactMax
// training rows.
func selectorsFor(p *prepared, c config) []string {
	var out []string
	for _, s := range allSelectors {
		if len(c.sels) > 0 && !slices.Contains(c.sels, s) {
			continue
		}
		switch {
		case p.set.molecule && (s == "hybrid" || s == "sgpr-continuous"):
			continue
		case s == "exact" && p.meta.NTrain > c.exactMax:
			continue
		}
		out = append(out, s)
	}
	return out
}

// explicitM is the m of the rows that name a selector: --m, or
// min(128, n/4) (at least 2), always below n.
func explicitM(n, flagM int) int {
	m := flagM
	if m <= 0 {
		m = max(2, min(128, n/4))
	}
	return min(m, n-1)
}
