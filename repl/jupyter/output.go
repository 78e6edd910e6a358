package jupyter

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// The kernel's output streams. Text printed by a cell is gathered and
// published as stream messages (stdout, stderr) at most every
// streamDelay, and at once before anything else the cell shows: a
// display, its value, its error, the end of the cell.
//
// With CaptureFDs, file descriptors 1 and 2 are pipes read by the kernel,
// so that compiled code printing to os.Stdout reaches the notebook as
// well; the interpreter then prints there too, and one path keeps the
// order of everything printed. To know that all that was written before
// a point has been read, sync writes a marker to each pipe and waits
// until its reader has seen it.

// streamDelay is the longest time printed text waits before it is
// published (unless more than maxBuffered is waiting: then at once).
const streamDelay = 100 * time.Millisecond

// maxStreamText is the most text one stream message carries: a cell that
// prints megabytes is published in several messages, which clients
// render as they come.
const maxStreamText = 1 << 20

// maxBuffered is how much printed text may wait for publication: a
// writer that would leave more publishes it itself before it returns, so
// that a cell printing faster than the messages go out is slowed down to
// their pace (and, through the captured pipes, so is compiled code)
// rather than the kernel holding all of it.
const maxBuffered = 4 << 20

// markerPrefix starts a sync marker in a captured pipe: NUL bytes do not
// occur in text.
var markerPrefix = []byte("\x00sgprepl-sync:")

// kernelOutput gathers and publishes a kernel's output streams.
type kernelOutput struct {
	k *kernel

	// flushMu is held by flush from taking the text out of buf until it
	// has been published, so that text is published in the order it was
	// printed, all of it before whatever sync's caller publishes next (a
	// cell's value, its idle status).
	flushMu sync.Mutex

	mu     sync.Mutex
	parent *message          // the request output is attributed to
	buf    map[string][]byte // by stream name
	timer  *time.Timer       // the pending flush, or nil

	// Captured file descriptors: the pipes' readers, the original
	// descriptors (for restoring), the sync markers.
	pipes   []*capturedFD
	syncSeq int

	last string // the stream the session last wrote to
}

// capturedFD is a file descriptor redirected to a pipe.
type capturedFD struct {
	fd     int    // 1 or 2
	name   string // stdout or stderr
	orig   int    // a duplicate of the original descriptor
	r, w   *os.File
	file   *os.File                 // os.Stdout or os.Stderr
	acks   map[string]chan struct{} // pending markers, by id
	ackMu  sync.Mutex
	closed chan struct{}
}

func newKernelOutput(k *kernel) *kernelOutput {
	return &kernelOutput{k: k, buf: map[string][]byte{}}
}

// setParent attributes the output from now on to request m, after
// publishing what was printed before.
func (o *kernelOutput) setParent(m *message) {
	o.sync()
	o.mu.Lock()
	o.parent = m
	o.mu.Unlock()
}

func (o *kernelOutput) parentMessage() *message {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.parent
}

// writer returns a writer to the stream name ("stdout" or "stderr").
// While file descriptors are captured it writes to the captured
// descriptor, so that what the interpreter prints and what compiled code
// prints take one path and keep their order.
func (o *kernelOutput) writer(name string) io.Writer {
	return streamWriter{o, name}
}

type streamWriter struct {
	o    *kernelOutput
	name string
}

func (w streamWriter) Write(p []byte) (int, error) {
	// Text of the other stream goes first: a fit's warning (stderr) then
	// the cell's next print (stdout) keep their order, which one flush of
	// both buffers, or the two pipes' readers, would not.
	w.o.mu.Lock()
	switched := w.o.last != "" && w.o.last != w.name
	w.o.last = w.name
	w.o.mu.Unlock()
	if switched {
		w.o.sync()
	}
	if f := w.o.capturedFile(w.name); f != nil {
		return f.Write(p)
	}
	w.o.write(w.name, p)
	return len(p), nil
}

// capturedFile returns os.Stdout or os.Stderr if the descriptor of stream
// name is captured, or nil.
func (o *kernelOutput) capturedFile(name string) *os.File {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, p := range o.pipes {
		if p.name == name {
			return p.file
		}
	}
	return nil
}

// write adds text to a stream and schedules its publication; with more
// than maxBuffered waiting it publishes it before returning.
func (o *kernelOutput) write(name string, p []byte) {
	if len(p) == 0 {
		return
	}
	o.mu.Lock()
	o.buf[name] = append(o.buf[name], p...)
	full := len(o.buf[name]) > maxBuffered
	if o.timer == nil && !full {
		o.timer = time.AfterFunc(streamDelay, o.flush)
	}
	o.mu.Unlock()
	if full {
		o.flush()
	}
}

// flush publishes the gathered text, each stream in messages of at most
// maxStreamText bytes. A UTF-8 sequence cut at the end of a buffer waits
// for its rest. Flushes do not overlap (flushMu).
func (o *kernelOutput) flush() {
	o.flushMu.Lock()
	defer o.flushMu.Unlock()
	o.mu.Lock()
	if o.timer != nil {
		o.timer.Stop()
		o.timer = nil
	}
	parent := o.parent
	type chunk struct{ name, text string }
	var chunks []chunk
	for _, name := range []string{"stdout", "stderr"} {
		b := o.buf[name]
		n := completeUTF8(b)
		if n == 0 {
			continue
		}
		chunks = append(chunks, chunk{name, string(b[:n])})
		o.buf[name] = append([]byte(nil), b[n:]...)
	}
	o.mu.Unlock()
	for _, c := range chunks {
		for text := c.text; text != ""; {
			n := len(text)
			if n > maxStreamText {
				n = maxStreamText
				for n > 0 && !utf8.RuneStart(text[n]) {
					n--
				}
			}
			o.k.publish("stream", parent, map[string]any{"name": c.name, "text": text[:n]})
			text = text[n:]
		}
	}
}

