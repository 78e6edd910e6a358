package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/cholqr/sgp/repl"
	"github.com/cholqr/sgp/sgp/comm"
	"github.com/cholqr/sgp/sgp/data"
	"github.com/cholqr/sgp/sgp/kernel"
)

// This file runs fit across the ranks of an MPI job (a binary built with
// -tags mpi, started by mpirun or srun; docs/scaling.md). Every rank
// reads only its own rows of the training file (data.ReadCSVRows, in
// whole blocks of comm.BlockRows rows, the layout of the engine's
// ordered sums); only rank 0 writes: the progress lines, the summary or
// the JSON object, the outputs, and the one message of a failure, which
// names the rank and the line at fault. The other ranks print nothing and
// exit with the same status. With one rank, fit is what it is without
// MPI.

// runWorld runs fit on the ranks of the job: World under MPI, one rank
// without it (the default build, which never initialises MPI).
func (c *fitConfig) runWorld(ctx context.Context, e *env) error {
	if !comm.MPI {
		return c.run(ctx, e)
	}
	world, err := comm.World()
	if err != nil {
		return err
	}
	err = c.runOn(ctx, e, world)
	if ferr := world.Finalize(); ferr != nil && err == nil {
		err = ferr
	}
	return err
}

// runOn runs fit on the ranks of world, this process being world.Rank().
// Under more than one rank a failure is printed by rank 0 alone, here,
// and returned on every rank as a silent exit status (a *repl.ExitError,
// which report does not print).
func (c *fitConfig) runOn(ctx context.Context, e *env, world *comm.Comm) error {
	if world.Size() == 1 {
		return c.run(ctx, e)
	}
	stderr := e.stderr
	if world.Rank() != 0 {
		e = &env{stdin: e.stdin, stdout: io.Discard, stderr: io.Discard}
	}
	defer func() {
		// A rank that panics would leave the others waiting in a
		// collective operation: it says so and ends the job.
		if p := recover(); p != nil {
			fmt.Fprintf(stderr, "sgprepl: rank %d of %d: panic: %v\n%s", world.Rank(), world.Size(), p, debug.Stack())
			world.Abort(exitFailure)
		}
	}()
	err := c.runRanks(ctx, e, world)
	if err == nil {
		return nil
	}
	// Rank 0 prints the message here, before MPI_Finalize: once a rank
	// has exited with a non-zero status, mpirun may end the others.
	code := report(e, err)
	return &repl.ExitError{Code: code}
}

// runRanks checks the flags, reads this rank's rows and fits across the
// ranks. Every rank takes the same steps, so that none is left waiting.
func (c *fitConfig) runRanks(ctx context.Context, e *env, world *comm.Comm) error {
	if err := c.checkFlags(); err != nil {
		return err
	}
	spec := c.kernelSpec
	if spec == "" {
		spec = "rbf"
	}
	specName, _, err := kernel.SplitSpec(spec)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if c.columnMode(specName) {
		return usageErrorf("fit: under %d ranks, fit reads numeric files (--train, --test) only: no column mode (--input-column, --target-column, --where) or kernel of discrete inputs; run them with one rank", world.Size())
	}
	if err := c.checkRanksOutputs(world.Size()); err != nil {
		return err
	}
	if err := checkOutputs([]string{c.trainPath, c.testPath}, c.savePath, c.predPath); err != nil {
		return err
	}
	if c.savePath == stdoutPath || c.predPath == stdoutPath {
		// The output takes standard output; the summary goes to stderr.
		e = &env{stdin: e.stdin, stdout: e.stderr, stderr: e.stderr, dash: e.stdout}
	}
	rows, err := readRanks(world, c.trainPath, c.dropMissing)
	if err != nil {
		return err
	}
	return c.fitRanks(ctx, e, world, rows)
}

// rankRows are the training rows of one rank.
type rankRows struct {
	data   *data.Dataset // the rank's rows, X nil if none
	lo, hi int           // their rows of the file's n, counted as data.CSVCount.Rows counts them
	n      int           // the rows of the fit: the file's, less those dropped
	kept   int           // the rows of every rank, less those dropped for a missing value
	// dropped counts the rows of the file --drop-missing left out.
	dropped int
}

// readRanks reads this rank's rows of the numeric training file at path:
// each rank counts the lines of its byte range, the counts are gathered,
// and each reads its span of rows in whole blocks (comm.Span); with drop
// (--drop-missing) the rows kept are dealt out again in whole blocks
// (spreadKept). A failure
// on any rank is every rank's error, that of the first failing rank in
// file order, naming the rank.
func readRanks(world *comm.Comm, path string, drop bool) (*rankRows, error) {
	r, p := world.Rank(), world.Size()
	count, err := data.CountCSVPart(path, r, p)
	if err := agree(world, err); err != nil {
		return nil, err
	}
	ints := world.AllGatherInts([]int{count.Lines, count.Rows})
	counts := make([]data.CSVCount, p)
	n := 0
	for q := range counts {
		counts[q] = data.CSVCount{Lines: ints[2*q], Rows: ints[2*q+1]}
		n += counts[q].Rows
	}
	lo, hi := comm.Span(n, comm.BlockRows, r, p)
	ds, err := data.ReadCSVRows(path, data.ReadOptions{DropMissing: drop}, counts, lo, hi)
	outs := data.RowsOutcomes(world.AllGatherInts(data.RowsOutcomeOf(ds, err).Ints()))
	at, missing := data.JobError(outs, drop)
	if at >= 0 {
		msg := ""
		if r == at {
			var me *data.MissingError
			if errors.As(err, &me) {
				me.Rows = missing // every rank's
			}
			msg = dataHint(err, true).Error()
		}
		return nil, rankError(world, at, world.BcastBytes([]byte(msg), at))
	}
	kept := make([]int, p)
	for q, o := range outs {
		kept[q] = o.Rows
	}
	rows := &rankRows{data: ds, lo: lo, hi: hi, n: n, kept: n}
	if drop {
		// The rows kept, dealt out again in whole blocks, even where none
		// was dropped (every rank takes the same branch).
		return spreadKept(world, rows, kept), nil
	}
	return rows, nil
}

// agree makes a failure of one step on any rank every rank's: it returns
// nil if err is nil on every rank, or else the error of the first rank
// that failed, naming it.
func agree(world *comm.Comm, err error) error {
	failed := 0
	if err != nil {
		failed = 1
	}
	flags := world.AllGatherInts([]int{failed})
	for at, f := range flags {
		if f != 0 {
			msg := ""
			if at == world.Rank() {
				msg = err.Error()
			}
			return rankError(world, at, world.BcastBytes([]byte(msg), at))
		}
	}
	return nil
}

// rankError is the error msg of rank at, for every rank.
func rankError(world *comm.Comm, at int, msg []byte) error {
	return fmt.Errorf("rank %d of %d: %s", at, world.Size(), strings.TrimPrefix(string(msg), "sgp: "))
}
