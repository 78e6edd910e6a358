package jupyter

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cholqr/sgp/repl"
	"github.com/go-zeromq/zmq4"
)

// The kernel is tested as Jupyter uses it: a client in Go (DEALER sockets
// for shell, control and stdin with one identity, SUB for iopub, REQ for
// the heartbeat) sends signed messages over real ZeroMQ sockets. No Python
// is involved.

const testKey = "0123456789abcdef-test-key"

// kernelEnv, when set, makes the test binary run a kernel on the
// connection file it names (see TestMain), for the tests that need a
// process of their own.
const kernelEnv = "SGPREPL_TEST_KERNEL"

func TestMain(m *testing.M) {
	if conn := os.Getenv(kernelEnv); conn != "" {
		if err := Serve(context.Background(), conn, ServeOptions{Formats: []string{"png", "html"}, CaptureFDs: true, Log: os.Stderr}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// ipcConnection returns a connection on ipc sockets in a temporary
// directory: no ports to race for.
func ipcConnection(t *testing.T) *connectionInfo {
	dir, err := os.MkdirTemp("", "sgpk")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return &connectionInfo{
		Transport: "ipc", IP: filepath.Join(dir, "k"),
		ShellPort: 1, ControlPort: 2, StdinPort: 3, IOPubPort: 4, HBPort: 5,
		SignatureScheme: "hmac-sha256", Key: testKey,
	}
}

// tcpConnection returns a connection on free loopback ports.
func tcpConnection(t *testing.T) *connectionInfo {
	var ports []int
	var ls []net.Listener
	for i := 0; i < 5; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return &connectionInfo{
		Transport: "tcp", IP: "127.0.0.1",
		ShellPort: ports[0], ControlPort: ports[1], StdinPort: ports[2], IOPubPort: ports[3], HBPort: ports[4],
		SignatureScheme: "hmac-sha256", Key: testKey,
	}
}

// startKernel runs a kernel in this process and returns it with the
// channel that receives its run's result.
func startKernel(t *testing.T, conn *connectionInfo) (*kernel, chan bool) {
	t.Helper()
	log := &syncWriter{w: new(bytes.Buffer)}
	k, err := newKernel(conn, kernelOptions{Log: log, StopGrace: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan bool, 1)
	go func() {
		restart, err := k.run(context.Background())
		if err != nil {
			t.Errorf("kernel: %v", err)
		}
		done <- restart
	}()
	t.Cleanup(func() {
		k.stop(false)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Errorf("the kernel did not stop")
		}
		if t.Failed() {
			t.Logf("kernel log:\n%s", log.String())
		}
	})
	return k, done
}

// syncWriter serialises writes.
type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.String()
}

// client is a Jupyter client.
type client struct {
	t                     *testing.T
	sig                   signer
	session               string
	shell, control, stdin zmq4.Socket
	iopub, hb             zmq4.Socket
	shellIn, controlIn    chan *message
	stdinIn, iopubIn      chan *message
	pending               map[string][]*message // iopub messages by parent id, not yet collected
	cancel                context.CancelFunc
}

func newClient(t *testing.T, conn *connectionInfo) *client {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c := &client{
		t: t, sig: signer{key: []byte(conn.Key)}, session: newID(), cancel: cancel,
		shellIn: make(chan *message, 100), controlIn: make(chan *message, 100),
		stdinIn: make(chan *message, 100), iopubIn: make(chan *message, 1000),
	}
	id := zmq4.SocketIdentity(c.session)
	// A kernel in a process of its own may take seconds to listen on a
	// loaded machine: retry every 50 ms for up to 30 s.
	retry := []zmq4.Option{zmq4.WithDialerRetry(50 * time.Millisecond), zmq4.WithDialerMaxRetries(600)}
	c.shell = zmq4.NewDealer(ctx, append(retry, zmq4.WithID(id))...)
	c.control = zmq4.NewDealer(ctx, append(retry, zmq4.WithID(id))...)
	c.stdin = zmq4.NewDealer(ctx, append(retry, zmq4.WithID(id))...)
	c.iopub = zmq4.NewSub(ctx, retry...)
	c.hb = zmq4.NewReq(ctx, retry...)
	for _, s := range []struct {
		sock zmq4.Socket
		port int
	}{{c.shell, conn.ShellPort}, {c.control, conn.ControlPort}, {c.stdin, conn.StdinPort}, {c.iopub, conn.IOPubPort}, {c.hb, conn.HBPort}} {
		if err := s.sock.Dial(conn.endpoint(s.port)); err != nil {
			t.Fatalf("dial %s: %v", conn.endpoint(s.port), err)
		}
	}
	if err := c.iopub.SetOption(zmq4.OptionSubscribe, ""); err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct {
		sock zmq4.Socket
		ch   chan *message
	}{{c.shell, c.shellIn}, {c.control, c.controlIn}, {c.stdin, c.stdinIn}, {c.iopub, c.iopubIn}} {
		go func() {
			for {
				raw, err := r.sock.Recv()
				if err != nil {
					if ctx.Err() != nil {
						return
					}
					continue
				}
				m, err := c.sig.decode(raw.Frames)
				if err != nil {
					t.Errorf("client: bad message from the kernel: %v", err)
					continue
				}
				r.ch <- m
			}
		}()
	}
	t.Cleanup(func() {
		cancel()
		for _, s := range []zmq4.Socket{c.shell, c.control, c.stdin, c.iopub, c.hb} {
			s.Close()
		}
	})
	return c
}

// send sends a request and returns it.
func (c *client) send(sock zmq4.Socket, msgType string, content any) *message {
	c.t.Helper()
	b, err := json.Marshal(content)
	if err != nil {
		c.t.Fatal(err)
	}
	m := &message{
		Header:   header{MsgID: newID(), Session: c.session, Username: "test", Date: isoNow(), MsgType: msgType, Version: protocolVersion},
		Content:  b,
		Metadata: json.RawMessage(`{}`),
	}
	frames, err := c.sig.encode(m)
	if err != nil {
		c.t.Fatal(err)
	}
	if err := sock.SendMulti(zmq4.NewMsgFrom(frames...)); err != nil {
		c.t.Fatal(err)
	}
	return m
}

// recv returns the next message on ch, failing after timeout.
func (c *client) recv(ch chan *message, what string, timeout time.Duration) *message {
	c.t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(timeout):
		c.t.Fatalf("no %s within %v", what, timeout)
		return nil
	}
}

// reply waits for the reply to req on ch and checks its type and parent.
func (c *client) reply(ch chan *message, req *message, timeout time.Duration) (*message, map[string]any) {
	c.t.Helper()
	want := replyType(req.Header.MsgType)
	for {
		m := c.recv(ch, want, timeout)
		if parentID(m) != req.Header.MsgID {
			c.t.Logf("skipping a %s to another request", m.Header.MsgType)
			continue
		}
		if m.Header.MsgType != want {
			c.t.Fatalf("reply type %s, want %s", m.Header.MsgType, want)
		}
		return m, content(c.t, m)
	}
}

// outputs collects the iopub messages of req, from its busy status to its
// idle status, checking that they frame the others. Messages of other
// requests are kept for their own outputs call.
func (c *client) outputs(req *message, timeout time.Duration) []*message {
	c.t.Helper()
	var msgs []*message
	id := req.Header.MsgID
	deadline := time.After(timeout)
	for {
		var m *message
		if p := c.pending[id]; len(p) > 0 {
			m, c.pending[id] = p[0], p[1:]
		} else {
			select {
			case m = <-c.iopubIn:
			case <-deadline:
				c.t.Fatalf("%s: no idle status within %v (got %d messages)", req.Header.MsgType, timeout, len(msgs))
			}
			if pid := parentID(m); pid != id {
				if c.pending == nil {
					c.pending = map[string][]*message{}
				}
				c.pending[pid] = append(c.pending[pid], m)
				continue
			}
		}
		msgs = append(msgs, m)
		if m.Header.MsgType == "status" && content(c.t, m)["execution_state"] == "idle" {
			if first := msgs[0]; first.Header.MsgType != "status" || content(c.t, first)["execution_state"] != "busy" {
				c.t.Errorf("%s: first iopub message is %s, want status busy", req.Header.MsgType, first.Header.MsgType)
			}
			for _, m := range msgs[1 : len(msgs)-1] {
				if m.Header.MsgType == "status" {
					c.t.Errorf("%s: a status %v between busy and idle", req.Header.MsgType, content(c.t, m)["execution_state"])
				}
			}
			delete(c.pending, id)
			return msgs
		}
	}
}

// execute runs code and returns the reply content and the iopub
// messages between busy and idle.
func (c *client) execute(code string, extra map[string]any) (map[string]any, []*message) {
	c.t.Helper()
	ct := map[string]any{"code": code, "silent": false, "store_history": true, "user_expressions": map[string]any{}, "allow_stdin": false, "stop_on_error": true}
	for k, v := range extra {
		ct[k] = v
	}
	req := c.send(c.shell, "execute_request", ct)
	_, rep := c.reply(c.shellIn, req, 30*time.Second)
	return rep, c.outputs(req, 10*time.Second)
}

// waitReady sends kernel_info requests until one's status reaches the
// subscriber, as jupyter_client does: a SUB socket misses what is
// published before it is connected.
func (c *client) waitReady() map[string]any {
	c.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		req := c.send(c.shell, "kernel_info_request", map[string]any{})
		_, rep := c.reply(c.shellIn, req, 10*time.Second)
		timeout := time.After(300 * time.Millisecond)
	wait:
		for {
			select {
			case m := <-c.iopubIn:
				if parentID(m) == req.Header.MsgID && m.Header.MsgType == "status" && content(c.t, m)["execution_state"] == "idle" {
					return rep
				}
			case <-timeout:
				break wait
			}
		}
	}
	c.t.Fatal("the kernel's iopub never reached the client")
	return nil
}

