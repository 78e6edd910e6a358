package jupyter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/cholqr/sgp/repl"

	"github.com/go-zeromq/zmq4"
)

// A Jupyter kernel on a Session: `sgprepl kernel CONNECTION_FILE`. It
// speaks the messaging protocol 5.3 on five ZeroMQ sockets (pure Go,
// github.com/go-zeromq/zmq4): shell and control (ROUTER) take requests,
// stdin (ROUTER) asks the front end for input, iopub (PUB) broadcasts
// status and outputs, and heartbeat (REP) echoes. Requests on shell run
// one after the other; control runs beside them, so that an interrupt or
// a shutdown reaches a running cell.
//
// Every request is framed by a busy and an idle status, published even
// when its handler fails. Errors in cells, panics included, become error
// outputs; the kernel only stops on a shutdown request (or when the
// process that started it goes away).

// kernelOptions configures a kernel.
type kernelOptions struct {
	// Formats are the renderings of values besides text (Options.Formats).
	Formats []string
	// CaptureFDs redirects file descriptors 1 and 2 of the process to the
	// notebook, so that compiled code writing to os.Stdout (a model's
	// WithProgress(os.Stdout), a library's log) is seen too. Only the
	// kernel command sets it: it changes the whole process.
	CaptureFDs bool
	// Log receives the kernel's own diagnostics; nil discards them.
	Log io.Writer
	// ParentPID, if not 0, is the process that started the kernel
	// (JPY_PARENT_PID); the kernel stops when it is gone.
	ParentPID int
	// StopGrace is Options.StopGrace of the sessions (0: the default).
	StopGrace time.Duration
}

// kernel is a running Jupyter kernel.
type kernel struct {
	opts    kernelOptions
	conn    *connectionInfo
	sig     signer
	session string // the kernel's session id, in the headers it sends
	log     io.Writer

	sess     *repl.Session
	out      *kernelOutput
	in       *kernelStdin
	progress *cellProgress

	shell, control, stdin, iopub, hb zmq4.Socket
	sendMu                           sync.Mutex // one send at a time

	inputReplies chan *message // input_reply messages from the stdin socket

	// failed is when the last execute request that failed with
	// stop_on_error failed, taken before its reply was sent: the requests
	// received before it are aborted (abortQueued). Only the shell
	// channel's goroutine uses it.
	failed time.Time

	mu         sync.Mutex
	count      int                // execution counter
	history    []historyItem      // executed cells, for history_request
	cancelCell context.CancelFunc // stops the running cell, or nil
	inputReq   *message           // the running execute request if it allows stdin
	cellCtx    context.Context    // the running cell's context
	done       chan struct{}      // closed when the kernel stops
	stopOnce   sync.Once
	restart    bool // the shutdown request asked for a restart
}

// historyItem is an executed cell.
type historyItem struct {
	line          int
	input, output string
}

// newKernel returns a kernel for the connection file's sockets, with a
// new session. It does not listen yet.
func newKernel(conn *connectionInfo, opts kernelOptions) (*kernel, error) {
	k := &kernel{
		opts:         opts,
		conn:         conn,
		sig:          signer{key: []byte(conn.Key), history: newDigestHistory(1 << 16)},
		session:      newID(),
		log:          opts.Log,
		inputReplies: make(chan *message, 4),
		done:         make(chan struct{}),
	}
	if k.log == nil {
		k.log = io.Discard
	}
	k.out = newKernelOutput(k)
	k.in = &kernelStdin{k: k}
	k.progress = &cellProgress{k: k}
	if err := k.newSession(); err != nil {
		return nil, err
	}
	return k, nil
}

