package cliutil

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/arcport/arcport/lib/store"
)

// Version is the toolkit's version, set at build time with
// -ldflags "-X github.com/arcport/arcport/lib/internal/cliutil.Version=..."
// (the Makefile: git describe --tags --always --dirty). It is what the
// software fields of written records name; --version prints
// VersionString, which falls back to what the go command recorded in the
// binary when no -ldflags set Version.
var Version = defaultVersion

// Exit codes shared by all binaries.
const (
	ExitOK    = 0
	ExitFail  = 1
	ExitUsage = 2
)

// UsageError marks an error as bad usage (exit status 2).
type UsageError struct{ Msg string }

// Error returns the message.
func (e *UsageError) Error() string { return e.Msg }

// Usagef returns a UsageError.
func Usagef(format string, a ...any) error { return &UsageError{fmt.Sprintf(format, a...)} }

// ExitError carries a specific exit status (for tools that must mirror a
// peer's status codes, such as zimdump's 255) with an optional message.
type ExitError struct {
	Code int
	Msg  string // printed to stderr when not empty
}

// Error returns the message (empty when only the status matters).
func (e *ExitError) Error() string { return e.Msg }

// Run runs app with os.Args and exits: 0 on success, 2 on usage errors, the
// ExitError's code, or 1 with "name: reason" on one line of stderr.
//
// Flags may follow file names ("tool in.arc -o out.warc.gz"): Run moves them
// in front before urfave/cli, which stops at the first argument, parses them.
// --version has no short form, since -v means verbose in every binary.
func Run(app *cli.App) {
	Prepare(app)
	os.Args = append(os.Args[:1], ReorderArgs(app, os.Args[1:])...)
	stop := StartProfiles()
	err := app.Run(os.Args)
	stop()
	ReportStoreStats(app.Name, os.Stderr)
	os.Exit(Report(app.Name, err, os.Stderr))
}

// StartProfiles starts the profiles the environment asks for
// (ARCPORT_CPUPROFILE, ARCPORT_MEMPROFILE); the returned function ends them.
// Run calls it; zimdump, which does not go through Run, too.
func StartProfiles() func() {
	stopProfile := startProfile()
	stopHeap := startHeapProfile()
	return func() {
		stopHeap()
		stopProfile()
	}
}

// startProfile writes a CPU profile to the file named by
// ARCPORT_CPUPROFILE, for benchmarks (go tool pprof BINARY FILE); the
// returned function ends it.
func startProfile() func() {
	name := os.Getenv("ARCPORT_CPUPROFILE")
	if name == "" {
		return func() {}
	}
	f, err := os.Create(name)
	if err != nil {
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// startHeapProfile writes, when ARCPORT_MEMPROFILE names a file, the heap
// profile taken when the heap in use was largest (sampled every 50 ms; a
// profile is written again each time the peak grows by a tenth), for
// memory benchmarks (go tool pprof -sample_index=inuse_space BINARY FILE).
func startHeapProfile() func() {
	name := os.Getenv("ARCPORT_MEMPROFILE")
	if name == "" {
		return func() {}
	}
	runtime.MemProfileRate = 64 << 10
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		var peak uint64
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak+peak/10 {
				peak = v
				runtime.GC() // the profile shows the heap as of the last GC
				if f, err := os.Create(name); err == nil {
					pprof.WriteHeapProfile(f)
					f.Close()
				}
			}
		}
	}()
	return func() { close(done); <-finished }
}

// ReportStoreStats prints, when ARCPORT_STORE_STATS is set, how many
// requests and body bytes the run's s3:// and http(s):// reads and writes
// took ("NAME: storage: N requests, M bytes"), for benchmarks and checks.
func ReportStoreStats(name string, w io.Writer) {
	if os.Getenv("ARCPORT_STORE_STATS") == "" {
		return
	}
	storeMu.Lock()
	s := theStore
	storeMu.Unlock()
	var st store.Stats
	if s != nil {
		st = s.Stats()
	}
	fmt.Fprintf(w, "%s: storage: %s\n", name, st)
}

