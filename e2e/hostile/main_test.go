package hostile

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	long       = flag.Bool("hostile.long", false, "run the long sweep: every truncation offset, more bit flips, 10 GB bombs")
	caseTime   = flag.Duration("hostile.timeout", 20*time.Second, "time limit of one command")
	rssLimitMB = flag.Int64("hostile.rss", 512, "peak RSS limit of one command, in MiB")
)

// binaries are the commands under test; a missing cmd/<name> skips its cases.
var binaries = []string{"arc2warc", "htcache", "waczpack", "zimdump", "mirrorget"}

var (
	repo     string // repository root
	binDir   string // where TestMain built the binaries
	built    = map[string]bool{}
	buildLog = map[string]string{} // name -> go build output when it failed
)

func TestMain(m *testing.M) {
	flag.Parse()
	if *long {
		set := false
		flag.Visit(func(f *flag.Flag) { set = set || f.Name == "hostile.timeout" })
		if !set {
			*caseTime = 2 * time.Minute // 10 GiB bombs stream for a while
		}
	}
	code := func() int {
		wd, _ := os.Getwd()
		repo = filepath.Clean(filepath.Join(wd, "..", ".."))
		dir, err := os.MkdirTemp("", "hostile-bin-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		binDir = dir
		var pkgs []string
		for _, b := range binaries {
			if st, err := os.Stat(filepath.Join(repo, "cmd", b)); err == nil && st.IsDir() {
				pkgs = append(pkgs, "./cmd/"+b)
			}
		}
		// One build for all (shared compilation); on failure, one per
		// command so that a broken command fails only its own cases.
		if out, err := goBuild(pkgs...); err != nil {
			for _, p := range pkgs {
				if out, err := goBuild(p); err != nil {
					buildLog[filepath.Base(p)] = string(out)
				} else {
					built[filepath.Base(p)] = true
				}
			}
			_ = out
		} else {
			for _, p := range pkgs {
				built[filepath.Base(p)] = true
			}
		}
		defer cleanupShared()
		return m.Run()
	}()
	os.Exit(code)
}

func goBuild(pkgs ...string) ([]byte, error) {
	if len(pkgs) == 0 {
		return nil, nil
	}
	cmd := exec.Command("go", append([]string{"build", "-o", binDir + string(os.PathSeparator)}, pkgs...)...)
	cmd.Dir = repo
	return cmd.CombinedOutput()
}

// bin returns the path of a built command, skipping the test when the
// command does not exist yet and failing it when it does not build.
func bin(t testing.TB, name string) string {
	t.Helper()
	if log, ok := buildLog[name]; ok {
		t.Fatalf("go build ./cmd/%s failed:\n%s", name, log)
	}
	if !built[name] {
		t.Skipf("cmd/%s does not exist yet", name)
	}
	return filepath.Join(binDir, name)
}

// ---- running a command ----

// run is one command line to run under the limits.
type run struct {
	bin     string
	args    []string
	dir     string    // working directory
	stdin   io.Reader // nil: /dev/null
	stdout  string    // file to send stdout to ("" keeps up to keepOut bytes in memory)
	tmpDir  string    // TMPDIR for the command (must be empty afterwards)
	timeout time.Duration
	env     []string
}

// keepOut is how much of stdout a result keeps in memory.
const keepOut = 64 << 20

// result is what one command did.
type result struct {
	cmdline  string
	out      []byte // first keepOut bytes of stdout
	outN     int64  // bytes written to stdout
	stderr   string // first 1 MiB of stderr
	errN     int64
	code     int // exit status; -1 when killed by a signal
	signal   syscall.Signal
	rssKB    int64 // peak resident set size (sampled VmHWM)
	elapsed  time.Duration
	timedOut bool
}

func (r *result) String() string {
	s := r.stderr
	if len(s) > 2000 {
		s = s[:2000] + "..."
	}
	return fmt.Sprintf("%s\n  exit %d, %d stdout bytes, peak RSS %d MiB, %v\n  stderr: %s", r.cmdline, r.code, r.outN, r.rssKB>>10, r.elapsed.Round(time.Millisecond), s)
}

// capBuf keeps the first max bytes written and counts them all.
type capBuf struct {
	mu  sync.Mutex
	b   bytes.Buffer
	n   int64
	max int
}

func (c *capBuf) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n += int64(len(p))
	if room := c.max - c.b.Len(); room > 0 {
		c.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// start starts r; finish waits for it. Between them the caller may signal
// the process.
type started struct {
	r      *run
	cmd    *exec.Cmd
	cancel context.CancelFunc
	ctx    context.Context
	out    *capBuf
	errb   *capBuf
	outF   *os.File
	t0     time.Time
	limit  time.Duration
	stop   chan struct{}
	rss    func() int64
}

func (r *run) start(t testing.TB) *started {
	t.Helper()
	to := r.timeout
	if to == 0 {
		to = *caseTime
	}
	ctx, cancel := context.WithTimeout(context.Background(), to)
	cmd := exec.CommandContext(ctx, r.bin, r.args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), r.env...)
	if r.tmpDir != "" {
		cmd.Env = append(cmd.Env, "TMPDIR="+r.tmpDir)
	}
	cmd.Stdin = r.stdin
	s := &started{r: r, cmd: cmd, cancel: cancel, ctx: ctx, limit: to, errb: &capBuf{max: 1 << 20}, out: &capBuf{max: keepOut}}
	if r.stdout != "" {
		f, err := os.Create(r.stdout)
		if err != nil {
			t.Fatal(err)
		}
		s.outF = f
		cmd.Stdout = f
	} else {
		cmd.Stdout = s.out
	}
	cmd.Stderr = s.errb
	cmd.WaitDelay = 5 * time.Second
	s.t0 = time.Now()
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	s.stop = make(chan struct{})
	s.rss = watchRSS(cmd.Process.Pid, s.stop)
	return s
}

func (s *started) signal(sig os.Signal) { s.cmd.Process.Signal(sig) }

func (s *started) finish(t testing.TB) *result {
	t.Helper()
	// Sample until the process has exited (it is then a zombie until
	// Wait reaps it, and its status has no VmHWM line any more).
	waitErr := make(chan error, 1)
	go func() { waitErr <- s.cmd.Wait() }()
	var err error
	select {
	case err = <-waitErr:
	case <-time.After(s.limit + s.cmd.WaitDelay + time.Minute):
		// Wait waits for exec's stdin copier, which a Read of a test's
		// own feed can block for ever: fail rather than hang the package.
		t.Fatalf("%s: Wait has not returned %v after the time limit (a stdin feed left open?)", cmdline(s.r), s.cmd.WaitDelay+time.Minute)
	}
	close(s.stop)
	res := &result{cmdline: cmdline(s.r), elapsed: time.Since(s.t0)}
	res.timedOut = s.ctx.Err() == context.DeadlineExceeded
	s.cancel()
	if s.outF != nil {
		st, _ := s.outF.Stat()
		s.outF.Close()
		res.outN = st.Size()
	} else {
		res.out, res.outN = s.out.b.Bytes(), s.out.n
	}
	res.stderr, res.errN = s.errb.b.String(), s.errb.n
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		res.code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.signal = ws.Signal()
		}
	default:
		if !res.timedOut {
			t.Fatalf("%s: %v", res.cmdline, err)
		}
		res.code = -1
	}
	res.rssKB = s.rss()
	return res
}