// newSession starts a fresh Session whose output goes to the notebook.
func (k *kernel) newSession() error {
	stdout, stderr := k.out.writer("stdout"), k.out.writer("stderr")
	formats := k.opts.Formats
	if formats == nil {
		formats = []string{"png", "html"}
	}
	s, err := repl.New(repl.Options{
		Stdout:     stdout,
		Stderr:     stderr,
		Stdin:      k.in,
		OnDisplay:  k.display,
		OnProgress: k.progress.report,
		Formats:    formats,
		StopGrace:  k.opts.StopGrace,
	})
	if err != nil {
		return err
	}
	k.sess = s
	return nil
}

// listen binds the five sockets, through the transports that bound the
// size of the messages they receive (limit.go).
func (k *kernel) listen(ctx context.Context) error {
	ctx = context.WithValue(ctx, rejectKey{}, func(msg string) { fmt.Fprintln(k.log, msg) })
	k.shell = zmq4.NewRouter(ctx)
	k.control = zmq4.NewRouter(ctx)
	k.stdin = zmq4.NewRouter(ctx)
	k.iopub = zmq4.NewPub(ctx)
	k.hb = zmq4.NewRep(ctx)
	for _, s := range []struct {
		name string
		sock zmq4.Socket
		port int
	}{
		{"shell", k.shell, k.conn.ShellPort},
		{"control", k.control, k.conn.ControlPort},
		{"stdin", k.stdin, k.conn.StdinPort},
		{"iopub", k.iopub, k.conn.IOPubPort},
		{"heartbeat", k.hb, k.conn.HBPort},
	} {
		if err := s.sock.Listen(k.conn.limitedEndpoint(s.port)); err != nil {
			return fmt.Errorf("kernel: %s socket on %s: %w", s.name, k.conn.endpoint(s.port), err)
		}
	}
	return nil
}

// run serves requests until a shutdown request, and reports whether a
// restart was asked for.
func (k *kernel) run(ctx context.Context) (restart bool, err error) {
	sockCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := k.listen(sockCtx); err != nil {
		k.closeSockets()
		return false, err
	}
	defer k.closeSockets()
	if k.opts.CaptureFDs {
		if err := k.out.captureFDs(); err != nil {
			// The kernel still works; only what compiled code writes to
			// the process's own output does not reach the notebook.
			fmt.Fprintf(k.log, "kernel: %v; running without it\n", err)
		} else {
			defer k.out.restoreFDs()
		}
	}

	go k.heartbeat()
	shellCh := make(chan *message, 64)
	controlCh := make(chan *message, 16)
	stdinCh := make(chan *message, 4)
	go k.receive("shell", k.shell, shellCh)
	go k.receive("control", k.control, controlCh)
	go k.receive("stdin", k.stdin, stdinCh)
	go func() {
		for m := range stdinCh {
			if m.Header.MsgType != "input_reply" {
				fmt.Fprintf(k.log, "kernel: ignoring %s on the stdin channel\n", m.Header.MsgType)
				continue
			}
			select {
			case k.inputReplies <- m:
			default: // nobody asked
			}
		}
	}()
	go func() {
		for m := range controlCh {
			k.handle(k.control, m)
		}
	}()
	go func() {
		for m := range shellCh {
			if k.handle(k.shell, m) {
				k.abortQueued(shellCh, k.failed)
			}
		}
	}()
	if k.opts.ParentPID > 0 {
		go k.watchParent(k.opts.ParentPID)
	}
	k.publish("status", nil, map[string]any{"execution_state": "starting"})
	fmt.Fprintf(k.log, "kernel: listening on %s (shell %d, iopub %d)\n", k.conn.IP, k.conn.ShellPort, k.conn.IOPubPort)

	select {
	case <-k.done:
	case <-ctx.Done():
		k.stop(false)
	}
	k.interrupt()
	// The last replies and statuses are queued on the sockets; give them
	// a moment to leave before the sockets close.
	time.Sleep(100 * time.Millisecond)
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.restart, nil
}

// stop ends the kernel.
func (k *kernel) stop(restart bool) {
	k.stopOnce.Do(func() {
		k.mu.Lock()
		k.restart = restart
		k.mu.Unlock()
		close(k.done)
	})
}

