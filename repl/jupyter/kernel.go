package jupyter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

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

	sess *repl.Session
	out  *kernelOutput
	in   *kernelStdin

	shell, control, stdin, iopub, hb zmq4.Socket
	sendMu                           sync.Mutex // one send at a time

	inputReplies chan *message // input_reply messages from the stdin socket

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
		Stdout:    stdout,
		Stderr:    stderr,
		Stdin:     k.in,
		OnDisplay: k.display,
		Formats:   formats,
		StopGrace: k.opts.StopGrace,
	})
	if err != nil {
		return err
	}
	k.sess = s
	return nil
}

// listen binds the five sockets.
func (k *kernel) listen(ctx context.Context) error {
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
		if err := s.sock.Listen(k.conn.endpoint(s.port)); err != nil {
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
				k.abortQueued(shellCh, time.Now())
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

// handle handles one request from sock between a busy and an idle status.
// It reports whether the request was a cell that failed with
// stop_on_error, after which the execute requests queued on the shell
// channel are aborted.
func (k *kernel) handle(sock zmq4.Socket, m *message) (abort bool) {
	k.publishStatus("busy", m)
	defer k.publishStatus("idle", m)
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(k.log, "kernel: %s handler panicked: %v\n%s", m.Header.MsgType, r, debug.Stack())
			if strings.HasSuffix(m.Header.MsgType, "_request") {
				k.reply(sock, m, replyType(m.Header.MsgType), errorContent("InternalError", fmt.Sprint(r)))
			}
		}
	}()
	switch t := m.Header.MsgType; t {
	case "kernel_info_request":
		k.reply(sock, m, "kernel_info_reply", k.kernelInfo())
	case "execute_request":
		if sock != k.shell {
			k.reply(sock, m, "execute_reply", errorContent("ChannelError", "execute_request is served on the shell channel only"))
			return false
		}
		return k.execute(m)
	case "is_complete_request":
		k.isComplete(sock, m)
	case "complete_request":
		k.complete(sock, m)
	case "inspect_request":
		k.inspect(sock, m)
	case "history_request":
		k.historyReply(sock, m)
	case "comm_info_request":
		k.reply(sock, m, "comm_info_reply", map[string]any{"status": "ok", "comms": map[string]any{}})
	case "comm_open":
		// No comm targets exist: close it at once, as ipykernel does.
		var c struct {
			CommID string `json:"comm_id"`
		}
		json.Unmarshal(m.Content, &c)
		k.publish("comm_close", m, map[string]any{"comm_id": c.CommID, "data": map[string]any{}})
	case "comm_msg", "comm_close":
		// Nothing listens.
	case "interrupt_request":
		k.interrupt()
		k.reply(sock, m, "interrupt_reply", map[string]any{"status": "ok"})
	case "shutdown_request":
		var c struct {
			Restart bool `json:"restart"`
		}
		json.Unmarshal(m.Content, &c)
		content := map[string]any{"status": "ok", "restart": c.Restart}
		k.reply(sock, m, "shutdown_reply", content)
		k.publish("shutdown_reply", m, content)
		k.interrupt()
		k.stop(c.Restart)
	default:
		if strings.HasSuffix(t, "_request") {
			k.reply(sock, m, replyType(t), errorContent("UnknownMessageType", fmt.Sprintf("the sgp kernel does not handle %s", t)))
			return false
		}
		fmt.Fprintf(k.log, "kernel: ignoring a %s message\n", t)
	}
	return false
}

// replyType returns the reply type of a request type.
func replyType(requestType string) string {
	return strings.TrimSuffix(requestType, "_request") + "_reply"
}

// errorContent is the content of an error reply.
func errorContent(ename, evalue string) map[string]any {
	return map[string]any{"status": "error", "ename": ename, "evalue": evalue, "traceback": []string{ename + ": " + evalue}}
}

// kernelVersion is the kernel's implementation version.
const kernelVersion = "0.1"

