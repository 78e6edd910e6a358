package terminal

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// readmeBlock is a fenced code block of README.md.
type readmeBlock struct {
	lang, text string
	line       int // of the opening fence, 1-based
}

// readmeBlocks returns the fenced code blocks of text (a part of
// README.md that starts on line first).
func readmeBlocks(t *testing.T, text string, first int) []readmeBlock {
	t.Helper()
	var blocks []readmeBlock
	var cur *readmeBlock
	var body strings.Builder
	for i, line := range strings.Split(text, "\n") {
		fence := strings.HasPrefix(line, "```")
		switch {
		case cur == nil && fence:
			cur = &readmeBlock{lang: strings.TrimSpace(strings.TrimPrefix(line, "```")), line: first + i}
			body.Reset()
		case cur != nil && fence:
			cur.text = body.String()
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			body.WriteString(line + "\n")
		}
	}
	if cur != nil {
		t.Fatalf("README.md: the code block opened on line %d is not closed", cur.line)
	}
	return blocks
}

// lineOf returns the 1-based line of byte offset off in s.
func lineOf(s string, off int) int { return strings.Count(s[:off], "\n") + 1 }

// readmeSection returns the text between the markers <!-- name:begin -->
// and <!-- name:end --> of README.md, and the line it starts on.
func readmeSection(t *testing.T, readme, name string) (string, int) {
	t.Helper()
	begin := strings.Index(readme, "<!-- "+name+":begin -->")
	end := strings.Index(readme, "<!-- "+name+":end -->")
	if begin < 0 || end < begin {
		t.Fatalf("README.md has no <!-- %s:begin --> … <!-- %s:end --> section", name, name)
	}
	return readme[begin:end], lineOf(readme, begin)
}