// Prepare sets what every arcport binary shares on app before it runs: the
// version (--version prints VersionString), no "help" command, a
// "completion" command, errors left to Report, and the usage status (2)
// for a bad flag, an unknown command or a missing one, in the app and in
// each of its commands (urfave/cli would exit 1 for a bad flag of a
// command, 3 for an unknown command and 0 for none). Boolean flags show no
// "(default: false)".
func Prepare(app *cli.App) {
	app.Version = VersionString()
	cli.VersionFlag = &cli.BoolFlag{Name: "version", Usage: "print the version", DisableDefaultText: true}
	cli.VersionPrinter = func(c *cli.Context) { fmt.Fprintln(c.App.Writer, VersionString()) }
	app.HideHelpCommand = true
	files := app.Action != nil
	app.ExitErrHandler = func(*cli.Context, error) {} // Report handles errors
	usage := func(_ *cli.Context, err error, _ bool) error { return &UsageError{err.Error()} }
	if app.OnUsageError == nil {
		app.OnUsageError = usage
	}
	if app.Action != nil || len(app.Commands) == 0 {
		app.Flags = addFlags(app.Flags, StorageFlags())
	}
	var walk func([]*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, c := range cmds {
			if c.OnUsageError == nil {
				c.OnUsageError = usage
			}
			if c.Action != nil {
				c.Flags = addFlags(c.Flags, StorageFlags())
			}
			walk(c.Subcommands)
		}
	}
	walk(app.Commands)
	if app.Command("completion") == nil {
		cc := completionCommand(app, files)
		cc.OnUsageError = usage
		app.Commands = append(app.Commands, cc)
	}
	hideFalseDefaults(app.Flags)
	for _, c := range app.Commands {
		hideFalseDefaults(c.Flags)
	}
	if len(app.Commands) > 0 && app.Action == nil {
		app.Action = func(c *cli.Context) error {
			var names []string
			for _, cmd := range app.Commands {
				if !cmd.Hidden {
					names = append(names, cmd.Name)
				}
			}
			if c.NArg() == 0 {
				return Usagef("no command: one of %s", strings.Join(names, ", "))
			}
			return Usagef("unknown command %q: one of %s", c.Args().First(), strings.Join(names, ", "))
		}
	}
}

