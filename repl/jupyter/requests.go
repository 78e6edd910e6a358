package jupyter

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"unicode/utf8"

	"github.com/cholqr/sgp/repl"
	"github.com/cholqr/sgp/sgp"
	"github.com/go-zeromq/zmq4"
)

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
			"Imported: fmt, math, sgp, kernel, data, figure, mol, mat (gonum/mat), display. A value with a PNG method shows as an image.\n" +
			"BLAS: " + blasName(),
		"help_links": []map[string]string{
			{"text": "sgp on pkg.go.dev", "url": "https://pkg.go.dev/github.com/cholqr/sgp/sgp"},
			{"text": "yaegi", "url": "https://github.com/traefik/yaegi"},
		},
		"debugger": false,
	}
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

// blasName describes sgp's linear-algebra backend, or why it cannot be
// used.
func blasName() string {
	name, err := sgp.BLAS()
	if err != nil {
		return "unavailable: " + err.Error()
	}
	return name
}
