package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// TestFitMPILearns runs fit under mpirun -np 2 and 3 (sgprepl built
// with -tags mpi, its path in SGP_MPI_SGPREPL, as .ci/run sets it) on a
// file of 2600 rows without --param: each learns σ² away from its start
// from the data, with the noise floor of fit in one process (-np 1's
// JSON) to 1e-12, and the two give the same start, hyperparameters,
// inducing set and objective bit for bit.
func TestFitMPILearns(t *testing.T) {
	bin := os.Getenv("SGP_MPI_SGPREPL")
	if bin == "" {
		t.Skip("SGP_MPI_SGPREPL does not name an sgprepl built with -tags mpi")
	}
	mpirun, err := exec.LookPath("mpirun")
	if err != nil {
		t.Skip("no mpirun")
	}
	train := writeSmoothCSV(t, 2600)
	run := func(np int, out any) {
		cmd := exec.Command(mpirun, "-np", fmt.Sprint(np), "--allow-run-as-root", "--oversubscribe", "--mca", "btl", "self,tcp",
			bin, "fit", "--train", train, "--m", "10", "--max-epochs", "2", "--selector", "cholqr", "--json")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil || json.Unmarshal(stdout.Bytes(), out) != nil {
			t.Fatalf("-np %d: %v: %s%s", np, err, stdout.String(), stderr.String())
		}
	}
	var single struct {
		NoiseFloor float64 `json:"noise_floor"`
	}
	run(1, &single)
	var first *learnedJSON
	for np := 2; np <= 3; np++ {
		var got learnedJSON
		run(np, &got)
		if !near(got.NoiseFloor, single.NoiseFloor, 1e-12) || got.CGEvals == 0 || got.Hyper["noise"] == got.StartHyper["noise"] {
			t.Errorf("-np %d: floor %v (one process %v), %d evaluations, σ² %v from %v", np, got.NoiseFloor, single.NoiseFloor, got.CGEvals, got.Hyper["noise"], got.StartHyper["noise"])
		}
		if first == nil {
			first = &got
		} else if got.Value != first.Value || fmt.Sprint(got.Inducing, got.Hyper, got.StartHyper, got.StartMean) != fmt.Sprint(first.Inducing, first.Hyper, first.StartHyper, first.StartMean) {
			t.Errorf("-np %d: value %v set %v θ %v; -np 2's %v %v %v", np, got.Value, got.Inducing, got.Hyper, first.Value, first.Inducing, first.Hyper)
		}
	}
}
