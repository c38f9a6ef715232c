// Package cliutil holds what the five arcport binaries share on the command
// line: the version string, exit codes, atomic output files and the rule that
// progress goes to stderr only when stderr is a terminal.
package cliutil

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/urfave/cli/v2"
)

// Version is the toolkit's version, set at build time with
// -ldflags "-X github.com/arcport/arcport/lib/internal/cliutil.Version=...".
var Version = "0.1.0-dev"

// Exit codes shared by all binaries.
const (
	ExitOK    = 0
	ExitFail  = 1
	ExitUsage = 2
)

// UsageError marks an error as bad usage (exit status 2).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Usagef returns a UsageError.
func Usagef(format string, a ...any) error { return &UsageError{fmt.Sprintf(format, a...)} }

// ExitError carries a specific exit status (for tools that must mirror a
// peer's status codes, such as zimdump's 255) with an optional message.
type ExitError struct {
	Code int
	Msg  string // printed to stderr when not empty
}

func (e *ExitError) Error() string { return e.Msg }

// Run runs app with os.Args and exits: 0 on success, 2 on usage errors, the
// ExitError's code, or 1 with "name: reason" on one line of stderr.
func Run(app *cli.App) {
	app.Version = Version
	app.HideHelpCommand = true
	app.ExitErrHandler = func(*cli.Context, error) {} // we handle errors below
	if app.OnUsageError == nil {
		app.OnUsageError = func(_ *cli.Context, err error, _ bool) error { return &UsageError{err.Error()} }
	}
	err := app.Run(os.Args)
	os.Exit(Report(app.Name, err, os.Stderr))
}

// Report prints err for program name to w and returns the exit status.
func Report(name string, err error, w io.Writer) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		if ee.Msg != "" {
			fmt.Fprintln(w, ee.Msg)
		}
		return ee.Code
	}
	var ue *UsageError
	if errors.As(err, &ue) {
		fmt.Fprintf(w, "%s: %s (see %s -h)\n", name, ue.Msg, name)
		return ExitUsage
	}
	var ce cli.ExitCoder
	if errors.As(err, &ce) {
		if msg := err.Error(); msg != "" {
			fmt.Fprintf(w, "%s: %s\n", name, msg)
		}
		return ce.ExitCode()
	}
	fmt.Fprintf(w, "%s: %s\n", name, err)
	return ExitFail
}

// IsTerminal reports whether f is a character device (a terminal).
func IsTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// AtomicFile is an output file written under a temporary name beside its
// target and renamed into place by Commit, so an interrupted or failed run
// never leaves a partial file under the final name.
type AtomicFile struct {
	*os.File
	final string
	done  bool
}

// CreateAtomic creates a temporary file in the directory of path. It also
// removes the temporary file if the process gets SIGINT or SIGTERM.
func CreateAtomic(path string) (*AtomicFile, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, err
	}
	a := &AtomicFile{File: f, final: path}
	registerCleanup(f.Name())
	return a, nil
}

// Commit flushes, closes and renames the file to its final name.
func (a *AtomicFile) Commit() error {
	if a.done {
		return nil
	}
	a.done = true
	defer unregisterCleanup(a.File.Name())
	if err := a.File.Sync(); err != nil {
		a.File.Close()
		os.Remove(a.File.Name())
		return err
	}
	if err := a.File.Close(); err != nil {
		os.Remove(a.File.Name())
		return err
	}
	if err := os.Chmod(a.File.Name(), 0o644); err != nil {
		os.Remove(a.File.Name())
		return err
	}
	if err := os.Rename(a.File.Name(), a.final); err != nil {
		os.Remove(a.File.Name())
		return err
	}
	return nil
}

// Abort closes and removes the temporary file. It is a no-op after Commit,
// so `defer f.Abort()` is always safe.
func (a *AtomicFile) Abort() {
	if a.done {
		return
	}
	a.done = true
	a.File.Close()
	os.Remove(a.File.Name())
	unregisterCleanup(a.File.Name())
}

var (
	cleanupCh    = make(chan cleanupReq)
	cleanupStart = make(chan struct{}, 1)
)

type cleanupReq struct {
	name string
	add  bool
}

func registerCleanup(name string) {
	select {
	case cleanupStart <- struct{}{}:
		go cleanupLoop()
	default:
	}
	cleanupCh <- cleanupReq{name, true}
}

func unregisterCleanup(name string) { cleanupCh <- cleanupReq{name, false} }

// cleanupLoop removes registered temp files when a termination signal
// arrives, then exits with 130 (SIGINT) or 143 (SIGTERM) like a shell would.
func cleanupLoop() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	files := map[string]bool{}
	for {
		select {
		case r := <-cleanupCh:
			if r.add {
				files[r.name] = true
			} else {
				delete(files, r.name)
			}
		case s := <-sig:
			for f := range files {
				os.Remove(f)
			}
			if s == syscall.SIGTERM {
				os.Exit(143)
			}
			os.Exit(130)
		}
	}
}

// OpenInput opens name for reading; "" and "-" mean stdin.
func OpenInput(name string) (io.ReadCloser, string, error) {
	if name == "" || name == "-" {
		return io.NopCloser(os.Stdin), "-", nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, name, err
	}
	return f, name, nil
}