// completeUTF8 returns the length of b without an incomplete UTF-8
// sequence at its end (at most 3 bytes).
func completeUTF8(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}

// sync publishes everything printed so far: it waits for the captured
// pipes to be read up to this point, then flushes.
func (o *kernelOutput) sync() {
	o.mu.Lock()
	pipes := o.pipes
	o.syncSeq++
	id := strconv.Itoa(o.syncSeq)
	o.mu.Unlock()
	for _, p := range pipes {
		p.sync(id)
	}
	o.flush()
}

// captureFDs redirects file descriptors 1 and 2 to pipes read by the
// kernel. The kernel's log, and the Go runtime's report of a crash, go
// to the original standard error.
func (o *kernelOutput) captureFDs() error {
	for _, f := range []struct {
		fd   int
		name string
		file *os.File
	}{{1, "stdout", os.Stdout}, {2, "stderr", os.Stderr}} {
		r, w, err := os.Pipe()
		if err != nil {
			o.restoreFDs()
			return fmt.Errorf("kernel: capturing %s: %w", f.name, err)
		}
		orig, err := redirectFD(f.fd, w)
		if err != nil {
			r.Close()
			w.Close()
			o.restoreFDs()
			return fmt.Errorf("kernel: capturing %s: %w", f.name, err)
		}
		p := &capturedFD{fd: f.fd, name: f.name, orig: orig, r: r, w: w, file: f.file,
			acks: map[string]chan struct{}{}, closed: make(chan struct{})}
		o.mu.Lock()
		o.pipes = append(o.pipes, p)
		o.mu.Unlock()
		go o.read(p)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, p := range o.pipes {
		if p.fd == 2 {
			origErr := os.NewFile(uintptr(p.orig), "stderr")
			if o.k.log == io.Writer(os.Stderr) {
				o.k.log = origErr
			}
			debug.SetCrashOutput(origErr, debug.CrashOptions{})
		}
	}
	return nil
}

// restoreFDs puts the original file descriptors back.
func (o *kernelOutput) restoreFDs() {
	o.sync()
	o.mu.Lock()
	pipes := o.pipes
	o.pipes = nil
	o.mu.Unlock()
	for _, p := range pipes {
		restoreFD(p.fd, p.orig)
		p.w.Close() // the reader sees the end once fd is restored
	}
}

// read reads a captured pipe, passing text to the stream and
// acknowledging sync markers.
func (o *kernelOutput) read(p *capturedFD) {
	defer close(p.closed)
	var pending []byte
	buf := make([]byte, 32*1024)
	for {
		n, err := p.r.Read(buf)
		pending = append(pending, buf[:n]...)
		pending = o.scan(p, pending)
		if err != nil {
			o.write(p.name, pending)
			return
		}
	}
}

// scan passes the text of pending up to any sync marker to the stream,
// acknowledges complete markers, and returns what must wait for more
// input: an incomplete marker at the end.
func (o *kernelOutput) scan(p *capturedFD, pending []byte) []byte {
	for {
		i := bytes.Index(pending, markerPrefix)
		if i < 0 {
			break
		}
		rest := pending[i+len(markerPrefix):]
		j := bytes.IndexByte(rest, 0)
		if j < 0 {
			o.write(p.name, pending[:i])
			return append([]byte(nil), pending[i:]...)
		}
		o.write(p.name, pending[:i])
		p.ack(string(rest[:j]))
		pending = rest[j+1:]
	}
	// Keep a tail that may be the start of a marker.
	keep := 0
	for l := len(markerPrefix) - 1; l > 0; l-- {
		if l <= len(pending) && bytes.HasSuffix(pending, markerPrefix[:l]) {
			keep = l
			break
		}
	}
	o.write(p.name, pending[:len(pending)-keep])
	return append([]byte(nil), pending[len(pending)-keep:]...)
}

// sync writes marker id to the pipe and waits until its reader has seen
// it, however long that takes: everything written before the marker is
// then in the kernel's buffer. There is no timeout, which would let text
// still in the pipe be published after the cell's end (and a client
// stops collecting a cell's output at its idle status); the reader only
// waits for the publication of what it has read (write), so the wait
// ends unless the reader has stopped (closed).
func (p *capturedFD) sync(id string) {
	ch := make(chan struct{})
	p.ackMu.Lock()
	p.acks[id] = ch
	p.ackMu.Unlock()
	marker := append(append(append([]byte(nil), markerPrefix...), id...), 0)
	if _, err := p.file.Write(marker); err != nil {
		return
	}
	select {
	case <-ch:
	case <-p.closed:
	}
	p.ackMu.Lock()
	delete(p.acks, id)
	p.ackMu.Unlock()
}

func (p *capturedFD) ack(id string) {
	p.ackMu.Lock()
	ch := p.acks[id]
	delete(p.acks, id)
	p.ackMu.Unlock()
	if ch != nil {
		close(ch)
	}
}
