package jupyter

import (
	"errors"
	"fmt"
	"html"
	"strings"
	"sync"
	"time"

	"github.com/cholqr/sgp/repl"
	"github.com/cholqr/sgp/sgp"
)

// A cell's progress display. While a model built in the session works
// (repl.Progress), the cell shows one display, as tqdm does in a
// notebook: a display_data with a display_id (messaging protocol 5.3,
// transient.display_id) once the model has worked for progressDelay,
// then update_display_data at most every progressInterval with the epoch,
// the objective, the swaps accepted, the time since the model started and,
// with a time budget, the time left, and the model's last progress line
// since its last epoch. At the end of the cell the display is updated a
// last time, to the progress's final state ("fit finished: epoch 12, …",
// "fit interrupted: …"), and stays where it was shown: it records how the
// fit went in the saved notebook. The cell's value comes after it and
// after everything the cell printed, as an execute_result, as in every
// other kernel; replacing the display by the value would put the value
// above what the cell printed after the display appeared.

// progressDelay is how long a model works before its progress is shown: a
// quick fit shows none.
const progressDelay = 500 * time.Millisecond

// progressInterval is the shortest time between two updates of the
// display.
const progressInterval = 500 * time.Millisecond

// cellProgress is the progress display of the running cell.
type cellProgress struct {
	k *kernel

	mu     sync.Mutex // guards the fields below; taken before pubMu
	pubMu  sync.Mutex // one publication at a time, in the order decided under mu
	active bool       // a cell is running
	parent *message   // its execute request
	id     string     // the display_id, "" until the display is shown
	shown  time.Time  // when the display was last published

	// The model reporting, since its first report in the cell.
	model           int
	start           time.Time
	epoch           *sgp.EpochRecord // its last epoch
	accepted, swaps int              // swaps over its epochs in the cell
	line            string           // its last progress line after its last epoch
	budget          time.Duration
}

// begin starts the progress of the cell of request parent.
func (p *cellProgress) begin(parent *message) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.active, p.parent, p.id, p.shown = true, parent, "", time.Time{}
	p.model, p.epoch, p.accepted, p.swaps, p.line, p.budget = 0, nil, 0, 0, "", 0
}

// report takes a report of a model and shows or updates the display when
// it is time to.
func (p *cellProgress) report(r repl.Progress) {
	now := time.Now()
	p.mu.Lock()
	if !p.active {
		p.mu.Unlock()
		return
	}
	if r.Model != p.model {
		p.model, p.start, p.epoch, p.accepted, p.swaps, p.line = r.Model, now, nil, 0, 0, ""
	}
	p.budget = r.Budget
	switch {
	case r.Epoch != nil:
		e := *r.Epoch
		p.epoch, p.line = &e, ""
		p.accepted += e.Accepted
		p.swaps += e.Swaps
	case r.Line != "":
		p.line = r.Line
	}
	msgType := "update_display_data"
	switch {
	case p.id == "" && now.Sub(p.start) >= progressDelay:
		p.id, msgType = newID(), "display_data"
	case p.id == "" || now.Sub(p.shown) < progressInterval:
		p.mu.Unlock()
		return
	}
	p.shown = now
	data := p.bundle(now, "")
	id, parent := p.id, p.parent
	p.pubMu.Lock()
	p.mu.Unlock()
	defer p.pubMu.Unlock()
	if msgType == "display_data" {
		// What the cell printed before goes above the display.
		p.k.out.sync()
	}
	p.publish(msgType, parent, id, data)
}

// end updates the display, if any, a last time at the end of the cell, to
// its final state: finished, interrupted or stopped by the cell's error.
func (p *cellProgress) end(err error) {
	p.mu.Lock()
	p.active = false
	if p.id == "" {
		p.mu.Unlock()
		return
	}
	var data map[string]any
	switch {
	case err == nil:
		data = p.bundle(time.Now(), "finished")
	case isInterrupt(err):
		data = p.bundle(time.Now(), "interrupted")
	default:
		data = p.bundle(time.Now(), "stopped by an error")
	}
	id, parent := p.id, p.parent
	p.pubMu.Lock()
	p.mu.Unlock()
	defer p.pubMu.Unlock()
	p.publish("update_display_data", parent, id, data)
}

func (p *cellProgress) publish(msgType string, parent *message, id string, data map[string]any) {
	p.k.publish(msgType, parent, map[string]any{
		"data":      data,
		"metadata":  map[string]any{},
		"transient": map[string]any{"display_id": id},
	})
}

// bundle renders the progress at time now as text and HTML: running
// (ended "") with an HTML progress bar (of the time budget, or moving
// without one), or ended with how.
func (p *cellProgress) bundle(now time.Time, ended string) map[string]any {
	elapsed := now.Sub(p.start)
	var parts []string
	if e := p.epoch; e != nil {
		parts = append(parts, fmt.Sprintf("epoch %d", e.Epoch), fmt.Sprintf("%v %.6g", e.Kind, e.Objective),
			fmt.Sprintf("swaps accepted %d/%d", p.accepted, p.swaps))
	} else if ended == "" {
		parts = append(parts, "starting")
	}
	parts = append(parts, fmt.Sprintf("%.1f s", elapsed.Seconds()))
	if p.budget > 0 && ended == "" {
		parts = append(parts, fmt.Sprintf("%.1f s left of %v", max(0, (p.budget-elapsed).Seconds()), p.budget))
	}
	head := "fit"
	if ended != "" {
		head += " " + ended
	}
	text := head + ": " + strings.Join(parts, ", ")
	if p.line != "" && ended == "" {
		text += "\n" + p.line
	}

	var b strings.Builder
	b.WriteString(`<div class="sgp-progress" style="font-family:monospace;white-space:pre-wrap">`)
	if ended == "" {
		const style = `style="width:16em;vertical-align:middle"`
		if p.budget > 0 {
			fmt.Fprintf(&b, `<progress value="%.3f" max="%.3f" %s></progress> `, min(elapsed, p.budget).Seconds(), p.budget.Seconds(), style)
		} else {
			b.WriteString(`<progress ` + style + `></progress> `)
		}
	}
	b.WriteString(html.EscapeString(text))
	b.WriteString("</div>")
	return map[string]any{"text/plain": text, "text/html": b.String()}
}

// isInterrupt reports whether err is a cell's interruption.
func isInterrupt(err error) bool {
	var ce *repl.CellError
	return errors.As(err, &ce) && ce.Err != nil
}
