//go:build unix

package outfile

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hangLimit bounds a wait that only a hang would reach; no assertion
// depends on how fast the machine is.
const hangLimit = 60 * time.Second

// writeString returns a write function that writes s.
func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

// names returns the names of dir's entries.
func names(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ns []string
	for _, e := range es {
		ns = append(ns, e.Name())
	}
	return ns
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustWrite(t *testing.T, path, content string, perm os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil {
		t.Fatal(err)
	}
}

// TestRegularFileReplaced: an existing file is replaced as a whole and
// keeps its permissions; a write that fails leaves it as it was; no
// temporary file remains either way.
func TestRegularFileReplaced(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	mustWrite(t, path, "old\n", 0o640)
	if err := Write(path, writeString("new\n")); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); got != "new\n" {
		t.Errorf("content %q, want %q", got, "new\n")
	}
	if fi, _ := os.Stat(path); fi.Mode() != 0o640 {
		t.Errorf("mode %v, want -rw-r-----", fi.Mode())
	}
	failed := errors.New("the writer failed")
	err := Write(path, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return failed
	})
	if !errors.Is(err, failed) {
		t.Errorf("Write returned %v, want the writer's error", err)
	}
	if got := readFile(t, path); got != "new\n" {
		t.Errorf("after a failed write: content %q, want %q", got, "new\n")
	}
	if ns := names(t, dir); len(ns) != 1 {
		t.Errorf("the directory holds %v, want only out.csv", ns)
	}
}

// TestSymlinksFollowed: a link (relative, absolute, or a chain of them) is
// written through: the links stay, the final target is replaced and keeps
// its permissions; a dangling link creates the file it points to.
func TestSymlinksFollowed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sub := filepath.Join(dir, "real")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(sub, "model.json")
	mustWrite(t, target, "old", 0o604)
	link1 := filepath.Join(dir, "link1")
	link2 := filepath.Join(dir, "link2")
	if err := os.Symlink("real/model.json", link1); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(link1, link2); err != nil {
		t.Fatal(err)
	}
	for i, p := range []string{link1, link2} {
		want := "new" + strconv.Itoa(i)
		if err := Write(p, writeString(want)); err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, target); got != want {
			t.Errorf("through %s: target holds %q, want %q", filepath.Base(p), got, want)
		}
		for _, l := range []string{link1, link2} {
			if fi, err := os.Lstat(l); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("%s is no longer a link (%v)", filepath.Base(l), err)
			}
		}
		if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o604 {
			t.Errorf("target mode %v, want -rw----r--", fi.Mode())
		}
	}
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink("real/new.json", dangling); err != nil {
		t.Fatal(err)
	}
	if err := Write(dangling, writeString("created")); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(sub, "new.json")); got != "created" {
		t.Errorf("dangling link's target holds %q", got)
	}
	loop := filepath.Join(dir, "loop")
	if err := os.Symlink("loop", loop); err != nil {
		t.Fatal(err)
	}
	if err := Write(loop, writeString("x")); err == nil || !strings.Contains(err.Error(), "symbolic links") {
		t.Errorf("a link to itself: %v, want an error about links", err)
	}
	if ns := names(t, dir); strings.Join(ns, " ") != "dangling link1 link2 loop real" {
		t.Errorf("the directory holds %v", ns)
	}
}

// TestNamedPipe: with no reader, Create fails at once and says why; with
// a reader, the reader gets everything. The pipe stays a pipe.
func TestNamedPipe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if _, err := Check(fifo); err != nil {
		t.Errorf("Check with no reader yet: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- Write(fifo, writeString("lost")) }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "no process is reading") {
			t.Errorf("no reader: %v, want an error saying so", err)
		}
	case <-time.After(hangLimit):
		t.Fatal("Write to a named pipe with no reader hangs")
	}

	want := strings.Repeat("0123456789abcdef\n", 1<<14)            // more than a pipe holds
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0) // a reader, not waiting for a writer
	if err != nil {
		t.Fatal(err)
	}
	written := make(chan struct{})
	got := make(chan []byte, 1)
	go func() { got <- readPipe(r, written) }()
	err = Write(fifo, writeString(want))
	close(written)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case b := <-got:
		if string(b) != want {
			t.Errorf("the reader got %d bytes, want %d", len(b), len(want))
		}
	case <-time.After(hangLimit):
		t.Fatal("the reader got no end of file")
	}
	r.Close()
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the named pipe became %v (%v)", fi.Mode(), err)
	}
}

