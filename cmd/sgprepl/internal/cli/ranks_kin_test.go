package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/data"
)

// kinFix holds an ARD RBF kernel on KIN40K's eight inputs.
const kinFix = "variance=1,noise=0.01,lengthscale[0]=1.5,lengthscale[1]=1.5,lengthscale[2]=1.5,lengthscale[3]=1.5," +
	"lengthscale[4]=1.5,lengthscale[5]=1.5,lengthscale[6]=1.5,lengthscale[7]=1.5"

// TestFitMPIKin40k fits KIN40K's 10,000 training rows under mpirun -np 4
// (sgprepl built with -tags mpi, its path in SGP_MPI_SGPREPL; .ci/run)
// and in one process with --selector cholqr, m = 64, every hyperparameter
// held: the same inducing set, epochs and convergence, the objective
// within 1e-10 (checkSameAsSingle). The data: $SGP_DATA, else
// ../shared/data from the repository's root; skipped when absent.
func TestFitMPIKin40k(t *testing.T) {
	bin := os.Getenv("SGP_MPI_SGPREPL")
	if bin == "" {
		t.Skip("SGP_MPI_SGPREPL does not name an sgprepl built with -tags mpi")
	}
	mpirun, err := exec.LookPath("mpirun")
	if err != nil {
		t.Skip("no mpirun")
	}
	dir := data.Dir("../../../../../shared/data")
	train, _, err := data.LoadKIN40K(dir)
	if err != nil {
		t.Skipf("KIN40K not found under %s: %v", dir, err)
	}
	var b strings.Builder
	b.WriteString("x0,x1,x2,x3,x4,x5,x6,x7,y\n")
	for i := range train.X.Len() {
		for t := range 8 {
			b.WriteString(strconv.FormatFloat(train.X.At(i, t), 'g', -1, 64))
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(train.Y[i], 'g', -1, 64))
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "kin40k.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	c := fitConfig{trainPath: path, m: 64, mSet: true, z: 16, objective: "var", meanName: "zero", maxEpochs: 3, json: true, restarts: -1, seed: 1, selector: "cholqr"}
	if err := c.cons.fix.Set(kinFix); err != nil {
		t.Fatal(err)
	}
	runs := fitOnLocal(t, 1, c)
	var want singleJSON
	if runs[0].code != 0 || json.Unmarshal([]byte(runs[0].stdout), &want) != nil {
		t.Fatalf("one process: status %d, stdout %q, stderr %s", runs[0].code, runs[0].stdout, runs[0].stderr)
	}
	cmd := exec.Command(mpirun, "-np", "4", "--allow-run-as-root", "--oversubscribe", "--mca", "btl", "self,tcp", bin,
		"fit", "--train", path, "--m", "64", "--max-epochs", "3", "--mean", "zero", "--json", "--quiet", "--fix", kinFix)
	out, err := cmd.Output()
	var got ranksFit
	if err != nil || json.Unmarshal(out, &got) != nil {
		t.Fatalf("-np 4: %v, stdout %q", err, out)
	}
	if got.Ranks != 4 || got.N != 10000 {
		t.Errorf("-np 4: ranks %d, n %d", got.Ranks, got.N)
	}
	checkSameAsSingle(t, "KIN40K -np 4", got, want)
	t.Logf("KIN40K, m = 64: objective %.12g (one process %.12g), %d epochs, %d swaps accepted across 4 ranks", got.Value, want.Objective, got.Epochs, got.Accepted)
}
