// Package outfile writes output files by one set of rules, shared by
// every writer of the module: the sgp library's SaveFile methods,
// figure.Figure.Save, the REPL's figures and the sgprepl command line.
//
// What a path names decides how it is written:
//
//   - a regular file, or nothing yet: the output is staged in a temporary
//     file in the same directory and renamed over the path only once it
//     is complete, so a reader sees the old file or the new one, never a
//     part. An existing file keeps its permissions (and, where the
//     process may set them, its owner and group); a new one gets 0666
//     less the umask, as a shell redirection gives it.
//   - a device (/dev/null, a terminal), a named pipe or a Unix socket: the
//     output is written to it in place, as a stream. Nothing that is not a
//     regular file is ever replaced.
//   - an open descriptor of this process (/dev/stdout, /dev/stderr,
//     /dev/fd/N, /proc/self/fd/N): the output is written to the
//     descriptor itself, whatever it refers to: a terminal, a pipe, or a
//     file opened by the shell with > or >> (appended to, then).
//   - a directory, or anything else: an error, before anything is written.
//
// Symbolic links are followed, to the end of the chain: the link stays
// and its target is written. A dangling link creates the file it points
// to.
//
// A named pipe must have its reader when it is opened: Create returns an
// error, never blocks, when no process has the pipe open for reading.
//
// Temporary files leave nothing behind when the process is killed while
// it writes. On Linux the output is written to an unnamed file (O_TMPFILE)
// that gets a name only once it is complete, just before the rename.
// Elsewhere, or on file systems without unnamed files, the temporary file
// is named ".NAME.tmp-XXXXXXXXXXXX" beside NAME and locked while it is
// written; the next write to NAME removes such files that no live process
// holds.
package outfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxLinks bounds the symbolic links followed for one path, as the
// kernel's own limit does (40 on Linux).
const maxLinks = 40

// kind is how an output is written.
type kind int

const (
	kindFile       kind = iota // a regular file, or none yet: staged and renamed
	kindStream                 // a device or named pipe: opened and written in place
	kindSocket                 // a Unix socket: connected to and written
	kindDescriptor             // an open descriptor of this process: written to
)

// Target describes what an output path names, as Check finds it.
type Target struct {
	// Name is the file written after following symbolic links: the
	// regular file replaced, or the device, pipe or socket written to.
	// For a descriptor of this process it is the path as given.
	Name string
	// Staged is true when the output is written to a temporary file and
	// renamed over Name (a regular file, or none yet), false when it is
	// written in place.
	Staged bool
	// Info describes the existing file at Name, nil if there is none.
	Info fs.FileInfo

	path string // as given
	kind kind
	fd   int // the descriptor, for kindDescriptor
}

// resolve follows path's symbolic links and finds what it names.
func resolve(path string) (*Target, error) {
	if path == "" {
		return nil, errors.New("cannot write an output with no name: give a file name")
	}
	name := path
	for range maxLinks {
		dir, base := filepath.Split(name)
		if base == "" || base == "." || base == ".." {
			return nil, fmt.Errorf("cannot write %s: it is a directory; give a file name", path)
		}
		dir = filepath.Clean(dir)
		rdir, err := filepath.EvalSymlinks(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("cannot write %s: directory %s does not exist; create it first", path, dir)
		case errors.Is(err, syscall.ENOTDIR):
			return nil, fmt.Errorf("cannot write %s: %s is not a directory", path, dir)
		case err != nil:
			return nil, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
		}
		if fi, err := os.Stat(rdir); err != nil {
			return nil, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
		} else if !fi.IsDir() {
			return nil, fmt.Errorf("cannot write %s: %s is not a directory", path, dir)
		}
		if fd, ok := ownDescriptor(rdir, base); ok {
			return &Target{Name: path, path: path, kind: kindDescriptor, fd: fd}, nil
		}
		p := filepath.Join(rdir, base)
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return &Target{Name: p, Staged: true, path: path, kind: kindFile}, nil
		case err != nil:
			return nil, fmt.Errorf("cannot write %s: %w", path, err)
		case fi.Mode()&fs.ModeSymlink != 0:
			if isDescriptorDir(rdir) {
				// Another process's descriptor: a link whose text need
				// not be a path ("pipe:[…]"). Streams are opened through
				// it; a regular file is followed by name below.
				if fi, err := os.Stat(p); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
					return classify(path, p, fi)
				}
			}
			dest, err := os.Readlink(p)
			if err != nil {
				return nil, fmt.Errorf("cannot write %s: %w", path, err)
			}
			if !filepath.IsAbs(dest) {
				dest = filepath.Join(rdir, dest)
			}
			name = dest
		default:
			return classify(path, p, fi)
		}
	}
	return nil, fmt.Errorf("cannot write %s: more than %d symbolic links to follow (a loop?)", path, maxLinks)
}

