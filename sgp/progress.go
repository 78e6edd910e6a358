package sgp

import "time"

// progressEvery is how often a long phase without epochs (the forward
// start, the hybrid's refinement) writes a progress line: a phase shorter
// than that says nothing.
const progressEvery = 5 * time.Second

// progressTicker says when a phase that started at start is due to write
// its next progress line: at a fixed period (progressEvery by default),
// and never without a progress writer.
type progressTicker struct {
	on          bool
	every       time.Duration
	start, last time.Time
}

// newTicker returns the ticker of a phase that starts now, writing every
// every (progressEvery if 0) when on.
func newTicker(on bool, every time.Duration) *progressTicker {
	if every == 0 {
		every = progressEvery
	}
	now := time.Now()
	return &progressTicker{on: on, every: every, start: now, last: now}
}

// due reports whether a line is due now, and if so starts the next period.
func (t *progressTicker) due() bool {
	if !t.on {
		return false
	}
	if now := time.Now(); now.Sub(t.last) >= t.every {
		t.last = now
		return true
	}
	return false
}

// elapsed returns the time since the phase started.
func (t *progressTicker) elapsed() time.Duration { return time.Since(t.start) }