// readPipe reads the named pipe r, opened with O_NONBLOCK so that opening
// does not wait for a writer, until the writer has closed it (written is
// closed after that): an end of file before then only means that no
// writer has opened the pipe yet.
func readPipe(r *os.File, written <-chan struct{}) []byte {
	var b []byte
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		b = append(b, buf[:n]...)
		if err == nil {
			continue
		}
		select {
		case <-written: // closed by the writer: what remains, then the end
			rest, _ := io.ReadAll(r)
			return append(b, rest...)
		default:
			time.Sleep(time.Millisecond)
		}
	}
}

// TestDescriptors: /dev/fd/N and /proc/self/fd/N write to descriptor N
// itself: a file opened for appending is appended to (not replaced, not
// overwritten from its start), a pipe carries the output. A closed or
// read-only descriptor is an error of Check.
func TestDescriptors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	mustWrite(t, path, "OLD\n", 0o644)
	before, _ := os.Stat(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fd := strconv.Itoa(int(f.Fd()))
	names := []string{"/dev/fd/" + fd}
	if runtime.GOOS == "linux" {
		names = append(names, "/proc/self/fd/"+fd, "/proc/"+strconv.Itoa(os.Getpid())+"/fd/"+fd)
	}
	want := "OLD\n"
	for _, name := range names {
		if _, err := Check(name); err != nil {
			t.Errorf("Check(%s): %v", name, err)
		}
		if err := Write(name, writeString(name+"\n")); err != nil {
			t.Fatalf("Write(%s): %v", name, err)
		}
		want += name + "\n"
	}
	if got := readFile(t, path); got != want {
		t.Errorf("the file holds %q, want %q", got, want)
	}
	if after, _ := os.Stat(path); !os.SameFile(before, after) {
		t.Error("the file was replaced")
	}
	if _, err := f.WriteString("still open\n"); err != nil {
		t.Errorf("the descriptor was closed: %v", err)
	}

	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(pr)
		got <- string(b)
	}()
	if err := Write("/dev/fd/"+strconv.Itoa(int(pw.Fd())), writeString("through the pipe")); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	if s := <-got; s != "through the pipe" {
		t.Errorf("the pipe carried %q", s)
	}
	pr.Close()

	ro, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	rofd := int(ro.Fd())
	if _, err := Check("/dev/fd/" + strconv.Itoa(rofd)); err == nil || !strings.Contains(err.Error(), "reading only") {
		t.Errorf("a read-only descriptor: %v", err)
	}
	ro.Close()
	if _, err := Check("/dev/fd/" + strconv.Itoa(rofd)); err == nil || !strings.Contains(err.Error(), "not open") {
		t.Errorf("a closed descriptor: %v", err)
	}
}

// TestSocket: a Unix socket is connected to and written, not replaced.
func TestSocket(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sock := filepath.Join(dir, "s")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("listen: %v", err)
	}
	defer l.Close()
	got := make(chan string, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(c)
		c.Close()
		got <- string(b)
	}()
	if err := Write(sock, writeString("to the socket")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "to the socket" {
		t.Errorf("the listener got %q", s)
	}
	if fi, err := os.Lstat(sock); err != nil || fi.Mode()&fs.ModeSocket == 0 {
		t.Errorf("the socket became %v (%v)", fi.Mode(), err)
	}
}

// TestNotWritable: a directory, a missing directory and a path under a
// regular file are errors of Check and Create, and nothing is written.
func TestNotWritable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "file.txt")
	mustWrite(t, file, "keep", 0o644)
	for _, tc := range []struct{ path, want string }{
		{dir, "is a directory"},
		{dir + "/", "is a directory"},
		{filepath.Join(dir, "missing", "out.csv"), "does not exist"},
		{filepath.Join(file, "out.csv"), "file.txt is not a directory"},
		{"", "no name"},
	} {
		if _, err := Check(tc.path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Check(%q): %v, want %q", tc.path, err, tc.want)
		}
		if err := Write(tc.path, writeString("x")); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Write(%q): %v, want %q", tc.path, err, tc.want)
		}
	}
	if ns := names(t, dir); strings.Join(ns, " ") != "file.txt" {
		t.Errorf("the directory holds %v", ns)
	}
	if got := readFile(t, file); got != "keep" {
		t.Errorf("file.txt holds %q", got)
	}
}

