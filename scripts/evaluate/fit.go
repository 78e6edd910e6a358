package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cholqr/sgp/sgp"
)

// row is the outcome of one fit: one line of the table.
type row struct {
	Set, Group  string
	N, NTest, D int
	Selector    string // as in allSelectors
	Seed        uint64
	M           int // inducing points used (n for the exact GP)
	MRequested  int // asked for (the CLI's default for the default row)
	F           *float64
	SMSE, SNLP  *float64
	Seconds     float64 // the fit's own time, as the CLI reports it
	Wall        float64 // the whole command: reading, fitting, predicting
	Stopped     string
	Converged   bool
	Mu          *float64 // the prior mean μ
	Drift       *float64 // |μ − ȳ| / sd(y), training targets
	Signal      *float64 // signal variance (sum over the kernel's variances)
	Noise       *float64 // noise variance σ²
	AtFloor     bool     // σ² ended at its floor
	Refined     bool     // a hybrid fit kept its continuous refinement
	Warnings    []string
	Err         string // the command failed: its last line of stderr
}

// fitJSON is what the rows need of `sgprepl fit --json` (the sparse,
// continuous and exact reports share these keys).
type fitJSON struct {
	Objective       *float64           `json:"objective"`
	SMSE            *float64           `json:"smse"`
	SNLP            *float64           `json:"snlp"`
	Seconds         float64            `json:"seconds"`
	Stopped         string             `json:"stopped"`
	Converged       bool               `json:"converged"`
	Mean            *float64           `json:"mean"`
	Hyperparameters map[string]float64 `json:"hyperparameters"`
	M               int                `json:"m"`
	MRequested      int                `json:"m_requested"`
	AtNoiseFloor    bool               `json:"at_noise_floor"`
	Warnings        []string           `json:"warnings"`
	Refined         json.RawMessage    `json:"refined"`
}

// fitOne runs sgprepl fit for one set, selector and seed, keeping its
// JSON and its standard error in logs.
func fitOne(ctx context.Context, c config, p *prepared, sel string, seed uint64, logs string) row {
	r := row{Set: p.set.name, Group: p.set.group, N: p.meta.NTrain, NTest: p.meta.NTest, D: p.meta.D, Selector: sel, Seed: seed}
	args := []string{"fit", "--train", p.train, "--test", p.test, "--json", "--quiet",
		"--seed", strconv.FormatUint(seed, 10), "--time-budget", c.budget.String()}
	if p.set.molecule {
		args = append(args, "--kernel", p.set.kernel, "--target-column", p.set.target)
		for _, in := range p.set.inputs {
			args = append(args, "--input-column", in)
		}
	} else if c.kernel != "" {
		args = append(args, "--kernel", c.kernel)
	}
	base := filepath.Join(logs, fmt.Sprintf("%s-%s-s%d", p.set.name, sel, seed))
	model := base + ".model.json"
	switch sel {
	case "default":
		r.MRequested = sgp.DefaultM(p.meta.NTrain) // the CLI's m without --m
	case "exact":
		args = append(args, "--selector", sel)
		r.MRequested = p.meta.NTrain
	default:
		m := explicitM(p.meta.NTrain, c.m)
		args = append(args, "--selector", sel, "--m", strconv.Itoa(m))
		r.MRequested = m
	}
	if sel == "sgpr-continuous" {
		// Its --json has no prior mean; the saved model has.
		args = append(args, "--save", model)
	}

	// A budgeted fit stops by itself; the hard limit only ends a command
	// that hangs (reading, predicting or an exact factorisation).
	hard := 5*c.budget + 2*time.Minute
	cctx, cancel := context.WithTimeout(ctx, hard)
	defer cancel()
	cmd := exec.CommandContext(cctx, c.bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r.Wall = time.Since(start).Seconds()
	os.WriteFile(base+".json", stdout.Bytes(), 0o644)
	os.WriteFile(base+".stderr", []byte(strings.Join(append([]string{c.bin}, args...), " ")+"\n"+stderr.String()), 0o644)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			r.Err = "interrupted"
		case cctx.Err() != nil:
			r.Err = fmt.Sprintf("killed after %s without finishing", hard)
		default:
			r.Err = fmt.Sprintf("%v: %s", err, lastLine(stderr.Bytes()))
		}
		if stdout.Len() == 0 {
			return r
		}
	}
	var j fitJSON
	if err := json.Unmarshal(stdout.Bytes(), &j); err != nil {
		if r.Err == "" {
			r.Err = fmt.Sprintf("unreadable --json output: %v", err)
		}
		return r
	}
	r.F, r.SMSE, r.SNLP = j.Objective, j.SMSE, j.SNLP
	r.Seconds, r.Stopped, r.Converged = j.Seconds, j.Stopped, j.Converged
	r.M, r.AtFloor, r.Warnings = j.M, j.AtNoiseFloor, j.Warnings
	if j.MRequested > 0 {
		r.MRequested = j.MRequested
	}
	r.Refined = len(j.Refined) > 0 && string(j.Refined) != "null"
	r.Mu = j.Mean
	if sel == "sgpr-continuous" {
		var saved struct {
			Mean *float64 `json:"mean"`
		}
		if b, err := os.ReadFile(model); err == nil && json.Unmarshal(b, &saved) == nil {
			r.Mu = saved.Mean
		}
		os.Remove(model)
	}
	if r.Mu != nil && p.meta.YSD > 0 {
		d := math.Abs(*r.Mu-p.meta.YMean) / p.meta.YSD
		r.Drift = &d
	}
	var signal float64
	seen := false
	for name, v := range j.Hyperparameters {
		switch {
		case name == "noise":
			r.Noise = ptr(v)
		case strings.HasPrefix(name, "variance"):
			signal += v
			seen = true
		}
	}
	if seen {
		r.Signal = &signal
	}
	return r
}

func ptr(v float64) *float64 { return &v }

// summary is the one-line progress report of a row.
func (r row) summary() string {
	if r.Err != "" && r.F == nil {
		return "error: " + r.Err
	}
	return fmt.Sprintf("m=%d F=%s SMSE=%s μ=%s %s in %.1f s (%.1f s wall), %d warnings",
		r.M, fmtF(r.F), fmtG(r.SMSE, 4), fmtG(r.Mu, 4), r.Stopped, r.Seconds, r.Wall, len(r.Warnings))
}
