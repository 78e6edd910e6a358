package terminal

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cholqr/sgp/sgp/outfile"
)

// figureSaver writes the figures of a REPL or script run as numbered PNG
// files in one folder: $SGPREPL_OUT if set, otherwise a new temporary
// folder made at the first figure.
type figureSaver struct {
	dir  string
	n    int
	temp bool // dir is a temporary folder this saver made
	// removes is set when the caller removes a temporary folder at its end
	// (cleanup); noted, once the first figure's line has said so.
	removes, noted bool
}

// cleanup removes the temporary folder, if the saver made one; figures in
// $SGPREPL_OUT stay.
func (f *figureSaver) cleanup() {
	if f.temp {
		os.RemoveAll(f.dir)
		f.dir, f.temp = "", false
	}
}

func newFigureSaver() *figureSaver {
	return &figureSaver{dir: os.Getenv("SGPREPL_OUT")}
}

// save writes png as the next figure and returns its path. Each figure
// is a new file, written complete or not at all (outfile.WriteNew); the
// numbers of files already in the folder, from an earlier run in
// $SGPREPL_OUT, are skipped.
func (f *figureSaver) save(png []byte) (string, error) {
	if f.dir == "" {
		dir, err := os.MkdirTemp("", "sgprepl-")
		if err != nil {
			return "", err
		}
		f.dir, f.temp = dir, true
	} else if err := os.MkdirAll(f.dir, 0o755); err != nil {
		return "", err
	}
	for {
		f.n++
		path := filepath.Join(f.dir, fmt.Sprintf("fig-%03d.png", f.n))
		err := outfile.WriteNew(path, func(w io.Writer) error {
			_, err := w.Write(png)
			return err
		})
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return path, err
	}
}

// savedLine returns the line that reports a figure saved at path. In a
// temporary folder that is removed at the end (removes), it says so: in
// full with the first figure, "(temporary)" with the next ones.
func (f *figureSaver) savedLine(path string) string {
	switch {
	case !f.temp || !f.removes:
		return "figure saved: " + path
	case !f.noted:
		f.noted = true
		return "figure saved: " + path + " (temporary: the folder is removed when sgprepl exits; to keep figures, set SGPREPL_OUT to a folder or call the figure's Save(path))"
	}
	return "figure saved: " + path + " (temporary)"
}

// detectInline returns the inline image protocol the terminal announces:
// $SGPREPL_IMAGES (kitty, iterm or file) first, then kitty's and iTerm2's
// (or WezTerm's, which speaks iTerm2's) environment variables; "" for none.
func detectInline(getenv func(string) string) string {
	switch strings.ToLower(getenv("SGPREPL_IMAGES")) {
	case "kitty":
		return "kitty"
	case "iterm", "iterm2":
		return "iterm"
	case "file", "off", "none":
		return ""
	}
	switch {
	case getenv("KITTY_WINDOW_ID") != "" || strings.Contains(getenv("TERM"), "kitty"):
		return "kitty"
	case getenv("TERM_PROGRAM") == "iTerm.app" || getenv("TERM_PROGRAM") == "WezTerm" || getenv("LC_TERMINAL") == "iTerm2":
		return "iterm"
	}
	return ""
}

// writeInline writes png to w as an inline image in the given protocol
// ("" writes nothing).
//
// kitty's graphics protocol sends the base64 PNG in chunks of at most 4096
// bytes, ESC _G a=T,f=100,m=1;<chunk> ESC \, the last with m=0
// (https://sw.kovidgoyal.net/kitty/graphics-protocol/). iTerm2's is one
// escape, ESC ]1337;File=inline=1;size=N:<base64> BEL
// (https://iterm2.com/documentation-images.html).
func writeInline(w io.Writer, protocol string, png []byte) {
	enc := base64.StdEncoding.EncodeToString(png)
	switch protocol {
	case "kitty":
		const chunk = 4096
		for i := 0; i < len(enc); i += chunk {
			end := min(i+chunk, len(enc))
			more := 0
			if end < len(enc) {
				more = 1
			}
			if i == 0 {
				fmt.Fprintf(w, "\x1b_Ga=T,f=100,m=%d;%s\x1b\\", more, enc[i:end])
			} else {
				fmt.Fprintf(w, "\x1b_Gm=%d;%s\x1b\\", more, enc[i:end])
			}
		}
		fmt.Fprintln(w)
	case "iterm":
		fmt.Fprintf(w, "\x1b]1337;File=inline=1;size=%d;preserveAspectRatio=1:%s\a\n", len(png), enc)
	}
}