func (k *kernel) kernelInfo() map[string]any {
	return map[string]any{
		"status":                 "ok",
		"protocol_version":       protocolVersion,
		"implementation":         "sgprepl",
		"implementation_version": kernelVersion,
		"language_info": map[string]any{
			"name":               "go",
			"version":            strings.TrimPrefix(runtime.Version(), "go"),
			"mimetype":           "text/x-go",
			"file_extension":     ".go",
			"pygments_lexer":     "go",
			"codemirror_mode":    "go",
			"nbconvert_exporter": "",
		},
		"banner": "sgp: sparse Gaussian-process regression by CholQR, on the yaegi Go interpreter.\n" +
			"Imported: fmt, math, sgp, mat (gonum/mat), display. A value with a PNG method shows as an image.",
		"help_links": []map[string]string{
			{"text": "sgp on pkg.go.dev", "url": "https://pkg.go.dev/github.com/cholqr/sgp/sgp"},
			{"text": "yaegi", "url": "https://github.com/traefik/yaegi"},
		},
		"debugger": false,
	}
}

// executeRequest is the content of an execute_request.
type executeRequest struct {
	Code            string            `json:"code"`
	Silent          bool              `json:"silent"`
	StoreHistory    *bool             `json:"store_history"`
	UserExpressions map[string]string `json:"user_expressions"`
	AllowStdin      bool              `json:"allow_stdin"`
	StopOnError     *bool             `json:"stop_on_error"`
}

// execute runs an execute request and reports whether it failed with
// stop_on_error set, so that the requests queued after it are aborted.
func (k *kernel) execute(m *message) (abort bool) {
	var req executeRequest
	if err := json.Unmarshal(m.Content, &req); err != nil {
		k.reply(k.shell, m, "execute_reply", errorContent("BadRequest", err.Error()))
		return false
	}
	store := !req.Silent && (req.StoreHistory == nil || *req.StoreHistory)
	stopOnError := req.StopOnError == nil || *req.StopOnError

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	k.mu.Lock()
	if store {
		k.count++
	}
	count := k.count
	k.cancelCell = cancel
	k.cellCtx = ctx
	k.inputReq = nil
	if req.AllowStdin {
		k.inputReq = m
	}
	k.mu.Unlock()
	k.out.setParent(m)
	defer func() {
		k.mu.Lock()
		k.cancelCell, k.cellCtx, k.inputReq = nil, nil, nil
		k.mu.Unlock()
	}()

	if !req.Silent {
		k.publish("execute_input", m, map[string]any{"code": req.Code, "execution_count": count})
	}
	res, err := k.eval(ctx, req.Code)
	k.out.sync()

	if err != nil {
		ename, evalue, tb := traceback(req.Code, err)
		k.publish("error", m, map[string]any{"ename": ename, "evalue": evalue, "traceback": tb})
		k.reply(k.shell, m, "execute_reply", map[string]any{
			"status": "error", "execution_count": count,
			"ename": ename, "evalue": evalue, "traceback": tb,
			"user_expressions": map[string]any{}, "payload": []any{},
		})
		if store {
			k.addHistory(count, req.Code, "")
		}
		return stopOnError
	}
	output := ""
	if res != nil && res.Value != nil {
		output = res.Value.Text
		if !req.Silent {
			k.publish("execute_result", m, map[string]any{
				"execution_count": count,
				"data":            mimeBundle(*res.Value),
				"metadata":        map[string]any{},
			})
		}
	}
	if store {
		k.addHistory(count, req.Code, output)
	}
	k.reply(k.shell, m, "execute_reply", map[string]any{
		"status":           "ok",
		"execution_count":  count,
		"user_expressions": k.userExpressions(ctx, req.UserExpressions),
		"payload":          []any{},
	})
	return false
}

