package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cholqr/sgp/sgp"
)

// TestFitMPISignal interrupts fit under mpirun -np 2 (sgprepl built with
// -tags mpi, its path in SGP_MPI_SGPREPL, as .ci/run sets it) with
// SIGTERM and SIGINT to mpirun once the first epoch's progress line is
// out, in a fit of 60000 rows of held hyperparameters whose epochs of
// swaps take about 4 s. Open MPI 4.1's mpirun sends the ranks SIGTERM a
// second after it gets the signal and SIGKILL a second after that
// (odls_base_sigkill_timeout): the ranks stop before a swap
// (sgp.FitRanks checks before each), and rank 0 must have written the
// partial model and the summary by then. The job ends within 10 s with
// a non-zero status (mpirun's 1), the summary says a signal ended the
// fit before its 50 epochs, and the model file loads.
func TestFitMPISignal(t *testing.T) {
	bin := os.Getenv("SGP_MPI_SGPREPL")
	if bin == "" {
		t.Skip("SGP_MPI_SGPREPL does not name an sgprepl built with -tags mpi")
	}
	mpirun, err := exec.LookPath("mpirun")
	if err != nil {
		t.Skip("no mpirun")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	b.WriteString("x0,x1,y\n")
	for range 60000 {
		x0, x1 := 4*rng.Float64(), 2*rng.Float64()
		fmt.Fprintf(&b, "%.6f,%.6f,%.6f\n", x0, x1, math.Sin(2*x0)+x1*x1/2+0.1*rng.NormFloat64())
	}
	train := filepath.Join(t.TempDir(), "train.csv")
	if err := os.WriteFile(train, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		save := filepath.Join(t.TempDir(), "model.json")
		cmd := exec.Command(mpirun, "-np", "2", "--allow-run-as-root", "--oversubscribe", "--mca", "btl", "self,tcp",
			bin, "fit", "--train", train, "--m", "80", "--max-epochs", "50", "--fix", "variance=1,lengthscale[0]=0.3,lengthscale[1]=0.3,noise=0.01", "--save", save)
		var out bytes.Buffer
		cmd.Stdout = &out
		progress, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var errText strings.Builder
		lines := bufio.NewScanner(progress)
		for lines.Scan() && !strings.HasPrefix(lines.Text(), "epoch   1 ") {
			errText.WriteString(lines.Text() + "\n")
		}
		sent := time.Now()
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		rest, _ := io.ReadAll(progress)
		errText.Write(rest)
		werr := cmd.Wait()
		took := time.Since(sent)
		summary := out.String()
		if werr == nil || took > 10*time.Second || !strings.Contains(summary, "ended by the time budget or a signal") || strings.Contains(summary, "50 epochs") {
			t.Errorf("%v: %v after %v; summary:\n%s\nstderr:\n%s", sig, werr, took, summary, errText.String())
		}
		if p, err := sgp.LoadPredictorFile(save); err != nil || p.X.Len() == 0 {
			t.Errorf("%v: the partial model %s: %v", sig, save, err)
		}
		t.Logf("%v: the job ended %.2f s after the signal, status %v", sig, took.Seconds(), werr)
	}
}