// TestReadmeLibraryExample does what the README's "Using the library"
// section tells a user to do, in a temporary directory: it runs the set-up
// commands of its sh block (with the -replace path pointing at this
// checkout), saves its Go block as main.go before `go run`, and checks
// that the program prints the README's output block, line by line, as
// TestReadmeWalkthrough checks claims ("…" for any text), but every
// number exactly as printed. Every other Go block of the README outside the REPL
// walkthrough must be a program too, and is built in the same module, so
// that no example in the README can stop compiling unnoticed.
//
// The go commands run with GOPROXY=off and GOSUMDB=off: the modules come
// from the local module cache, which building this repository has filled,
// so the test needs no network.
func TestReadmeLibraryExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module with the go command; skipped with -short")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command in PATH")
	}
	b, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	repo, err := filepath.Abs(filepath.Dir(readmePath))
	if err != nil {
		t.Fatal(err)
	}

	section, first := readmeSection(t, readme, "library")
	var setup, program, output *readmeBlock
	for _, blk := range readmeBlocks(t, section, first) {
		switch blk.lang {
		case "sh":
			setup = &blk
		case "go":
			program = &blk
		case "text":
			output = &blk
		}
	}
	if setup == nil || program == nil || output == nil {
		t.Fatal("README.md's library section needs a ```sh block of set-up commands, a ```go program and a ```text block of its output")
	}
	if !strings.HasPrefix(program.text, "package main\n") {
		t.Fatalf("README.md, line %d: the library example is not a whole program (it does not start with package main)", program.line)
	}

	// The other Go blocks: everything outside the library section and the
	// walkthrough (REPL input, which TestReadmeWalkthrough runs).
	rest := strings.Replace(readme, section, strings.Repeat("\n", strings.Count(section, "\n")), 1)
	walk, _ := readmeSection(t, rest, "walkthrough")
	rest = strings.Replace(rest, walk, strings.Repeat("\n", strings.Count(walk, "\n")), 1)
	var others []readmeBlock
	for _, blk := range readmeBlocks(t, rest, 1) {
		if blk.lang != "go" {
			continue
		}
		if !strings.HasPrefix(blk.text, "package main\n") {
			t.Errorf("README.md, line %d: a Go example that is not a whole program (package main); make it one, so that it is built here, or move it into the walkthrough", blk.line)
			continue
		}
		others = append(others, blk)
	}

	env := append(os.Environ(), "GOPROXY=off", "GOSUMDB=off", "GOWORK=off", "GOTOOLCHAIN=local", "GOFLAGS=-buildvcs=false")
	dir := t.TempDir()
	var got string
	ran := false
	for i, line := range strings.Split(strings.TrimSpace(setup.text), "\n") {
		line, _, _ = strings.Cut(line, "#")
		for _, cmd := range strings.Split(line, "&&") {
			args := strings.Fields(cmd)
			if len(args) == 0 {
				continue
			}
			where := fmt.Sprintf("README.md, line %d: %s", setup.line+1+i, strings.TrimSpace(cmd))
			switch {
			case args[0] == "mkdir" && len(args) == 2:
				if err := os.Mkdir(filepath.Join(dir, args[1]), 0o755); err != nil {
					t.Fatalf("%s: %v", where, err)
				}
			case args[0] == "cd" && len(args) == 2:
				dir = filepath.Join(dir, args[1])
			case args[0] == "go":
				for k, a := range args {
					if path, ok := strings.CutPrefix(a, "github.com/cholqr/sgp="); ok && k > 0 && args[k-1] == "-replace" {
						t.Logf("%s: the checkout %s is %s here", where, path, repo)
						args[k] = "github.com/cholqr/sgp=" + repo
					}
				}
				if args[1] == "run" {
					if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(program.text), 0o644); err != nil {
						t.Fatal(err)
					}
					for k, blk := range others {
						sub := filepath.Join(dir, fmt.Sprintf("readme_example_%d", k+1))
						if err := os.Mkdir(sub, 0o755); err != nil {
							t.Fatal(err)
						}
						if err := os.WriteFile(filepath.Join(sub, "main.go"), []byte(blk.text), 0o644); err != nil {
							t.Fatal(err)
						}
					}
				}
				c := exec.Command(goBin, args[1:]...)
				c.Dir, c.Env = dir, env
				out, err := c.CombinedOutput()
				if err != nil {
					t.Fatalf("%s failed: %v\n%s", where, err, out)
				}
				if args[1] == "run" {
					got, ran = string(out), true
				}
			default:
				t.Fatalf("%s: this test runs mkdir DIR, cd DIR and go commands only; teach it the new command", where)
			}
		}
	}
	if !ran {
		t.Fatal("README.md's library set-up never runs the program (go run .)")
	}
	for k, blk := range others {
		c := exec.Command(goBin, "build", "-o", os.DevNull, "./"+fmt.Sprintf("readme_example_%d", k+1))
		c.Dir, c.Env = dir, env
		if out, err := c.CombinedOutput(); err != nil {
			t.Errorf("README.md, line %d: the Go example does not build: %v\n%s", blk.line, err, out)
		}
	}

	// The output block, line by line, in order.
	at := 0
	for i, want := range strings.Split(strings.TrimSpace(output.text), "\n") {
		ps := claimPieces(want)
		loc := pattern(ps).FindStringSubmatchIndex(got[at:])
		if loc == nil {
			t.Fatalf("README.md, line %d: the library example does not print\n\t%s\n%s\nit prints:\n%s", output.line+1+i, want, mismatch(ps, got[at:]), got)
		}
		group := 1
		for _, p := range ps {
			if p.kind != 'n' {
				continue
			}
			// Exactly: the program is seeded and prints the same digits
			// on every backend, so a README one digit off is wrong (the
			// walkthrough's ±1, agrees, would let it drift).
			if n := got[at+loc[2*group] : at+loc[2*group+1]]; n != p.text {
				t.Errorf("README.md, line %d: the library example prints %s where the README says %s", output.line+1+i, n, p.text)
			}
			group++
		}
		at += loc[1]
	}
}
