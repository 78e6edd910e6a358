package cli

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// The output files of the commands (--save, --predictions, --output) are
// checked before any work starts and written all or nothing at the end:
//
//   - an output never names an input file, nor another output (compared
//     with os.SameFile, so other spellings and links are caught);
//   - its directory must exist and be writable, and an existing file must
//     be writable, so that a long fit does not end in a write error;
//   - each output is written completely to a temporary file beside its
//     destination and renamed over it only when every output is ready;
//   - a symbolic link is written through (its target is replaced, the link
//     stays); an existing file keeps its permissions, a new one gets
//     0666 less the process's umask, as a shell redirection would.

// outputTarget returns the file an output path writes to: the final target
// of a symbolic link, or path itself.
func outputTarget(path string) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return path, nil
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		// A dangling link: write to where it points.
		dest, rerr := os.Readlink(path)
		if rerr != nil {
			return "", fmt.Errorf("cannot write %s: %w", path, rerr)
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(path), dest)
		}
		return dest, nil
	}
	return target, nil
}

// checkOutputs reports an output path (empty ones are skipped) that cannot
// be written, that is also an input, or that two outputs share.
func checkOutputs(inputs []string, outputs ...string) error {
	var seen []os.FileInfo
	var seenPaths []string
	for _, path := range outputs {
		if path == "" {
			continue
		}
		target, err := outputTarget(path)
		if err != nil {
			return err
		}
		dir := filepath.Dir(target)
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return fmt.Errorf("cannot write %s: directory %s does not exist", path, dir)
		}
		fi, err := os.Stat(target)
		switch {
		case err == nil && fi.IsDir():
			return fmt.Errorf("cannot write %s: it is a directory", path)
		case err == nil:
			for _, in := range inputs {
				if in == "" {
					continue
				}
				if ii, err := os.Stat(in); err == nil && os.SameFile(fi, ii) {
					return usageErrorf("refusing to write %s: it is the input file %s", path, in)
				}
			}
			for i, other := range seen {
				if other != nil && os.SameFile(fi, other) {
					return usageErrorf("two outputs name the same file: %s and %s", seenPaths[i], path)
				}
			}
			// Writable? Opening for writing does not truncate.
			f, err := os.OpenFile(target, os.O_WRONLY, 0)
			if err != nil {
				return fmt.Errorf("cannot write %s: %w", path, errors.Unwrap(err))
			}
			f.Close()
		default:
			for i, p := range seenPaths {
				if filepath.Clean(p) == filepath.Clean(target) {
					return usageErrorf("two outputs name the same file: %s and %s", seenPaths[i], path)
				}
			}
		}
		// The directory must take the temporary file.
		probe, err := createTemp(dir, filepath.Base(target))
		if err != nil {
			return fmt.Errorf("cannot write %s: %w", path, errors.Unwrap(err))
		}
		probe.Close()
		os.Remove(probe.Name())
		seen = append(seen, fi)
		seenPaths = append(seenPaths, target)
	}
	return nil
}

// createTemp creates a new hidden file beside name in dir with mode 0666
// less the umask (os.CreateTemp would make it 0600).
func createTemp(dir, name string) (*os.File, error) {
	for range 100 {
		var b [6]byte
		rand.Read(b[:])
		f, err := os.OpenFile(filepath.Join(dir, "."+name+".tmp-"+hex.EncodeToString(b[:])), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("cannot create a temporary file in %s", dir)
}

// stagedFile is an output written completely to a temporary file in the
// destination's directory, waiting to be renamed over it.
type stagedFile struct {
	tmp, path, target string
	done              bool
}

// stageFile writes the output of write to a temporary file beside path
// (beside the target of a link), with the permissions of the file it will
// replace, if any.
func stageFile(path string, write func(io.Writer) error) (*stagedFile, error) {
	target, err := outputTarget(path)
	if err != nil {
		return nil, err
	}
	tmp, err := createTemp(filepath.Dir(target), filepath.Base(target))
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", path, err)
	}
	f := &stagedFile{tmp: tmp.Name(), path: path, target: target}
	err = write(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if fi, serr := os.Stat(target); err == nil && serr == nil {
		err = os.Chmod(f.tmp, fi.Mode().Perm())
	}
	if err != nil {
		f.discard()
		return nil, fmt.Errorf("cannot write %s: %w", path, err)
	}
	return f, nil
}

// commit renames the temporary file over the destination.
func (f *stagedFile) commit() error {
	if err := os.Rename(f.tmp, f.target); err != nil {
		return fmt.Errorf("cannot write %s: %w", f.path, err)
	}
	f.done = true
	return nil
}

// discard removes the temporary file unless it was committed.
func (f *stagedFile) discard() {
	if !f.done {
		os.Remove(f.tmp)
		f.done = true
	}
}

// output is one file to write: its path (empty: not asked for) and what
// goes in it.
type output struct {
	path  string
	write func(io.Writer) error
}

// writeOutputs stages every output before replacing any, so that a failure
// leaves all of them as they were.
func writeOutputs(outs ...output) error {
	var files []*stagedFile
	defer func() {
		for _, f := range files {
			f.discard()
		}
	}()
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		f, err := stageFile(o.path, o.write)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	for _, f := range files {
		if err := f.commit(); err != nil {
			return err
		}
	}
	return nil
}