// exec runs r to its end.
func (r *run) exec(t testing.TB) *result {
	t.Helper()
	return r.start(t).finish(t)
}

func cmdline(r *run) string {
	var b strings.Builder
	b.WriteString(filepath.Base(r.bin))
	for _, a := range r.args {
		b.WriteByte(' ')
		if len(a) > 200 {
			a = a[:200] + "..."
		}
		if strings.ContainsAny(a, " \t'\"") || a == "" {
			a = "'" + a + "'"
		}
		b.WriteString(a)
	}
	return b.String()
}

// ---- what every case asserts ----

// expect describes what a case may do.
type expect struct {
	// name must appear in stderr when the command fails ("" to skip the
	// check: openzim-compatible zimdump messages do not name the file).
	name string
	// orName: other names that will do (a member of the file, a URL).
	orName []string
	// offset: a failure reason must give a byte offset ("offset N").
	offset bool
	// mustFail: exit status must be nonzero.
	mustFail bool
	// mustNotice: nonzero exit, or a warning on stderr (a damaged input
	// repaired or skipped must be reported).
	mustNotice bool
	// okCodes lists the accepted nonzero exit statuses (default: 1).
	okCodes []int
	// reportOnStdout: the command prints its findings on stdout (a
	// checker's report) and they count as the reason.
	reportOnStdout bool
	// rssMB overrides the RSS limit.
	rssMB int64
	// at, when > 0 (or atZero), is the offset the first "offset N" of a
	// failure or warning must give: the record the damage is in.
	at     int64
	atZero bool
}