// hideFalseDefaults keeps urfave/cli from appending "(default: false)" to
// the boolean flags that are off by default: an option is off until given.
func hideFalseDefaults(fs []cli.Flag) {
	for _, f := range fs {
		if b, ok := f.(*cli.BoolFlag); ok && !b.Value && b.DefaultText == "" {
			b.DisableDefaultText = true
		}
	}
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

// IsTerminal reports whether f is a terminal (it answers the terminal
// ioctl; /dev/null and other character devices do not).
func IsTerminal(f *os.File) bool {
	return isTerminal(f.Fd())
}

// AtomicFile is an output file written under a temporary name beside its
// target and renamed into place by Commit, so an interrupted or failed run
// never leaves a partial file under the final name.
type AtomicFile struct {
	*os.File
	final   string
	done    bool
	unnamed bool // O_TMPFILE: named only by Commit, just before the rename
	direct  bool // the target is a device, FIFO or socket: written in place, never renamed over
	dirty   int  // bytes written since the last startWriteback
}

// writebackEvery is how many bytes Write lets pile up before it asks the
// kernel to start writing them out.
const writebackEvery = 8 << 20

// Write writes to the file. Every 8 MiB it has the kernel start writing
// the file out (on Linux), so that the disk works while the output is
// still being made and Commit's fsync does not wait for all of it.
func (a *AtomicFile) Write(p []byte) (int, error) {
	n, err := a.File.Write(p)
	if a.dirty += n; a.dirty >= writebackEvery {
		a.dirty = 0
		startWriteback(a.File)
	}
	return n, err
}

// CreateAtomic creates a temporary file in the directory of path. It also
// removes the temporary file if the process gets SIGINT or SIGTERM.
//
// A target that exists and is not a regular file or a folder (/dev/null,
// /dev/stdout, a FIFO, a socket) is opened and written in place: a
// rename would replace the device node with a regular file.
func CreateAtomic(path string) (*AtomicFile, error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		return &AtomicFile{File: f, final: path, direct: true}, nil
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if f, ok := createUnnamed(dir); ok {
		// no name until Commit: SIGKILL leaves nothing behind either
		watchSignals() // SIGINT/SIGTERM before Commit: exit 130/143, nothing named
		return &AtomicFile{File: f, final: path, unnamed: true}, nil
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, err
	}
	a := &AtomicFile{File: f, final: path}
	registerCleanup(f.Name())
	return a, nil
}

// name links an unnamed file under a temporary name beside its target.
func (a *AtomicFile) name() (string, error) {
	dir, base := filepath.Split(a.final)
	for i := 0; ; i++ {
		name := filepath.Join(dir, "."+base+".tmp-"+strconv.FormatInt(time.Now().UnixNano()%1e9+int64(i), 10))
		sigMu.Lock()
		err := nameUnnamed(a.File, name)
		if err == nil {
			tempFiles[name] = true
		}
		sigMu.Unlock()
		if err == nil {
			watchSignals()
			return name, nil
		}
		if !os.IsExist(err) || i > 100 {
			return "", err
		}
	}
}

// Commit flushes, closes and renames the file to its final name. If a
// termination signal has arrived, Commit does not rename: the signal handler
// removes the temporary file and ends the process (status 130 or 143).
func (a *AtomicFile) Commit() error {
	if a.done {
		return nil
	}
	a.done = true
	if a.direct {
		return a.File.Close()
	}
	name := a.File.Name()
	if a.unnamed {
		if err := a.File.Sync(); err != nil {
			a.File.Close()
			return err
		}
		var err error
		if name, err = a.name(); err != nil {
			a.File.Close()
			return err
		}
	}
	fail := func(err error) error {
		os.Remove(name)
		unregisterCleanup(name)
		return err
	}
	if err := a.File.Sync(); err != nil {
		a.File.Close()
		return fail(err)
	}
	if err := a.File.Close(); err != nil {
		return fail(err)
	}
	if err := os.Chmod(name, 0o644); err != nil {
		return fail(err)
	}
	// Let a signal that arrived with the end of the input (Ctrl-C on a
	// pipeline) reach the handler before deciding: the kernel may run the
	// thread that takes it only after this one has seen end of file. Then
	// decide under the lock the handler takes: either the rename happens
	// first and the file is complete, or the handler removes it and the
	// rename never happens. The grace costs a few milliseconds per output.
	runtime.Gosched()
	time.Sleep(commitGrace)
	runtime.Gosched()
	sigMu.Lock()
	defer sigMu.Unlock()
	select {
	case s := <-sigCh:
		handleSignal(s) // does not return
	default:
	}
	// the handler's goroutine took it and waits for the lock
	if s := sigTaken.Load(); s != nil {
		handleSignal(*s) // does not return
	}
	// Under load the kernel may not yet have run the thread it picked to
	// take the signal: the signal is then still pending in the kernel.
	if s := kernelPending(); s != nil {
		handleSignal(s) // does not return
	}
	if err := os.Rename(name, a.final); err != nil {
		os.Remove(name)
		delete(tempFiles, name)
		return err
	}
	delete(tempFiles, name)
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
	if a.unnamed || a.direct {
		return // it never had a name, or the name is the device's own
	}
	os.Remove(a.File.Name())
	unregisterCleanup(a.File.Name())
}

// commitGrace is how long Commit waits for a signal in flight.
const commitGrace = 5 * time.Millisecond

// Temporary files to remove when SIGINT or SIGTERM arrives. sigMu is held
// while the handler removes them and exits, and while Commit renames, so the
// two never interleave.
var (
	sigMu     sync.Mutex
	tempFiles = map[string]bool{}
	aborts    = map[int]func(){} // remote outputs to abort
	abortID   int
	sigCh     = make(chan os.Signal, 1)
	sigTaken  atomic.Pointer[os.Signal] // taken by the handler, which waits for sigMu
	sigOnce   sync.Once
)

func watchSignals() {
	sigOnce.Do(func() {
		signal.Notify(sigCh, os.Interrupt, syscall.SIGTERM)
		go func() {
			s := <-sigCh
			// said before waiting for the lock: a Commit holding it
			// sees the signal and does not rename
			sigTaken.Store(&s)
			sigMu.Lock()
			handleSignal(s)
		}()
	})
}

func registerCleanup(name string) {
	watchSignals()
	sigMu.Lock()
	tempFiles[name] = true
	sigMu.Unlock()
}

// registerAbort has abort run if SIGINT or SIGTERM ends the process.
func registerAbort(abort func()) int {
	watchSignals()
	sigMu.Lock()
	defer sigMu.Unlock()
	abortID++
	aborts[abortID] = abort
	return abortID
}

func unregisterAbort(id int) {
	sigMu.Lock()
	delete(aborts, id)
	sigMu.Unlock()
}

func unregisterCleanup(name string) {
	sigMu.Lock()
	delete(tempFiles, name)
	sigMu.Unlock()
}

// handleSignal removes the registered temporary files and exits with 130
// (SIGINT) or 143 (SIGTERM) like a shell would. sigMu must be held; it is
// never released, so no Commit can rename after this point.
func handleSignal(s os.Signal) {
	for f := range tempFiles {
		os.Remove(f)
	}
	for _, abort := range aborts {
		abort() // aborts the multipart upload: no object, no parts left
	}
	if s == syscall.SIGTERM {
		os.Exit(143)
	}
	os.Exit(130)
}

// OpenInput opens name for reading; "" and "-" mean stdin; s3:// and
// http(s):// names are streamed (one GET, resumed by Range after a dropped
// connection; see lib/store). The name returned is the one to show in
// messages (without credentials).
func OpenInput(name string) (io.ReadCloser, string, error) {
	if name == "" || name == "-" {
		return io.NopCloser(os.Stdin), "-", nil
	}
	if IsRemote(name) {
		r, err := Store().Open(context.Background(), name)
		return r, store.Redact(name), err
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, name, err
	}
	return f, name, nil
}

// ReorderArgs moves flags that follow positional arguments in front of them,
// for the app's flags or, when args name one of its commands, for that
// command's flags. A flag's value (the next argument) moves with it unless the
// flag is boolean; everything after "--" stays in place.
func ReorderArgs(app *cli.App, args []string) []string {
	flags := app.Flags
	prefix := 0
	if len(app.Commands) > 0 {
		takes := valueFlags(app.Flags)
		for i := 0; i < len(args); i++ {
			a := args[i]
			if a == "--" {
				return args
			}
			if len(a) > 1 && a[0] == '-' {
				if n := flagName(a); takes[n] && !strings.Contains(a, "=") {
					i++
				}
				continue
			}
			cmd := app.Command(a)
			if cmd == nil {
				break // not a command: a default action's file argument
			}
			flags = cmd.Flags
			prefix = i + 1
			break
		}
	}
	out := append([]string(nil), args[:prefix]...)
	return append(out, moveFlags(args[prefix:], valueFlags(flags))...)
}

func flagName(a string) string {
	n := strings.TrimLeft(a, "-")
	if i := strings.IndexByte(n, '='); i >= 0 {
		n = n[:i]
	}
	return n
}

// valueFlags returns the names of the flags that take a value.
func valueFlags(fs []cli.Flag) map[string]bool {
	m := map[string]bool{}
	for _, f := range fs {
		if _, ok := f.(*cli.BoolFlag); ok {
			continue
		}
		for _, n := range f.Names() {
			m[n] = true
		}
	}
	return m
}

func moveFlags(args []string, takes map[string]bool) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		if takes[flagName(a)] && !strings.Contains(a, "=") && i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	return append(flags, pos...)
}

// kernelPending reports a SIGINT or SIGTERM the kernel holds pending for
// this process or thread (Linux /proc/self/status ShdPnd and SigPnd), or nil.
func kernelPending() os.Signal {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return nil
	}
	return pendingIn(string(b))
}

// pendingIn reads the pending-signal masks of a /proc/<pid>/status text.
func pendingIn(status string) os.Signal {
	for _, line := range strings.Split(status, "\n") {
		name, val, ok := strings.Cut(line, ":")
		if !ok || (name != "ShdPnd" && name != "SigPnd") {
			continue
		}
		mask, err := strconv.ParseUint(strings.TrimSpace(val), 16, 64)
		if err != nil {
			continue
		}
		if mask&(1<<(uint(syscall.SIGTERM)-1)) != 0 {
			return syscall.SIGTERM
		}
		if mask&(1<<(uint(syscall.SIGINT)-1)) != 0 {
			return syscall.SIGINT
		}
	}
	return nil
}
