package jupyter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/cholqr/sgp/repl"
)

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
		k.progress.begin(m)
	}
	var res *repl.Result
	var err error
	if strings.TrimSpace(req.Code) == resetCommand {
		res, err = k.reset()
	} else {
		res, err = k.eval(ctx, req.Code)
	}
	k.out.sync()
	// The progress display, if the cell showed one, ends in its final
	// state; the value comes after it.
	k.progress.end(err)

	output := ""
	if res != nil && res.Value != nil {
		// With an error: an interrupted fit's partial result.
		output = res.Value.Text
		if !req.Silent {
			k.publish("execute_result", m, map[string]any{
				"execution_count": count,
				"data":            mimeBundle(*res.Value),
				"metadata":        map[string]any{},
			})
		}
	}
	if err != nil {
		// Before the reply: a client that sends its next request as soon
		// as the reply arrives must not see it aborted.
		k.failed = time.Now()
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

// resetCommand is a cell that resets the session (as :reset does in the
// terminal REPL).
const resetCommand = ":reset"

// reset resets the session and says so on the cell's standard output.
func (k *kernel) reset() (*repl.Result, error) {
	if err := k.sess.Reset(); err != nil {
		return &repl.Result{}, err
	}
	fmt.Fprintln(k.out.writer("stdout"), repl.ResetMessage)
	return &repl.Result{}, nil
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
					k.abortQueued(queue, k.failed)
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