func parentID(m *message) string {
	var h header
	json.Unmarshal(m.Parent, &h)
	return h.MsgID
}

func content(t *testing.T, m *message) map[string]any {
	t.Helper()
	var c map[string]any
	if err := json.Unmarshal(m.Content, &c); err != nil {
		t.Fatalf("%s content: %v", m.Header.MsgType, err)
	}
	return c
}

// ofType returns the messages of type msgType.
func ofType(msgs []*message, msgType string) []*message {
	var out []*message
	for _, m := range msgs {
		if m.Header.MsgType == msgType {
			out = append(out, m)
		}
	}
	return out
}

// streamText concatenates the stream messages' text of stream name.
func streamText(t *testing.T, msgs []*message, name string) string {
	var b strings.Builder
	for _, m := range ofType(msgs, "stream") {
		c := content(t, m)
		if c["name"] == name {
			b.WriteString(c["text"].(string))
		}
	}
	return b.String()
}

func TestWireSignature(t *testing.T) {
	s := signer{key: []byte("k")}
	m := &message{Identities: [][]byte{[]byte("id")}, Header: header{MsgID: "1", MsgType: "x"}, Content: json.RawMessage(`{"a":1}`)}
	frames, err := s.encode(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.decode(frames)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Identities[0]) != "id" || got.Header.MsgType != "x" || string(got.Content) != `{"a":1}` {
		t.Errorf("round trip: %+v", got)
	}
	frames[len(frames)-1] = []byte(`{"a":2}`)
	if _, err := s.decode(frames); err != errSignature {
		t.Errorf("tampered content: err %v, want %v", err, errSignature)
	}
	if _, err := (signer{}).decode(frames); err != nil {
		t.Errorf("no key: %v", err)
	}
	// With a history, the same signed message is accepted once.
	h := signer{key: []byte("k"), history: newDigestHistory(2)}
	f1, _ := h.encode(m)
	if _, err := h.decode(f1); err != nil {
		t.Fatal(err)
	}
	if _, err := h.decode(f1); err != errReplay {
		t.Errorf("replayed message: err %v, want %v", err, errReplay)
	}
	if _, err := s.decode([][]byte{[]byte("no delimiter")}); err == nil {
		t.Error("no delimiter: no error")
	}
}