// eval evaluates a cell, turning a panic that escapes the session into an
// error.
func (k *kernel) eval(ctx context.Context, code string) (res *repl.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(k.log, "kernel: the session panicked: %v\n%s", r, debug.Stack())
			res, err = nil, &repl.CellError{Panicked: true, Value: r, Msg: fmt.Sprint(r)}
		}
	}()
	return k.sess.Eval(ctx, code)
}

// userExpressions evaluates the user_expressions of an execute request.
func (k *kernel) userExpressions(ctx context.Context, exprs map[string]string) map[string]any {
	out := map[string]any{}
	for name, expr := range exprs {
		res, err := k.eval(ctx, expr)
		if err != nil {
			ename, evalue, tb := traceback(expr, err)
			out[name] = map[string]any{"status": "error", "ename": ename, "evalue": evalue, "traceback": tb}
			continue
		}
		d := repl.Display{Text: ""}
		if res != nil && res.Value != nil {
			d = *res.Value
		}
		out[name] = map[string]any{"status": "ok", "data": mimeBundle(d), "metadata": map[string]any{}}
	}
	return out
}

// abortQueued answers the execute requests that were already queued when
// a cell failed, with status "aborted", as ipykernel does (a notebook's
// "run all" sends every cell at once); other requests are handled. A
// request that arrived after the failure ends the aborting and is
// handled normally.
func (k *kernel) abortQueued(queue chan *message, failed time.Time) {
	for {
		select {
		case m, ok := <-queue:
			if !ok {
				return
			}
			if m.received.After(failed) {
				if k.handle(k.shell, m) {
					k.abortQueued(queue, time.Now())
				}
				return
			}
			if m.Header.MsgType != "execute_request" {
				k.handle(k.shell, m)
				continue
			}
			k.publishStatus("busy", m)
			k.reply(k.shell, m, "execute_reply", map[string]any{"status": "aborted"})
			k.publishStatus("idle", m)
		default:
			return
		}
	}
}

func (k *kernel) addHistory(line int, input, output string) {
	k.mu.Lock()
	k.history = append(k.history, historyItem{line: line, input: input, output: output})
	k.mu.Unlock()
}