var (
	panicRE  = regexp.MustCompile(`(?m)^panic: |^goroutine \d+ \[|^fatal error: |runtime error:|SIGSEGV`)
	offsetRE = regexp.MustCompile(`offset \d+|at byte \d+|\bbyte \d+`)
	// wholeFileRE: reasons about the file as a whole (its first bytes),
	// which need no offset.
	wholeFileRE = regexp.MustCompile(`not an? [A-Za-z ]+ file|bad gzip header|empty file|is empty|too small to contain|[Ii]nvalid magic`)
	offsetNumRE = regexp.MustCompile(`record at offset (\d+)`)
)

// maxLine is the longest stderr line accepted: reasons quote bad values
// clipped, never a whole 100 MB header line.
const maxLine = 4096

// check asserts the common promises on res and reports whether they held.
func check(t testing.TB, what string, res *result, e expect) bool {
	t.Helper()
	fail := func(format string, args ...any) bool {
		t.Errorf("%s: %s\n  %s", what, fmt.Sprintf(format, args...), res)
		return false
	}
	t.Logf("%s: exit %d, peak RSS %d MiB, %v", what, res.code, res.rssKB>>10, res.elapsed.Round(time.Millisecond))
	if res.timedOut {
		return fail("did not finish within the time limit")
	}
	if res.signal != 0 {
		return fail("killed by signal %v", res.signal)
	}
	if panicRE.MatchString(res.stderr) {
		return fail("Go panic or runtime error on stderr")
	}
	lim := *rssLimitMB
	if e.rssMB > 0 {
		lim = e.rssMB
	}
	if res.rssKB > lim<<10 {
		return fail("peak RSS %d MiB exceeds %d MiB", res.rssKB>>10, lim)
	}
	if res.errN > 1<<20 {
		return fail("stderr holds %d bytes", res.errN)
	}
	for _, l := range strings.Split(res.stderr, "\n") {
		if len(l) > maxLine {
			return fail("stderr line of %d bytes", len(l))
		}
	}
	if e.at > 0 || e.atZero {
		if m := offsetNumRE.FindStringSubmatch(res.stderr); m != nil && m[1] != strconv.FormatInt(e.at, 10) {
			return fail("first offset reported is %s, want %d (the start of the damaged record)", m[1], e.at)
		}
	}
	if res.code == 0 {
		if e.mustFail {
			return fail("exit 0 on bad input")
		}
		if e.mustNotice && strings.TrimSpace(res.stderr) == "" {
			return fail("exit 0 and nothing on stderr for a damaged input (silent loss)")
		}
		return true
	}
	codes := e.okCodes
	if codes == nil {
		codes = []int{1}
	}
	okCode := false
	for _, c := range codes {
		okCode = okCode || res.code == c
	}
	if !okCode {
		return fail("exit status %d, want one of %v", res.code, codes)
	}
	reason := strings.TrimSpace(res.stderr)
	if e.reportOnStdout {
		reason = strings.TrimSpace(res.stderr + "\n" + string(res.out))
	}
	if reason == "" {
		return fail("nonzero exit without a reason on stderr")
	}
	named := e.name == "" || strings.Contains(reason, e.name)
	for _, n := range e.orName {
		named = named || strings.Contains(reason, n)
	}
	if !named {
		return fail("reason does not name the file %q", e.name)
	}
	if e.offset && !offsetRE.MatchString(reason) && !wholeFileRE.MatchString(reason) {
		return fail("reason gives no byte offset")
	}
	return true
}

// ---- the file system around a case ----

// snapshot records the files under a directory.
type snapshot map[string]string

func snap(t testing.TB, root string) snapshot {
	t.Helper()
	s := snapshot{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		info, err := d.Info()
		if err != nil {
			return nil
		}
		sig := fmt.Sprintf("%v %d %d", info.Mode(), info.Size(), info.ModTime().UnixNano())
		if info.Mode()&fs.ModeSymlink != 0 {
			l, _ := os.Readlink(p)
			sig += " -> " + l
		}
		s[rel] = sig
		return nil
	})
	return s
}