// TestWriteNew: WriteNew creates a file and never replaces anything.
func TestWriteNew(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "fig-001.png")
	if err := WriteNew(path, writeString("first")); err != nil {
		t.Fatal(err)
	}
	if err := WriteNew(path, writeString("second")); !errors.Is(err, fs.ErrExist) {
		t.Errorf("WriteNew over a file: %v, want fs.ErrExist", err)
	}
	link := filepath.Join(dir, "fig-002.png")
	if err := os.Symlink("nowhere", link); err != nil {
		t.Fatal(err)
	}
	if err := WriteNew(link, writeString("third")); !errors.Is(err, fs.ErrExist) {
		t.Errorf("WriteNew over a dangling link: %v, want fs.ErrExist", err)
	}
	if got := readFile(t, path); got != "first" {
		t.Errorf("the file holds %q", got)
	}
	if ns := names(t, dir); strings.Join(ns, " ") != "fig-001.png fig-002.png" {
		t.Errorf("the directory holds %v", ns)
	}
}

// The child process of TestKilledWrite and TestStaleTemporaries: it
// starts writing $OUTFILE_CHILD_PATH, says "writing" on stdout and waits
// to be killed. With $OUTFILE_CHILD_NAMED it writes through a named
// temporary file, as on systems without unnamed ones.
func TestChildWriter(t *testing.T) {
	path := os.Getenv("OUTFILE_CHILD_PATH")
	if path == "" {
		t.Skip("the child process of TestKilledWrite")
	}
	write := func(w io.Writer) error {
		io.WriteString(w, "half a model")
		os.Stdout.WriteString("writing\n")
		time.Sleep(time.Hour)
		return nil
	}
	if os.Getenv("OUTFILE_CHILD_NAMED") != "" {
		tmp, err := newNamedTemp(filepath.Dir(path), filepath.Base(path))
		if err != nil {
			t.Fatal(err)
		}
		write(tmp.f)
		return
	}
	if err := Write(path, write); err != nil {
		t.Fatal(err)
	}
}

// startWriter starts a child process writing path and returns once it is
// writing.
func startWriter(t *testing.T, path string, named bool) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildWriter$", "-test.count=1")
	cmd.Env = append(os.Environ(), "OUTFILE_CHILD_PATH="+path)
	if named {
		cmd.Env = append(cmd.Env, "OUTFILE_CHILD_NAMED=1")
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(out).ReadString('\n')
		line <- s
	}()
	select {
	case s := <-line:
		if s != "writing\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the child said %q", s)
		}
	case <-time.After(hangLimit):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("the child did not start writing")
	}
	return cmd
}

// kill ends the child with SIGKILL, which no program can catch.
func kill(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
}

// TestKilledWrite: a writer killed in the middle of a write leaves the
// output as it was and, on Linux (unnamed temporary files), nothing else
// behind.
func TestKilledWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "p.csv")
	mustWrite(t, path, "old", 0o644)
	kill(t, startWriter(t, path, false))
	if got := readFile(t, path); got != "old" {
		t.Errorf("p.csv holds %q after the killed write", got)
	}
	if runtime.GOOS == "linux" {
		if ns := names(t, dir); strings.Join(ns, " ") != "p.csv" {
			t.Errorf("the killed write left %v", ns)
		}
	}
}

// TestStaleTemporaries: a named temporary file that a killed writer left
// behind is removed by the next write to the same output; one that a
// live writer holds is not.
func TestStaleTemporaries(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "p.csv")
	other := filepath.Join(dir, ".q.csv.tmp-0123456789ab") // another output's
	mustWrite(t, other, "q", 0o644)
	temps := func() []string {
		var ts []string
		for _, n := range names(t, dir) {
			if isTempName(n, "p.csv") {
				ts = append(ts, n)
			}
		}
		return ts
	}

	live := startWriter(t, path, true)
	defer kill(t, live)
	held := temps()
	if len(held) != 1 {
		t.Fatalf("the live writer's temporary files: %v, want one", held)
	}
	if err := Write(path, writeString("one")); err != nil {
		t.Fatal(err)
	}
	if ts := temps(); strings.Join(ts, " ") != held[0] {
		t.Errorf("with a live writer the temporaries are %v, want %v", ts, held)
	}

	kill(t, startWriter(t, path, true))
	if ts := temps(); len(ts) != 2 {
		t.Fatalf("temporaries %v, want the live writer's and the killed one's", ts)
	}
	if err := Write(path, writeString("two")); err != nil {
		t.Fatal(err)
	}
	if ts := temps(); strings.Join(ts, " ") != held[0] {
		t.Errorf("after the next write the temporaries are %v, want the live writer's %v", ts, held)
	}
	if got := readFile(t, path); got != "two" {
		t.Errorf("p.csv holds %q", got)
	}
	if got := readFile(t, other); got != "q" {
		t.Errorf("another output's temporary file was touched: %q", got)
	}
}