// classify returns the target of the file p (not a link) named by path.
func classify(path, p string, fi fs.FileInfo) (*Target, error) {
	t := &Target{Name: p, Info: fi, path: path}
	m := fi.Mode()
	switch {
	case m.IsRegular():
		t.Staged, t.kind = true, kindFile
	case m.IsDir():
		return nil, fmt.Errorf("cannot write %s: it is a directory; give a file name", path)
	case m&(fs.ModeDevice|fs.ModeCharDevice|fs.ModeNamedPipe) != 0:
		t.kind = kindStream
	case m&fs.ModeSocket != 0:
		t.kind = kindSocket
	default:
		return nil, fmt.Errorf("cannot write %s: it is not a file, a device, a pipe or a socket (mode %v)", path, m)
	}
	return t, nil
}

// Check reports what path names and whether it can be written, without
// writing anything, so that a long computation does not end in a write
// error: the directory of a regular file must take a temporary file and
// an existing file must be writable; a device, pipe or socket must be
// writable by this process; a descriptor must be open for writing. It
// returns an error for a directory or a missing directory. A named pipe
// need not have its reader yet.
func Check(path string) (*Target, error) {
	t, err := resolve(path)
	if err != nil {
		return nil, err
	}
	switch t.kind {
	case kindFile:
		if t.Info != nil {
			f, err := os.OpenFile(t.Name, os.O_WRONLY, 0) // does not truncate
			if err != nil {
				return nil, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
			}
			f.Close()
		}
		tmp, err := newTemp(filepath.Dir(t.Name), filepath.Base(t.Name))
		if err != nil {
			return nil, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
		}
		tmp.discard()
	case kindStream, kindSocket:
		if err := checkWritable(t.Name); err != nil {
			return nil, fmt.Errorf("cannot write %s: %w", path, err)
		}
	case kindDescriptor:
		if err := checkDescriptor(t.fd); err != nil {
			return nil, fmt.Errorf("cannot write %s: %w", path, err)
		}
	}
	return t, nil
}

// unwrapPath drops the operation and path of a *fs.PathError, which name
// a temporary file or repeat the path the message names already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// File is an output being written: a temporary file for a regular file,
// or the device, pipe, socket or descriptor itself. Write to it, then
// Commit it; Discard drops it. A File is not safe for concurrent use.
type File struct {
	t    *Target
	w    io.Writer
	tmp  *temp     // kindFile
	c    io.Closer // the stream, socket or duplicated descriptor; nil for stdout and stderr
	done bool      // committed or discarded
	err  error     // the first write error
}

// Create opens path for writing by the rules of the package: a regular
// file (or a new one) gets a temporary file in its directory, a device,
// named pipe, socket or descriptor is opened now (a named pipe with no
// reader is an error). Create removes the temporary files that killed
// writers of the same path left behind.
func Create(path string) (*File, error) {
	t, err := resolve(path)
	if err != nil {
		return nil, err
	}
	f := &File{t: t}
	switch t.kind {
	case kindFile:
		dir, base := filepath.Dir(t.Name), filepath.Base(t.Name)
		removeStale(dir, base)
		if f.tmp, err = newTemp(dir, base); err != nil {
			return nil, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
		}
		if t.Info != nil {
			if err := f.tmp.keepMode(t.Info); err != nil {
				f.tmp.discard()
				return nil, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
			}
		}
		f.w = f.tmp.f
	case kindStream:
		s, err := openStream(t.Name)
		if err != nil {
			return nil, fmt.Errorf("cannot write %s: %w", path, err)
		}
		f.w, f.c = s, s
	case kindSocket:
		conn, err := net.Dial("unix", t.Name)
		if err != nil {
			return nil, fmt.Errorf("cannot write %s: %w", path, err)
		}
		f.w, f.c = conn, conn
	case kindDescriptor:
		w, c, err := openDescriptor(t.fd)
		if err != nil {
			return nil, fmt.Errorf("cannot write %s: %w", path, err)
		}
		f.w, f.c = w, c
	}
	return f, nil
}

