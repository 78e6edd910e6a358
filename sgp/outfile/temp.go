package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// temp is the temporary file of an output: unnamed until it is complete
// where the system allows (name is "" then), named and locked otherwise.
type temp struct {
	f         *os.File
	dir, base string
	name      string // the temporary file's path; "" while it has none
}

// newTemp creates a temporary file for the output base in dir: unnamed if
// the system allows it, named (tempName) and locked otherwise.
func newTemp(dir, base string) (*temp, error) {
	if f, err := openUnnamed(dir); err == nil {
		if err := lockFile(f); err != nil {
			f.Close()
			return nil, err
		}
		return &temp{f: f, dir: dir, base: base}, nil
	} else if !errors.Is(err, errNoUnnamed) {
		return nil, err
	}
	return newNamedTemp(dir, base)
}

// newNamedTemp creates a named temporary file for the output base in dir
// (tempName) and locks it.
func newNamedTemp(dir, base string) (*temp, error) {
	for range 100 {
		f, err := createNamed(dir, base)
		if err != nil {
			return nil, err
		}
		if err := lockFile(f); err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, err
		}
		// A writer to the same output may have taken the new file for an
		// abandoned one (removeStale) before it was locked: then it is
		// gone, and a new one is made.
		if fi, err := f.Stat(); err == nil {
			if li, err := os.Lstat(f.Name()); err == nil && os.SameFile(fi, li) {
				return &temp{f: f, dir: dir, base: base, name: f.Name()}, nil
			}
		}
		f.Close()
	}
	return nil, fmt.Errorf("cannot create a temporary file in %s", dir)
}

// keepMode gives the temporary file the permissions of the file it
// replaces, and its owner and group where the process may set them.
func (t *temp) keepMode(fi fs.FileInfo) error {
	keepOwner(t.f, fi)
	return t.f.Chmod(fi.Mode().Perm())
}

// named gives an unnamed temporary file a name in its directory.
func (t *temp) named() error {
	if t.name != "" {
		return nil
	}
	for range 100 {
		name := filepath.Join(t.dir, tempName(t.base))
		err := linkUnnamed(t.f, name)
		if err == nil {
			t.name = name
			return nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	return fmt.Errorf("cannot name a temporary file in %s", t.dir)
}

// replace flushes the temporary file to disk and renames it over target;
// on an error it is removed and target is left as it was.
func (t *temp) replace(target string) error {
	defer t.discard()
	if err := t.f.Sync(); err != nil {
		return err
	}
	if err := t.named(); err != nil {
		return err
	}
	if err := os.Rename(t.name, target); err != nil {
		return err
	}
	t.name = ""
	return nil
}

// link flushes the temporary file to disk and links it at target, which
// must not exist (an error satisfying errors.Is(err, fs.ErrExist) if it
// does); the temporary file is removed either way.
func (t *temp) link(target string) error {
	defer t.discard()
	if err := t.f.Sync(); err != nil {
		return err
	}
	if t.name == "" {
		return linkUnnamed(t.f, target)
	}
	err := os.Link(t.name, target)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	// A file system without hard links: rename, if target is still free.
	if _, lerr := os.Lstat(target); lerr == nil {
		return fs.ErrExist
	}
	if err := os.Rename(t.name, target); err != nil {
		return err
	}
	t.name = ""
	return nil
}

// discard closes the temporary file, which releases its lock, and removes
// it if it has a name.
func (t *temp) discard() {
	if t.name != "" {
		os.Remove(t.name)
		t.name = ""
	}
	t.f.Close()
}