// interrupt stops the running cell, if any.
func (k *kernel) interrupt() {
	k.mu.Lock()
	cancel := k.cancelCell
	k.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// display publishes a display.Show/PNG/SVG/HTML call of the running cell.
func (k *kernel) display(d repl.Display) {
	k.out.sync()
	k.publish("display_data", k.out.parentMessage(), map[string]any{
		"data":      mimeBundle(d),
		"metadata":  map[string]any{},
		"transient": map[string]any{},
	})
}

// mimeBundle returns the MIME bundle of a rendering. encoding/json
// base64-encodes the PNG bytes, which is what Jupyter expects. The HTML
// of a value that is also an image is left out: it is that image again
// (figure.Figure's HTML is an <img> of its PNG), and would double the size
// of the notebook.
func mimeBundle(d repl.Display) map[string]any {
	b := map[string]any{"text/plain": d.Text}
	if len(d.PNG) > 0 {
		b["image/png"] = d.PNG
	}
	if d.SVG != "" {
		b["image/svg+xml"] = d.SVG
	}
	if d.HTML != "" && len(d.PNG) == 0 && d.SVG == "" {
		b["text/html"] = d.HTML
	}
	return b
}

// traceback turns an error of a cell into the ename, evalue and traceback
// of an error output: the message, and for a located error the cell's
// lines around it with a caret under the column.
func traceback(code string, err error) (ename, evalue string, tb []string) {
	const red, bold, reset = "\x1b[31m", "\x1b[1m", "\x1b[0m"
	var ce *repl.CellError
	if !errors.As(err, &ce) {
		return "error", err.Error(), []string{red + "error: " + reset + err.Error()}
	}
	switch {
	case ce.Err != nil:
		ename = "interrupted"
	case ce.Panicked:
		ename = "panic"
	default:
		ename = "error"
	}
	evalue = ce.Msg
	tb = []string{red + bold + ename + ": " + reset + ce.Msg}
	if ce.Line <= 0 {
		return ename, evalue, tb
	}
	lines := strings.Split(code, "\n")
	if ce.Line > len(lines) {
		return ename, evalue, tb
	}
	tb = append(tb, fmt.Sprintf("at line %d, column %d of the cell:", ce.Line, ce.Column))
	for i := ce.Line - 3; i < ce.Line; i++ {
		if i < 0 {
			continue
		}
		marker := "   "
		if i == ce.Line-1 {
			marker = red + "-->" + reset
		}
		tb = append(tb, fmt.Sprintf("%s %4d | %s", marker, i+1, lines[i]))
	}
	if ce.Column > 0 {
		// The caret goes under the column, counting runes and keeping tabs.
		line := lines[ce.Line-1]
		var pad strings.Builder
		for i, r := range line {
			if i >= ce.Column-1 {
				break
			}
			if r == '\t' {
				pad.WriteByte('\t')
			} else {
				pad.WriteByte(' ')
			}
		}
		tb = append(tb, "           "+pad.String()+red+"^"+reset)
	}
	return ename, evalue, tb
}

// isComplete answers an is_complete_request.
func (k *kernel) isComplete(sock zmq4.Socket, m *message) {
	var c struct {
		Code string `json:"code"`
	}
	json.Unmarshal(m.Content, &c)
	content := map[string]any{"status": "complete"}
	if !repl.IsComplete(c.Code) {
		content = map[string]any{"status": "incomplete", "indent": "\t"}
	}
	k.reply(sock, m, "is_complete_reply", content)
}

// byteOffset converts a cursor position in code points (protocol ≥ 5.2)
// to a byte offset in code.
func byteOffset(code string, cursor int) int {
	if cursor < 0 {
		return len(code)
	}
	n := 0
	for i := range code {
		if n == cursor {
			return i
		}
		n++
	}
	return len(code)
}

// complete answers a complete_request with the session's completions.
func (k *kernel) complete(sock zmq4.Socket, m *message) {
	var c struct {
		Code      string `json:"code"`
		CursorPos *int   `json:"cursor_pos"`
	}
	json.Unmarshal(m.Content, &c)
	cursor := len(c.Code)
	if c.CursorPos != nil {
		cursor = byteOffset(c.Code, *c.CursorPos)
	}
	start, matches := k.sess.Complete(c.Code, cursor)
	if matches == nil {
		matches = []string{}
	}
	k.reply(sock, m, "complete_reply", map[string]any{
		"status":       "ok",
		"matches":      matches,
		"cursor_start": utf8.RuneCountInString(c.Code[:start]),
		"cursor_end":   utf8.RuneCountInString(c.Code[:cursor]),
		"metadata":     map[string]any{},
	})
}

// inspect answers an inspect_request with the documentation of the name
// at the cursor.
func (k *kernel) inspect(sock zmq4.Socket, m *message) {
	var c struct {
		Code        string `json:"code"`
		CursorPos   *int   `json:"cursor_pos"`
		DetailLevel int    `json:"detail_level"`
	}
	json.Unmarshal(m.Content, &c)
	cursor := len(c.Code)
	if c.CursorPos != nil {
		cursor = byteOffset(c.Code, *c.CursorPos)
	}
	text := k.sess.Inspect(c.Code, cursor)
	content := map[string]any{"status": "ok", "found": text != "", "data": map[string]any{}, "metadata": map[string]any{}}
	if text != "" {
		content["data"] = map[string]any{"text/plain": text}
	}
	k.reply(sock, m, "inspect_reply", content)
}

// historyReply answers a history_request: tail, range and search over the
// cells of this kernel, which are session 1.
func (k *kernel) historyReply(sock zmq4.Socket, m *message) {
	var c struct {
		Output         bool   `json:"output"`
		HistAccessType string `json:"hist_access_type"`
		Session        int    `json:"session"`
		Start          int    `json:"start"`
		Stop           int    `json:"stop"`
		N              int    `json:"n"`
		Pattern        string `json:"pattern"`
		Unique         bool   `json:"unique"`
	}
	json.Unmarshal(m.Content, &c)
	k.mu.Lock()
	items := append([]historyItem(nil), k.history...)
	k.mu.Unlock()

	var sel []historyItem
	switch c.HistAccessType {
	case "range":
		// Session 0 or negative session numbers count back from this one,
		// which is the only one.
		if c.Session <= 1 {
			for _, it := range items {
				if it.line >= c.Start && (c.Stop <= 0 || it.line < c.Stop) {
					sel = append(sel, it)
				}
			}
		}
	case "search":
		seen := map[string]bool{}
		for i := len(items) - 1; i >= 0; i-- {
			it := items[i]
			if !globMatch(c.Pattern, it.input) || (c.Unique && seen[it.input]) {
				continue
			}
			seen[it.input] = true
			sel = append([]historyItem{it}, sel...)
		}
		if c.N > 0 && len(sel) > c.N {
			sel = sel[len(sel)-c.N:]
		}
	default: // "tail"
		sel = items
		if c.N > 0 && len(sel) > c.N {
			sel = sel[len(sel)-c.N:]
		}
	}
	hist := make([]any, 0, len(sel))
	for _, it := range sel {
		if c.Output {
			hist = append(hist, []any{1, it.line, []any{it.input, it.output}})
		} else {
			hist = append(hist, []any{1, it.line, it.input})
		}
	}
	k.reply(sock, m, "history_reply", map[string]any{"status": "ok", "history": hist})
}

// globMatch matches s against an IPython history pattern: * and ? as in
// a shell glob, over the whole (multi-line) input.
func globMatch(pattern, s string) bool {
	if pattern == "" {
		return true
	}
	// Dynamic programming over runes; * also matches newlines.
	p, t := []rune(pattern), []rune(s)
	prev := make([]bool, len(t)+1)
	prev[0] = true
	for i := 1; i <= len(p); i++ {
		cur := make([]bool, len(t)+1)
		cur[0] = prev[0] && p[i-1] == '*'
		for j := 1; j <= len(t); j++ {
			switch p[i-1] {
			case '*':
				cur[j] = prev[j] || cur[j-1]
			case '?':
				cur[j] = prev[j-1]
			default:
				cur[j] = prev[j-1] && p[i-1] == t[j-1]
			}
		}
		prev = cur
	}
	return prev[len(t)]
}

// kernelStdin is the session's standard input: a read asks the front end
// for a line with an input_request on the stdin channel, if the running
// execute request allows it; otherwise input is at its end.
type kernelStdin struct {
	k   *kernel
	mu  sync.Mutex
	buf []byte
}

func (in *kernelStdin) Read(p []byte) (int, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(in.buf) == 0 {
		line, err := in.k.requestInput("")
		if err != nil {
			return 0, err
		}
		in.buf = []byte(line + "\n")
	}
	n := copy(p, in.buf)
	in.buf = in.buf[n:]
	return n, nil
}

// requestInput asks the front end of the running execute request for a
// line of input and waits for it.
func (k *kernel) requestInput(prompt string) (string, error) {
	k.mu.Lock()
	req, ctx := k.inputReq, k.cellCtx
	k.mu.Unlock()
	if req == nil || ctx == nil {
		return "", io.EOF
	}
	for { // drop replies to earlier requests
		select {
		case <-k.inputReplies:
			continue
		default:
		}
		break
	}
	k.out.sync()
	m := k.newMessage("input_request", req, map[string]any{"prompt": prompt, "password": false})
	m.Identities = req.Identities
	k.send(k.stdin, m)
	select {
	case r := <-k.inputReplies:
		var c struct {
			Value string `json:"value"`
		}
		if err := json.Unmarshal(r.Content, &c); err != nil {
			return "", err
		}
		return c.Value, nil
	case <-ctx.Done():
		return "", ctx.Err()
	case <-k.done:
		return "", io.EOF
	}
}
