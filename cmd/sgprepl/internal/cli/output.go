package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cholqr/sgp/sgp"
	"github.com/cholqr/sgp/sgp/outfile"
)

// The output files of the commands (--save, --predictions, --output) are
// written by the rules of package
// sgp/outfile, which every writer of the module follows, and are checked
// before any work starts:
//
//   - a regular file (or a new one) is written completely to a temporary
//     file beside it and renamed over it only when every output is ready;
//     symbolic links are followed (the link stays), an existing file keeps
//     its permissions, a new one gets 0666 less the umask, as a shell
//     redirection would;
//   - a device (/dev/null), a named pipe, a socket or a descriptor
//     (/dev/stdout, /dev/fd/N) is written in place, after the regular
//     files; a named pipe must have its reader by then;
//   - "-" is the command's standard output (stdoutPath);
//   - a directory, a missing directory or an unwritable file is an error
//     before the work starts, and so is a regular output that names an
//     input file or another output (compared with os.SameFile, so other
//     spellings and links are caught).

// stdoutPath is the output path that means standard output.
const stdoutPath = "-"

// checkOutputs reports an output path (empty ones are skipped) that cannot
// be written, that is also an input, or that two outputs share.
func checkOutputs(inputs []string, outputs ...string) error {
	var seen []*outfile.Target
	var seenPaths []string
	dash := ""
	for _, path := range outputs {
		switch {
		case path == "":
			continue
		case path == stdoutPath:
			if dash != "" {
				return usageErrorf("two outputs are standard output (%s): give one of them a file name", stdoutPath)
			}
			dash = path
			continue
		}
		t, err := outfile.Check(path)
		if err != nil {
			return err
		}
		if !t.Staged {
			continue // devices and pipes are written in place, by every output that names them
		}
		if t.Info != nil {
			for _, in := range inputs {
				if in == "" {
					continue
				}
				if ii, err := os.Stat(in); err == nil && os.SameFile(t.Info, ii) {
					return usageErrorf("refusing to write %s: it is the input file %s", path, in)
				}
			}
		}
		for i, other := range seen {
			if t.Info != nil && other.Info != nil && os.SameFile(t.Info, other.Info) ||
				filepath.Clean(t.Name) == filepath.Clean(other.Name) {
				return usageErrorf("two outputs name the same file: %s and %s", seenPaths[i], path)
			}
		}
		seen = append(seen, t)
		seenPaths = append(seenPaths, path)
	}
	return nil
}

// output is one file to write: its path (empty: not asked for; "-":
// standard output) and what goes in it.
type output struct {
	path  string
	write func(io.Writer) error
}

// writeOutputs writes the outputs, stdout taking those named "-". Every
// output is opened first, so that a named pipe with no reader or a
// directory that lost its permissions fails before anything is written.
// The regular files are then written to their temporary files and, once
// all of them are complete, renamed into place: a failure among them
// leaves all of them as they were. The outputs written in place (devices,
// pipes, descriptors, "-") come last, so that a reader that stops early
// cannot cost the files.
func writeOutputs(stdout io.Writer, outs ...output) error {
	type open struct {
		output
		f *outfile.File // nil for "-"
	}
	var staged, streamed []open
	defer func() {
		for _, o := range append(staged, streamed...) {
			if o.f != nil {
				o.f.Discard()
			}
		}
	}()
	for _, o := range outs {
		switch {
		case o.path == "":
			continue
		case o.path == stdoutPath:
			streamed = append(streamed, open{output: o})
			continue
		}
		f, err := outfile.Create(o.path)
		if err != nil {
			return err
		}
		if f.Target().Staged {
			staged = append(staged, open{o, f})
		} else {
			streamed = append(streamed, open{o, f})
		}
	}
	// An *outfile.File names its path in its write errors.
	for _, o := range staged {
		if err := o.write(o.f); err != nil {
			return err
		}
	}
	// An output that fails after others were written says which were.
	var written []string
	failed := func(err error) error {
		if len(written) == 0 {
			return err
		}
		return fmt.Errorf("%w (%s written)", err, strings.Join(written, " and "))
	}
	for _, o := range staged {
		if err := o.f.Commit(); err != nil {
			return failed(err)
		}
		written = append(written, o.path)
	}
	for _, o := range streamed {
		if o.f == nil {
			if err := o.write(stdout); err != nil {
				return failed(fmt.Errorf("cannot write to standard output: %w", err))
			}
			written = append(written, "standard output")
			continue
		}
		if err := o.write(o.f); err != nil {
			return failed(err)
		}
		if err := o.f.Commit(); err != nil {
			return failed(err)
		}
		written = append(written, o.path)
	}
	return nil
}

// stopText returns how a fit stopped in the words of its display and of
// the JSON report's "stopped": the status, then ": " and the reason of a
// stalled or failed fit.
func stopText(s sgp.Status, reason string) string {
	if reason == "" {
		return s.String()
	}
	return s.String() + ": " + reason
}