func TestKernelMessages(t *testing.T) {
	conn := ipcConnection(t)
	startKernel(t, conn)
	c := newClient(t, conn)

	t.Run("kernel_info", func(t *testing.T) {
		rep := c.waitReady()
		li, _ := rep["language_info"].(map[string]any)
		if rep["status"] != "ok" || rep["protocol_version"] != "5.3" || li["name"] != "go" || rep["implementation"] != "sgprepl" {
			t.Errorf("kernel_info_reply %v", rep)
		}
		// kernel_info is served on control too.
		req := c.send(c.control, "kernel_info_request", map[string]any{})
		if _, rep := c.reply(c.controlIn, req, 5*time.Second); rep["protocol_version"] != "5.3" {
			t.Errorf("control kernel_info_reply %v", rep)
		}
		c.outputs(req, 5*time.Second)
	})

	t.Run("heartbeat", func(t *testing.T) {
		if err := c.hb.Send(zmq4.NewMsgString("ping")); err != nil {
			t.Fatal(err)
		}
		m, err := c.hb.Recv()
		if err != nil || string(m.Frames[0]) != "ping" {
			t.Errorf("heartbeat echo %q, %v", m.Frames, err)
		}
	})

	t.Run("execute", func(t *testing.T) {
		rep, out := c.execute("1+1", nil)
		if rep["status"] != "ok" || rep["execution_count"] != 1.0 {
			t.Errorf("execute_reply %v", rep)
		}
		in := ofType(out, "execute_input")
		if len(in) != 1 || content(t, in[0])["code"] != "1+1" || content(t, in[0])["execution_count"] != 1.0 {
			t.Errorf("execute_input %v", in)
		}
		res := ofType(out, "execute_result")
		if len(res) != 1 {
			t.Fatalf("%d execute_result messages", len(res))
		}
		if data := content(t, res[0])["data"].(map[string]any); data["text/plain"] != "2" {
			t.Errorf("execute_result data %v", data)
		}
		// The reply comes before idle and after the outputs, the result
		// before idle.
		if out[len(out)-1].Header.MsgType != "status" {
			t.Error("the last iopub message is not the idle status")
		}
	})

	t.Run("stream", func(t *testing.T) {
		rep, out := c.execute("import \"log\"\nlog.SetFlags(0)\nfmt.Println(\"hello\")\nlog.Print(\"to stderr\")\nx := 41\nx + 1", nil)
		if rep["status"] != "ok" {
			t.Fatalf("execute_reply %v", rep)
		}
		if got := streamText(t, out, "stdout"); got != "hello\n" {
			t.Errorf("stdout %q", got)
		}
		if got := streamText(t, out, "stderr"); got != "to stderr\n" {
			t.Errorf("stderr %q", got)
		}
		res := ofType(out, "execute_result")
		if len(res) != 1 || content(t, res[0])["data"].(map[string]any)["text/plain"] != "42" {
			t.Errorf("execute_result %v", res)
		}
		// The text comes before the result.
		if i, j := indexOf(out, "stream"), indexOf(out, "execute_result"); i > j {
			t.Errorf("stream at %d after execute_result at %d", i, j)
		}
	})

	t.Run("display", func(t *testing.T) {
		png := "\x89PNG\r\n\x1a\nfake"
		code := fmt.Sprintf("display.PNG([]byte(%q))\ndisplay.HTML(\"<b>bold</b>\")\n"+
			"type Pic struct{}\nfunc (Pic) PNG() []byte { return []byte(%q) }\nfunc (Pic) String() string { return \"a picture\" }\nPic{}", png, png)
		rep, out := c.execute(code, nil)
		if rep["status"] != "ok" {
			t.Fatalf("execute_reply %v", rep)
		}
		disp := ofType(out, "display_data")
		if len(disp) != 2 {
			t.Fatalf("%d display_data messages, want 2", len(disp))
		}
		d0 := content(t, disp[0])["data"].(map[string]any)
		if b, _ := base64.StdEncoding.DecodeString(d0["image/png"].(string)); string(b) != png || d0["text/plain"] == nil {
			t.Errorf("display.PNG bundle %v", d0)
		}
		if d1 := content(t, disp[1])["data"].(map[string]any); d1["text/html"] != "<b>bold</b>" {
			t.Errorf("display.HTML bundle %v", d1)
		}
		res := ofType(out, "execute_result")
		if len(res) != 1 {
			t.Fatalf("%d execute_result", len(res))
		}
		data := content(t, res[0])["data"].(map[string]any)
		if b, _ := base64.StdEncoding.DecodeString(data["image/png"].(string)); string(b) != png || data["text/plain"] != "a picture" {
			t.Errorf("value with a PNG method: bundle %v", data)
		}
	})

	t.Run("figure", func(t *testing.T) {
		code := "train, _ := data.SnelsonLike(60, 1)\n" +
			"m := sgp.NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(5).WithSeed(1).WithMaxEpochs(3)\n" +
			"_, err := m.Fit()\nif err != nil { panic(err) }\nfig, _ := figure.Fit1D(m, \"fit\")\nfig"
		rep, out := c.execute(code, nil)
		if rep["status"] != "ok" {
			t.Fatalf("execute_reply %v", rep)
		}
		res := ofType(out, "execute_result")
		if len(res) != 1 {
			t.Fatalf("%d execute_result", len(res))
		}
		data := content(t, res[0])["data"].(map[string]any)
		b, err := base64.StdEncoding.DecodeString(data["image/png"].(string))
		if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) || len(b) < 1000 {
			t.Errorf("figure PNG: %d bytes, %v", len(b), err)
		}
		if _, ok := data["text/html"]; ok {
			t.Error("a figure's bundle repeats the image as HTML")
		}
	})

	t.Run("errors", func(t *testing.T) {
		rep, out := c.execute("undefinedName + 1", nil)
		if rep["status"] != "error" || rep["ename"] != "error" || !strings.Contains(rep["evalue"].(string), "undefinedName") {
			t.Errorf("compile error reply %v", rep)
		}
		if e := ofType(out, "error"); len(e) != 1 {
			t.Errorf("%d error outputs", len(e))
		}

		rep, out = c.execute("a := []int{1}\na[3]", nil)
		if rep["status"] != "error" || rep["ename"] != "panic" {
			t.Fatalf("panic reply %v", rep)
		}
		e := ofType(out, "error")
		if len(e) != 1 {
			t.Fatalf("%d error outputs", len(e))
		}
		tb := fmt.Sprint(content(t, e[0])["traceback"])
		for _, want := range []string{"index out of range", "line 2", "a[3]"} {
			if !strings.Contains(tb, want) {
				t.Errorf("traceback lacks %q:\n%s", want, tb)
			}
		}

		rep, _ = c.execute("panic(\"boom\")", nil)
		if rep["ename"] != "panic" || rep["evalue"] != "boom" {
			t.Errorf("panic reply %v", rep)
		}
		rep, _ = c.execute("import \"os\"\nos.Exit(3)", nil)
		if rep["status"] != "error" {
			t.Errorf("os.Exit reply %v", rep)
		}
		// The kernel lives on.
		if rep, _ := c.execute("\"alive\"", nil); rep["status"] != "ok" {
			t.Errorf("after errors: %v", rep)
		}
	})

	// A request sent once the reply of a failed one has arrived is not
	// queued behind the failure: the kernel takes the failure's time before
	// it replies. It took it after, and such a request was aborted when the
	// kernel's shell goroutine lost the processor between the two (once in
	// CI, in the "errors" subtest, under the load of the other packages'
	// tests); 40 rounds give that window more chances than one.
	t.Run("next after a failure", func(t *testing.T) {
		for i := range 40 {
			if rep, _ := c.execute("undefinedName", nil); rep["status"] != "error" {
				t.Fatalf("round %d: failing cell replied %v", i, rep)
			}
			if rep, _ := c.execute("1", nil); rep["status"] != "ok" {
				t.Fatalf("round %d: the cell sent after the failure's reply: %v", i, rep)
			}
		}
	})

	t.Run("stop_on_error", func(t *testing.T) {
		base := map[string]any{"silent": false, "store_history": true, "user_expressions": map[string]any{}, "allow_stdin": false}
		with := func(code string, stop bool) map[string]any {
			m := map[string]any{"code": code, "stop_on_error": stop}
			for k, v := range base {
				m[k] = v
			}
			return m
		}
		r1 := c.send(c.shell, "execute_request", with("import \"time\"\ntime.Sleep(300 * time.Millisecond)\npanic(\"first\")", true))
		r2 := c.send(c.shell, "execute_request", with("\"second\"", true))
		r3 := c.send(c.shell, "execute_request", with("\"third\"", true))
		for i, want := range []struct {
			req    *message
			status string
		}{{r1, "error"}, {r2, "aborted"}, {r3, "aborted"}} {
			if _, rep := c.reply(c.shellIn, want.req, 10*time.Second); rep["status"] != want.status {
				t.Errorf("request %d: status %v, want %s", i+1, rep["status"], want.status)
			}
			c.outputs(want.req, 5*time.Second)
		}
		// Without stop_on_error the next cell runs.
		r1 = c.send(c.shell, "execute_request", with("time.Sleep(300 * time.Millisecond)\npanic(\"first\")", false))
		r2 = c.send(c.shell, "execute_request", with("\"second\"", true))
		c.reply(c.shellIn, r1, 10*time.Second)
		if _, rep := c.reply(c.shellIn, r2, 10*time.Second); rep["status"] != "ok" {
			t.Errorf("after an error without stop_on_error: %v", rep)
		}
		c.outputs(r1, 5*time.Second)
		c.outputs(r2, 5*time.Second)
	})

	t.Run("silent", func(t *testing.T) {
		before, _ := c.execute("1", nil)
		rep, out := c.execute("2", map[string]any{"silent": true})
		if rep["status"] != "ok" || rep["execution_count"] != before["execution_count"] {
			t.Errorf("silent reply %v (count before %v)", rep, before["execution_count"])
		}
		if len(ofType(out, "execute_input"))+len(ofType(out, "execute_result")) != 0 {
			t.Errorf("a silent cell published outputs")
		}
	})

	t.Run("user_expressions", func(t *testing.T) {
		rep, _ := c.execute("y := 7", map[string]any{"user_expressions": map[string]any{"double": "y*2", "bad": "nope"}})
		ue := rep["user_expressions"].(map[string]any)
		d := ue["double"].(map[string]any)
		if d["status"] != "ok" || d["data"].(map[string]any)["text/plain"] != "14" {
			t.Errorf("user expression double: %v", d)
		}
		if b := ue["bad"].(map[string]any); b["status"] != "error" {
			t.Errorf("user expression bad: %v", b)
		}
	})

	t.Run("stdin", func(t *testing.T) {
		req := c.send(c.shell, "execute_request", map[string]any{"code": "var s string\nfmt.Scanln(&s)\n\"got \" + s", "silent": false,
			"store_history": true, "user_expressions": map[string]any{}, "allow_stdin": true, "stop_on_error": true})
		in := c.recv(c.stdinIn, "input_request", 10*time.Second)
		if in.Header.MsgType != "input_request" || parentID(in) != req.Header.MsgID {
			t.Fatalf("stdin message %s", in.Header.MsgType)
		}
		c.send(c.stdin, "input_reply", map[string]any{"value": "words"})
		_, rep := c.reply(c.shellIn, req, 10*time.Second)
		out := c.outputs(req, 5*time.Second)
		res := ofType(out, "execute_result")
		if rep["status"] != "ok" || len(res) != 1 || content(t, res[0])["data"].(map[string]any)["text/plain"] != "got words" {
			t.Errorf("input: reply %v, results %d", rep, len(res))
		}
		// Without allow_stdin, input is at its end.
		rep, _ = c.execute("var u string\nn, err := fmt.Scanln(&u)\nfmt.Sprint(n, err)", nil)
		if rep["status"] != "ok" {
			t.Errorf("scan without stdin: %v", rep)
		}
	})

	t.Run("is_complete", func(t *testing.T) {
		for code, want := range map[string]string{"1+1": "complete", "for i := 0; i < 3; i++ {": "incomplete", "x := f(1,": "incomplete"} {
			req := c.send(c.shell, "is_complete_request", map[string]any{"code": code})
			if _, rep := c.reply(c.shellIn, req, 5*time.Second); rep["status"] != want {
				t.Errorf("is_complete %q: %v, want %s", code, rep, want)
			}
			c.outputs(req, 5*time.Second)
		}
	})

	t.Run("complete", func(t *testing.T) {
		code := "s := \"é\"; sgp.NewMo"
		n := len([]rune(code))
		req := c.send(c.shell, "complete_request", map[string]any{"code": code, "cursor_pos": n})
		_, rep := c.reply(c.shellIn, req, 5*time.Second)
		c.outputs(req, 5*time.Second)
		if rep["status"] != "ok" || !contains(rep["matches"], "sgp.NewModel") {
			t.Errorf("complete_reply %v", rep)
		}
		if rep["cursor_start"] != float64(n-len("sgp.NewMo")) || rep["cursor_end"] != float64(n) {
			t.Errorf("cursor %v..%v, want %d..%d (code points)", rep["cursor_start"], rep["cursor_end"], n-len("sgp.NewMo"), n)
		}
	})

	t.Run("inspect", func(t *testing.T) {
		for _, tc := range []struct {
			code   string
			cursor int
			want   string
		}{
			{"sgp.NewModel", 5, "NewModel returns a model"},
			{"x := sgp.NewModel(train.X, ", -1, "NewModel returns a model"},
			{"m.Fit()", 3, "Fit runs epochs"},
			{"m", 1, "*sgp.Model"},
			{"mat.NewDense", -1, "func mat.NewDense(int, int, []float64) *mat.Dense"},
			{"display.Show", -1, "Show shows v now"},
			{"zzzUnknown", -1, ""},
		} {
			cursor := tc.cursor
			if cursor < 0 {
				cursor = len([]rune(tc.code))
			}
			req := c.send(c.shell, "inspect_request", map[string]any{"code": tc.code, "cursor_pos": cursor, "detail_level": 0})
			_, rep := c.reply(c.shellIn, req, 5*time.Second)
			c.outputs(req, 5*time.Second)
			text, _ := rep["data"].(map[string]any)["text/plain"].(string)
			if rep["status"] != "ok" || rep["found"] != (tc.want != "") || !strings.Contains(text, tc.want) {
				t.Errorf("inspect %q at %d: found %v, text %q; want %q", tc.code, cursor, rep["found"], text, tc.want)
			}
		}
	})

	t.Run("history", func(t *testing.T) {
		req := c.send(c.shell, "history_request", map[string]any{"output": true, "raw": true, "hist_access_type": "tail", "n": 2})
		_, rep := c.reply(c.shellIn, req, 5*time.Second)
		c.outputs(req, 5*time.Second)
		h := rep["history"].([]any)
		if rep["status"] != "ok" || len(h) != 2 {
			t.Fatalf("history tail: %v", rep)
		}
		if e := h[0].([]any); len(e) != 3 || e[0] != 1.0 || len(e[2].([]any)) != 2 {
			t.Errorf("history entry with output: %v", e)
		}
		req = c.send(c.shell, "history_request", map[string]any{"output": false, "raw": true, "hist_access_type": "range", "session": 0, "start": 1, "stop": 3})
		_, rep = c.reply(c.shellIn, req, 5*time.Second)
		c.outputs(req, 5*time.Second)
		if h := rep["history"].([]any); len(h) != 2 || h[0].([]any)[2] != "1+1" {
			t.Errorf("history range: %v", rep)
		}
		req = c.send(c.shell, "history_request", map[string]any{"output": false, "raw": true, "hist_access_type": "search", "pattern": "*Println(\"hello\")*", "n": 5, "unique": true})
		_, rep = c.reply(c.shellIn, req, 5*time.Second)
		c.outputs(req, 5*time.Second)
		if h := rep["history"].([]any); len(h) != 1 {
			t.Errorf("history search: %v", rep)
		}
	})

	t.Run("comms", func(t *testing.T) {
		req := c.send(c.shell, "comm_info_request", map[string]any{})
		_, rep := c.reply(c.shellIn, req, 5*time.Second)
		c.outputs(req, 5*time.Second)
		if rep["status"] != "ok" || len(rep["comms"].(map[string]any)) != 0 {
			t.Errorf("comm_info_reply %v", rep)
		}
		req = c.send(c.shell, "comm_open", map[string]any{"comm_id": "c1", "target_name": "nothing", "data": map[string]any{}})
		out := c.outputs(req, 5*time.Second)
		if cl := ofType(out, "comm_close"); len(cl) != 1 || content(t, cl[0])["comm_id"] != "c1" {
			t.Errorf("comm_open: no comm_close (%d messages)", len(out))
		}
		req = c.send(c.shell, "comm_msg", map[string]any{"comm_id": "c1", "data": map[string]any{}})
		c.outputs(req, 5*time.Second)
	})

	t.Run("unknown", func(t *testing.T) {
		req := c.send(c.shell, "frobnicate_request", map[string]any{})
		m, rep := c.reply(c.shellIn, req, 5*time.Second)
		c.outputs(req, 5*time.Second)
		if m.Header.MsgType != "frobnicate_reply" || rep["status"] != "error" || rep["ename"] != "UnknownMessageType" {
			t.Errorf("unknown request: %s %v", m.Header.MsgType, rep)
		}
		req = c.send(c.control, "debug_request", map[string]any{})
		if _, rep := c.reply(c.controlIn, req, 5*time.Second); rep["status"] != "error" {
			t.Errorf("debug_request: %v", rep)
		}
		c.outputs(req, 5*time.Second)
	})

	t.Run("bad signature", func(t *testing.T) {
		bad := &client{t: t, sig: signer{key: []byte("wrong key")}, session: c.session}
		req := bad.send(c.shell, "kernel_info_request", map[string]any{})
		select {
		case m := <-c.shellIn:
			t.Errorf("a message with a bad signature got a %s", m.Header.MsgType)
		case <-time.After(300 * time.Millisecond):
		}
		_ = req
		if rep, _ := c.execute("\"still here\"", nil); rep["status"] != "ok" {
			t.Errorf("after a bad message: %v", rep)
		}
	})

	t.Run("interrupt loop", func(t *testing.T) {
		req := c.send(c.shell, "execute_request", map[string]any{"code": "n := 0\nfor {\n\tn++\n}", "silent": false,
			"store_history": true, "user_expressions": map[string]any{}, "allow_stdin": false, "stop_on_error": true})
		time.Sleep(300 * time.Millisecond)
		ireq := c.send(c.control, "interrupt_request", map[string]any{})
		if _, rep := c.reply(c.controlIn, ireq, 5*time.Second); rep["status"] != "ok" {
			t.Errorf("interrupt_reply %v", rep)
		}
		_, rep := c.reply(c.shellIn, req, 10*time.Second)
		if rep["status"] != "error" || rep["ename"] != "interrupted" {
			t.Errorf("interrupted cell: %v", rep)
		}
		c.outputs(req, 5*time.Second)
		c.outputs(ireq, 5*time.Second)
	})

	t.Run("interrupt blocked cell", func(t *testing.T) {
		// A cell blocked in compiled code cannot be stopped: it is
		// abandoned after the grace period, the reply comes, and later
		// requests are answered.
		req := c.send(c.shell, "execute_request", map[string]any{"code": "import \"time\"\ntime.Sleep(time.Hour)", "silent": false,
			"store_history": true, "user_expressions": map[string]any{}, "allow_stdin": false, "stop_on_error": true})
		time.Sleep(300 * time.Millisecond)
		ireq := c.send(c.control, "interrupt_request", map[string]any{})
		c.reply(c.controlIn, ireq, 5*time.Second)
		_, rep := c.reply(c.shellIn, req, 10*time.Second)
		if rep["status"] != "error" || rep["ename"] != "interrupted" || !strings.Contains(fmt.Sprint(rep["evalue"]), "abandoned") {
			t.Errorf("interrupted blocked cell: %v", rep)
		}
		c.outputs(req, 5*time.Second)
		c.outputs(ireq, 5*time.Second)
		if rep, _ := c.execute("\"still answering\"", nil); rep["status"] != "ok" {
			t.Errorf("after the abandoned cell: %v", rep)
		}
	})

	t.Run("returned error", func(t *testing.T) {
		rep, _ := c.execute("sgp.NewModel(nil, nil, nil).Fit()", nil)
		if rep["status"] != "error" || !strings.Contains(fmt.Sprint(rep["evalue"]), "no training data") {
			t.Errorf("a returned error: %v", rep)
		}
	})

	t.Run("interrupt fit", func(t *testing.T) {
		// A fit whose every epoch takes seconds (8-D inputs, n = 8000,
		// m = 200): interrupted in its first epoch, it stops at its next
		// swap or gradient evaluation.
		code := "import \"math/rand\"\n" +
			"rng := rand.New(rand.NewSource(1))\n" +
			"n, d := 8000, 8\ndata, ys := make([]float64, n*d), make([]float64, n)\n" +
			"for i := 0; i < n; i++ {\n\ts := 0.0\n\tfor j := 0; j < d; j++ {\n\t\tv := rng.Float64()\n\t\tdata[i*d+j] = v\n\t\ts += v\n\t}\n\tys[i] = math.Sin(3 * s)\n}\n" +
			"xs, _ := kernel.NewVectors(n, d, data)\n" +
			"mb := sgp.NewModel(xs, ys, kernel.NewRBFFromData(xs, ys)).WithM(200).WithSeed(1).WithMaxEpochs(1000)\n" +
			"res, err := mb.Fit()\nfmt.Println(\"fit returned\", res.Status, err)"
		req := c.send(c.shell, "execute_request", map[string]any{"code": code, "silent": false,
			"store_history": true, "user_expressions": map[string]any{}, "allow_stdin": false, "stop_on_error": true})
		time.Sleep(1500 * time.Millisecond)
		start := time.Now()
		ireq := c.send(c.control, "interrupt_request", map[string]any{})
		c.reply(c.controlIn, ireq, 5*time.Second)
		_, rep := c.reply(c.shellIn, req, 10*time.Second)
		if rep["status"] != "error" || rep["ename"] != "interrupted" {
			t.Errorf("interrupted fit: %v", rep)
		}
		if d := time.Since(start); d > 20*time.Second { // not honoured, not slow: latency depends on load
			t.Errorf("the fit stopped %v after the interrupt", d)
		}
		c.outputs(req, 5*time.Second)
		c.outputs(ireq, 5*time.Second)
		if rep, _ := c.execute("mb.Trace() != nil", nil); rep["status"] != "ok" {
			t.Errorf("after the interrupt: %v", rep)
		}
	})
}