// changes lists the paths added, removed or changed from a to b, except
// those under one of the allowed relative paths.
func changes(a, b snapshot, allowed ...string) []string {
	var out []string
	under := func(p string) bool {
		for _, al := range allowed {
			if p == al || strings.HasPrefix(p, al+string(os.PathSeparator)) {
				return true
			}
		}
		return false
	}
	for p, s := range b {
		if a[p] != s && !under(p) {
			out = append(out, p)
		}
	}
	for p := range a {
		if _, ok := b[p]; !ok && !under(p) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// caseDir is a fresh directory tree for one case: in/ (inputs), out/ (the
// only place a command may write), tmp/ (its TMPDIR) and work/ (its working
// directory).
type caseDir struct {
	root, in, out, tmp, work string
	before                   snapshot
}

func newCase(t testing.TB) *caseDir {
	t.Helper()
	root := t.TempDir()
	c := &caseDir{root: root, in: filepath.Join(root, "in"), out: filepath.Join(root, "out"), tmp: filepath.Join(root, "tmp"), work: filepath.Join(root, "work")}
	for _, d := range []string{c.in, c.out, c.tmp, c.work} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// put writes an input file and returns its path.
func (c *caseDir) put(t testing.TB, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(c.in, name)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// freeze takes the snapshot later compared by contained.
func (c *caseDir) freeze(t testing.TB) { c.before = snap(t, c.root) }

func (c *caseDir) cmd(bin string, args ...string) *run {
	return &run{bin: bin, args: args, dir: c.work, tmpDir: c.tmp}
}

// contained asserts nothing changed outside out/ (allowed extra paths are
// relative to the case root), TMPDIR is empty and work/ untouched.
func (c *caseDir) contained(t testing.TB, what string, res *result, allowed ...string) bool {
	t.Helper()
	if c.before == nil {
		t.Fatal("caseDir.freeze not called")
	}
	ch := changes(c.before, snap(t, c.root), append([]string{"out", "tmp"}, allowed...)...)
	if len(ch) > 0 {
		t.Errorf("%s: wrote outside its target: %v\n  %s", what, ch, res)
		return false
	}
	if left, _ := os.ReadDir(c.tmp); len(left) > 0 {
		t.Errorf("%s: left %d files in TMPDIR (%s...)\n  %s", what, len(left), left[0].Name(), res)
		return false
	}
	return true
}

// outFiles lists what is in out/ (names relative to out/).
func (c *caseDir) outFiles(t testing.TB) []string {
	t.Helper()
	var names []string
	filepath.WalkDir(c.out, func(p string, d fs.DirEntry, err error) error {
		if err == nil && p != c.out && !d.IsDir() {
			rel, _ := filepath.Rel(c.out, p)
			names = append(names, rel)
		}
		return nil
	})
	sort.Strings(names)
	return names
}

// atomicOut asserts the -o contract: after a failure out/ holds nothing;
// after a success exactly the final file. salvage, when not "", is the
// stderr line of a tool that exits 1 after skipping damaged records but
// keeps (commits) what it could convert: then the file may be there.
func (c *caseDir) atomicOut(t testing.TB, what string, res *result, final, salvage string) bool {
	t.Helper()
	files := c.outFiles(t)
	if res.code != 0 && !(salvage != "" && res.code == 1 && strings.Contains(res.stderr, salvage)) {
		if len(files) > 0 {
			t.Errorf("%s: failed but left %v in the output directory\n  %s", what, files, res)
			return false
		}
		return true
	}
	if len(files) != 1 || files[0] != final {
		t.Errorf("%s: succeeded; output directory holds %v, want just %s\n  %s", what, files, final, res)
		return false
	}
	return true
}

// ---- shared generated inputs ----

var (
	sharedMu   sync.Mutex
	sharedDir  string
	sharedOnce = map[string]*sync.Once{}
)

// shared returns the path of a generated input made once per test binary by
// gen (which writes to the path it is given).
func shared(t testing.TB, name string, gen func(t testing.TB, path string)) string {
	t.Helper()
	sharedMu.Lock()
	if sharedDir == "" {
		d, err := os.MkdirTemp("", "hostile-shared-")
		if err != nil {
			sharedMu.Unlock()
			t.Fatal(err)
		}
		sharedDir = d
	}
	once := sharedOnce[name]
	if once == nil {
		once = new(sync.Once)
		sharedOnce[name] = once
	}
	sharedMu.Unlock()
	p := filepath.Join(sharedDir, name)
	once.Do(func() {
		tmp := p + ".gen"
		gen(t, tmp)
		if err := os.Rename(tmp, p); err != nil {
			t.Fatal(err)
		}
	})
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("generated input %s missing (its generator failed in another test)", name)
	}
	return p
}

func cleanupShared() {
	if sharedDir != "" {
		os.RemoveAll(sharedDir)
	}
}

// fixture reads a file under testdata/.
func fixture(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repo, "testdata", rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// limiter runs at most two commands at once across parallel subtests (the
// machine has two cores shared with others).
var limiter = make(chan struct{}, 2)

func acquire(t testing.TB) {
	limiter <- struct{}{}
	t.Cleanup(func() { <-limiter })
}