// Target returns what the File writes to.
func (f *File) Target() *Target { return f.t }

// Write writes p to the output. An error names the path.
func (f *File) Write(p []byte) (int, error) {
	if f.done {
		return 0, fmt.Errorf("cannot write %s: the output is closed", f.t.path)
	}
	n, err := f.w.Write(p)
	if err != nil {
		err = fmt.Errorf("cannot write %s: %w", f.t.path, unwrapPath(err))
		if f.err == nil {
			f.err = err
		}
	}
	return n, err
}

// Commit finishes the output: a temporary file is flushed to disk and
// renamed over the path; a stream or socket is closed. After a failed
// write, Commit discards the output and returns the write's error.
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("cannot write %s: the output is closed", f.t.path)
	}
	if f.err != nil {
		f.Discard()
		return f.err
	}
	f.done = true
	if f.tmp != nil {
		if err := f.tmp.replace(f.t.Name); err != nil {
			return fmt.Errorf("cannot write %s: %w", f.t.path, unwrapPath(err))
		}
		return nil
	}
	if f.c != nil {
		if err := f.c.Close(); err != nil {
			return fmt.Errorf("cannot write %s: %w", f.t.path, unwrapPath(err))
		}
	}
	return nil
}

// Discard drops the output: a temporary file is removed and the path is
// left as it was; a stream, which has received what was written, is
// closed. Discard after Commit does nothing.
func (f *File) Discard() {
	if f.done {
		return
	}
	f.done = true
	if f.tmp != nil {
		f.tmp.discard()
	}
	if f.c != nil {
		f.c.Close()
	}
}

// Write writes path with write, by the rules of the package: a regular
// file is replaced only once write has returned without error (on an
// error it is left as it was); a device, pipe, socket or descriptor
// receives what write writes as it writes it.
func Write(path string, write func(io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Discard()
		return err
	}
	return f.Commit()
}

// WriteNew writes a new regular file at path with write, complete or not
// at all: the file appears under its name only once write has returned
// without error. If anything exists at path (a file, a link, a device),
// WriteNew writes nothing and returns an error that satisfies
// errors.Is(err, fs.ErrExist).
func WriteNew(path string, write func(io.Writer) error) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("cannot write %s: %w", path, fs.ErrExist)
	}
	tmp, err := newTemp(dir, base)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	if err := write(tmp.f); err != nil {
		tmp.discard()
		return err
	}
	if err := tmp.link(path); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	return nil
}

// tempPrefix is the start of the names of the temporary files of the
// output base: ".base.tmp-", the base cut so that the name stays within
// the 255 bytes file systems allow.
func tempPrefix(base string) string {
	const maxBase = 255 - len("..tmp-") - 2*tempRandomBytes
	if len(base) > maxBase {
		base = base[:maxBase]
	}
	return "." + base + ".tmp-"
}

// tempRandomBytes is the number of random bytes, in hex, that end a
// temporary file's name.
const tempRandomBytes = 6

// tempName returns a new name for a temporary file of the output base.
func tempName(base string) string {
	var b [tempRandomBytes]byte
	rand.Read(b[:])
	return tempPrefix(base) + hex.EncodeToString(b[:])
}

// isTempName reports whether name is the name of a temporary file of the
// output base (tempName's pattern exactly).
func isTempName(name, base string) bool {
	prefix := tempPrefix(base)
	if !strings.HasPrefix(name, prefix) {
		return false
	}
	suffix := name[len(prefix):]
	if len(suffix) != 2*tempRandomBytes {
		return false
	}
	for _, c := range suffix {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// createNamed creates a new temporary file for base in dir, with mode
// 0666 less the umask (os.CreateTemp would make it 0600).
func createNamed(dir, base string) (*os.File, error) {
	for range 100 {
		name := filepath.Join(dir, tempName(base))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("cannot create a temporary file in %s", dir)
}

// removeStale removes the temporary files of the output base in dir that
// no live writer holds (named temporary files, which killed writers
// leave behind).
func removeStale(dir, base string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.Type().IsRegular() && isTempName(e.Name(), base) {
			removeIfAbandoned(filepath.Join(dir, e.Name()))
		}
	}
}