// watchParent stops the kernel when the process that started it is gone,
// so that a kernel does not outlive a front end that was killed.
func (k *kernel) watchParent(pid int) {
	if !processAlive(pid) {
		return // not a process we can watch
	}
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-k.done:
			return
		case <-t.C:
			if !processAlive(pid) {
				fmt.Fprintf(k.log, "kernel: parent process %d is gone; stopping\n", pid)
				k.stop(false)
				return
			}
		}
	}
}

func (k *kernel) closeSockets() {
	for _, s := range []zmq4.Socket{k.shell, k.control, k.stdin, k.iopub, k.hb} {
		if s != nil {
			s.Close()
		}
	}
}

// heartbeat echoes every heartbeat message.
func (k *kernel) heartbeat() {
	for {
		m, err := k.hb.Recv()
		if err != nil {
			if k.stopped() {
				return
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if err := k.hb.Send(m); err != nil && k.stopped() {
			return
		}
	}
}

func (k *kernel) stopped() bool {
	select {
	case <-k.done:
		return true
	default:
		return false
	}
}

// receive reads messages from sock, decodes and verifies them, and passes
// them on to ch, which it closes when the kernel stops.
func (k *kernel) receive(name string, sock zmq4.Socket, ch chan<- *message) {
	defer close(ch)
	for {
		raw, err := sock.Recv()
		if k.stopped() {
			return
		}
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return
			}
			fmt.Fprintf(k.log, "kernel: %s: receive: %v\n", name, err)
			time.Sleep(10 * time.Millisecond)
			continue
		}
		m, err := k.sig.decode(raw.Frames)
		if err != nil {
			fmt.Fprintf(k.log, "kernel: %s: dropping a message: %v\n", name, err)
			continue
		}
		m.received = time.Now()
		select {
		case ch <- m:
		case <-k.done:
			return
		}
	}
}

// newMessage returns a message of type msgType in reply to parent (which
// may be nil) with the given content.
func (k *kernel) newMessage(msgType string, parent *message, content any) *message {
	c, err := json.Marshal(content)
	if err != nil {
		c, _ = json.Marshal(map[string]any{"status": "error", "ename": "EncodingError", "evalue": err.Error(), "traceback": []string{}})
	}
	m := &message{
		Header: header{
			MsgID:    newID(),
			Session:  k.session,
			Username: "kernel",
			Date:     isoNow(),
			MsgType:  msgType,
			Version:  protocolVersion,
		},
		Content: c,
	}
	if parent != nil {
		m.Parent = parent.rawHeader
	}
	return m
}

// send signs and sends m on sock.
func (k *kernel) send(sock zmq4.Socket, m *message) {
	frames, err := k.sig.encode(m)
	if err != nil {
		fmt.Fprintf(k.log, "kernel: encoding %s: %v\n", m.Header.MsgType, err)
		return
	}
	k.sendMu.Lock()
	defer k.sendMu.Unlock()
	if err := sock.SendMulti(zmq4.NewMsgFrom(frames...)); err != nil && !k.stopped() {
		fmt.Fprintf(k.log, "kernel: sending %s: %v\n", m.Header.MsgType, err)
	}
}

// reply sends a reply to req on sock, back to the peer that sent it.
func (k *kernel) reply(sock zmq4.Socket, req *message, msgType string, content any) {
	m := k.newMessage(msgType, req, content)
	m.Identities = req.Identities
	m.Metadata = json.RawMessage(`{}`)
	k.send(sock, m)
}

// publish broadcasts a message on iopub; the topic frame is its type, as
// ipykernel does.
func (k *kernel) publish(msgType string, parent *message, content any) {
	m := k.newMessage(msgType, parent, content)
	m.Identities = [][]byte{[]byte("kernel." + k.session[:8] + "." + msgType)}
	k.send(k.iopub, m)
}

func (k *kernel) publishStatus(state string, parent *message) {
	k.publish("status", parent, map[string]any{"execution_state": state})
}