func indexOf(msgs []*message, msgType string) int {
	for i, m := range msgs {
		if m.Header.MsgType == msgType {
			return i
		}
	}
	return -1
}

func contains(list any, s string) bool {
	l, _ := list.([]any)
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func TestKernelShutdown(t *testing.T) {
	for _, restart := range []bool{false, true} {
		t.Run(fmt.Sprint("restart=", restart), func(t *testing.T) {
			conn := ipcConnection(t)
			_, done := startKernel(t, conn)
			c := newClient(t, conn)
			c.waitReady()
			req := c.send(c.control, "shutdown_request", map[string]any{"restart": restart})
			_, rep := c.reply(c.controlIn, req, 5*time.Second)
			if rep["status"] != "ok" || rep["restart"] != restart {
				t.Errorf("shutdown_reply %v", rep)
			}
			select {
			case got := <-done:
				if got != restart {
					t.Errorf("run reported restart=%v", got)
				}
				done <- got // for the cleanup
			case <-time.After(5 * time.Second):
				t.Fatal("the kernel did not stop")
			}
		})
	}
}

// TestKernelProcess runs the kernel command in a process of its own on
// TCP, as Jupyter starts it, with file descriptors 1 and 2 captured: what
// compiled code prints reaches the notebook, and a shutdown request ends
// the process.
func TestKernelProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a kernel process")
	}
	conn := tcpConnection(t)
	path := filepath.Join(t.TempDir(), "kernel.json")
	b, _ := json.Marshal(conn)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), kernelEnv+"="+path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	waited := false
	go func() { exited <- cmd.Wait() }()
	defer func() {
		if !waited {
			cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("kernel stderr:\n%s", stderr.String())
		}
	}()

	c := newClient(t, conn)
	c.waitReady()
	code := "import \"os\"\nfmt.Println(\"interpreted\")\nos.Stdout.WriteString(\"compiled stdout\\n\")\nos.Stderr.WriteString(\"compiled stderr\\n\")\n" +
		"train, _ := data.SnelsonLike(50, 1)\n" +
		"m := sgp.NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(4).WithMaxEpochs(2).WithProgress(os.Stdout)\n" +
		"m.Fit()\nfmt.Println(\"done\")"
	rep, out := c.execute(code, nil)
	if rep["status"] != "ok" {
		t.Fatalf("execute_reply %v", rep)
	}
	stdout := streamText(t, out, "stdout")
	if !strings.Contains(stdout, "interpreted\ncompiled stdout\n") || !strings.Contains(stdout, "epoch") || !strings.HasSuffix(stdout, "done\n") {
		t.Errorf("stdout in the notebook: %q", stdout)
	}
	// Then the fit's warning: two epochs do not converge.
	if got := streamText(t, out, "stderr"); got != "compiled stderr\nwarning: the fit did not converge (max epochs); the model is the best state reached\n" {
		t.Errorf("stderr in the notebook: %q", got)
	}

	req := c.send(c.shell, "shutdown_request", map[string]any{"restart": false})
	c.reply(c.shellIn, req, 5*time.Second)
	t0 := time.Now()
	select {
	case err := <-exited:
		t.Logf("the kernel process exited %v after its shutdown reply", time.Since(t0))
		waited = true
		if err != nil {
			t.Errorf("kernel process: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the kernel process did not exit after shutdown")
	}
}

func TestTraceback(t *testing.T) {
	code := "a := 1\nb := 2\n\tc := []int{}\nc[5]"
	_, _, tb := traceback(code, &repl.CellError{Line: 4, Column: 1, Msg: "index out of range", Panicked: true})
	text := strings.Join(tb, "\n")
	for _, want := range []string{"panic: \x1b[0mindex out of range", "line 4, column 1", "   2 | b := 2", "-->\x1b[0m    4 | c[5]"} {
		if !strings.Contains(text, want) {
			t.Errorf("traceback lacks %q:\n%s", want, text)
		}
	}
}

func TestGlobMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, s string
		want       bool
	}{{"", "x", true}, {"fmt*", "fmt.Println(1)\nx", true}, {"?mt*", "fmt", true}, {"a*b", "ac", false}, {"*b", "ab", true}} {
		if got := globMatch(tc.pattern, tc.s); got != tc.want {
			t.Errorf("globMatch(%q, %q) = %v", tc.pattern, tc.s, got)
		}
	}
}
