package hostile

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/htcache"
)

// signalAfter is how long a command runs before it is signalled.
const signalAfter = 200 * time.Millisecond

// oneCore keeps a signalled command on one core (htcache export reads a
// file, not a pipe the test holds open: midRun stops it part way through
// the file, and fails when it has read it all).
var oneCore = []string{"GOMAXPROCS=1"}

// bigARC is an ARC (gzip per record) from scripts/arcgen, large enough for
// the commands to be in the middle of it when signalled (it is fed through
// a pipe that stays open, so they always are).
func bigARC(t testing.TB) string {
	return shared(t, "big.arc.gz", func(t testing.TB, p string) {
		gen := filepath.Join(filepath.Dir(p), "arcgen")
		cmd := exec.Command("go", "build", "-o", gen, "./scripts/arcgen")
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("building scripts/arcgen: %v\n%s", err, out)
		}
		if out, err := exec.Command(gen, "-o", p, "-records", "1500").CombinedOutput(); err != nil {
			t.Fatalf("arcgen: %v\n%s", err, out)
		}
	})
}

// bigCache is an HTTrack mirror whose hts-cache/new.zip holds 1500 entries
// of 40 KiB of incompressible bodies (60 MiB), written by lib/htcache.
func bigCache(t testing.TB) string {
	return shared(t, "bigmirror", func(t testing.TB, p string) {
		os.MkdirAll(filepath.Join(p, "hts-cache"), 0o755)
		f, err := os.Create(filepath.Join(p, "hts-cache", "new.zip"))
		if err != nil {
			t.Fatal(err)
		}
		w := htcache.NewWriter(f)
		r := rand.New(rand.NewPCG(7, 7))
		body := make([]byte, 40<<10)
		for i := 0; i < 1500; i++ {
			for j := range body {
				body[j] = byte(r.Uint32())
			}
			m := htcache.Meta{Proto: "HTTP/1.1", LineCode: 200, LineReason: "OK", InCache: true, StatusCode: 200, StatusMessage: "OK",
				Size: int64(len(body)), ContentType: "application/octet-stream", Addr: "http://big.test", Fil: fmt.Sprintf("/f%d.bin", i)}
			if err := w.Add(fmt.Sprintf("http://big.test/f%d.bin", i), &m, strings.NewReader(string(body))); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	})
}

// feed starts copying the first part of src into the command's stdin and
// keeps the pipe open until close is called, so the command is always
// mid-stream when signalled.
type feed struct {
	w    *io.PipeWriter
	done chan struct{}
}

func newFeed(t testing.TB, src string, part float64) (*feed, io.Reader) {
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	f := &feed{w: pw, done: make(chan struct{})}
	go func() {
		defer close(f.done)
		pw.Write(data[:int(float64(len(data))*part)])
	}()
	return f, pr
}

func (f *feed) close() { f.w.CloseWithError(io.ErrClosedPipe); <-f.done }

// interruptCase is one command to interrupt.
type interruptCase struct {
	name  string
	bin   string
	args  func(c *caseDir) []string // -o target is out/<final>
	final string                    // "" for a stdout stream
	stdin string                    // file fed through a pipe ("" for none)
	isARC bool                      // stdout stream format
	warc  bool                      // the -o file is a WARC to read back
}

func interruptCases(t *testing.T) []interruptCase {
	var cs []interruptCase
	if built["arc2warc"] {
		cs = append(cs,
			interruptCase{name: "arc2warc-o", bin: bin(t, "arc2warc"), final: "x.warc.gz", stdin: "arc", warc: true,
				args: func(c *caseDir) []string { return []string{"-o", filepath.Join(c.out, "x.warc.gz"), "-"} }},
			interruptCase{name: "arc2warc-stdout", bin: bin(t, "arc2warc"), stdin: "arc",
				args: func(c *caseDir) []string { return []string{"-"} }})
	}
	if built["waczpack"] {
		cs = append(cs, interruptCase{name: "waczpack-create-o", bin: bin(t, "waczpack"), final: "x.wacz", stdin: "arc",
			args: func(c *caseDir) []string { return []string{"create", "-o", filepath.Join(c.out, "x.wacz"), "-"} }})
	}
	if built["htcache"] {
		cs = append(cs,
			interruptCase{name: "htcache-export-o", bin: bin(t, "htcache"), final: "x.warc.gz", warc: true,
				args: func(c *caseDir) []string {
					return []string{"export", "-o", filepath.Join(c.out, "x.warc.gz"), filepath.Join(c.in, "bigmirror")}
				}},
			interruptCase{name: "htcache-export-stdout", bin: bin(t, "htcache"),
				args: func(c *caseDir) []string { return []string{"export", filepath.Join(c.in, "bigmirror")} }})
	}
	return cs
}

// prepare puts the case's inputs in place and returns its stdin feed.
func (ic interruptCase) prepare(t *testing.T, c *caseDir) (*feed, io.Reader) {
	if ic.stdin == "arc" {
		return newFeed(t, bigARC(t), 0.6)
	}
	if strings.HasPrefix(ic.name, "htcache") {
		copyTree(t, bigCache(t), filepath.Join(c.in, "bigmirror"))
	}
	return nil, nil
}

// TestInterrupt sends SIGINT and SIGTERM to each writer in the middle of
// its run, on any machine (midRun: a pipe held open, or a quarter of the
// cache read and not all of it, the process stopped while the signal is
// sent): it exits (130/143 for -o runs, or dies of the signal when streaming
// to stdout) within the time limit; no file exists under the final name,
// no temp file beside it or in TMPDIR; a stdout stream is a valid prefix
// (every complete record reads back with lib/warc).
func TestInterrupt(t *testing.T) {
	for _, ic := range interruptCases(t) {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			t.Run(ic.name+"/"+sig.String(), func(t *testing.T) {
				acquire(t)
				c := newCase(t)
				fd, stdin := ic.prepare(t, c)
				c.freeze(t)
				r := c.cmd(ic.bin, ic.args(c)...)
				r.stdin = stdin
				r.env = oneCore
				s := r.start(t)
				where := s.midRun(t, ic, c)
				s.signal(sig)
				s.resume()
				if fd != nil {
					// The pipe stays open while the command handles the
					// signal (closing it at once races the handler:
					// TestKnownSignalEOFRace).
					defer fd.close()
					go func() { time.Sleep(5 * time.Second); fd.w.CloseWithError(io.ErrClosedPipe) }()
				}
				res := s.finish(t)
				what := fmt.Sprintf("%s %s", sig, where)
				t.Logf("%s: exit %d (signal %v), %d stdout bytes, %v", what, res.code, res.signal, res.outN, res.elapsed.Round(time.Millisecond))
				if res.timedOut {
					t.Fatalf("%s: did not stop\n  %s", what, res)
				}
				if panicRE.MatchString(res.stderr) {
					t.Errorf("%s: panic\n  %s", what, res)
				}
				if res.code == 0 && res.signal == 0 {
					t.Fatalf("%s: exit 0: the command finished before the signal (input too small?)\n  %s", what, res)
				}
				want := map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143}[sig]
				if ic.final != "" && res.code != want && res.signal != sig {
					t.Errorf("%s: exit %d, want %d\n  %s", what, res.code, want, res)
				}
				if files := c.outFiles(t); len(files) > 0 {
					t.Errorf("%s: left %v in the output directory\n  %s", what, files, res)
				}
				if tmp, _ := os.ReadDir(c.tmp); len(tmp) > 0 {
					t.Errorf("%s: left %d files in TMPDIR (%s...)\n  %s", what, len(tmp), tmp[0].Name(), res)
				}
				c.contained(t, what, res)
				if ic.final == "" {
					n, err := validPrefix(res.out, ic.isARC)
					if err != nil {
						t.Errorf("%s: stdout (%d bytes) is not a valid prefix: %v", what, res.outN, err)
					}
					t.Logf("stdout: %d whole records", n)
				}
			})
		}
	}
}

// TestKillThenRerun kills each -o writer with SIGKILL mid-run, then runs
// it again to the end: nothing appears under the final name after the
// kill, and the rerun succeeds with a whole output (the stale temp file of
// the killed run does not get in its way).
func TestKillThenRerun(t *testing.T) {
	for _, ic := range interruptCases(t) {
		if ic.final == "" {
			continue
		}
		t.Run(ic.name, func(t *testing.T) {
			acquire(t)
			c := newCase(t)
			fd, stdin := ic.prepare(t, c)
			r := c.cmd(ic.bin, ic.args(c)...)
			r.stdin = stdin
			r.env = oneCore
			s := r.start(t)
			where := s.midRun(t, ic, c)
			s.signal(syscall.SIGKILL)
			if fd != nil {
				// The command is dead: nothing can race its end of the
				// pipe now. Close the feed before Wait, which waits for
				// exec's stdin copier (blocked in a Read of the feed once
				// the command has taken all of it: the CI hang of session 9).
				fd.close()
			}
			res := s.finish(t)
			if res.signal != syscall.SIGKILL {
				t.Fatalf("SIGKILL %s: not killed\n  %s", where, res)
			}
			if _, err := os.Stat(filepath.Join(c.out, ic.final)); err == nil {
				t.Errorf("SIGKILL left a file under the final name %s", ic.final)
			}
			stale := c.outFiles(t)
			t.Logf("after SIGKILL: %v", stale)
			// Rerun with the whole input.
			r = c.cmd(ic.bin, ic.args(c)...)
			if ic.stdin == "arc" {
				f, err := os.Open(bigARC(t))
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				r.stdin = f
			}
			r.timeout = 2 * *caseTime
			res = r.exec(t)
			if !check(t, "rerun", res, expect{}) {
				return
			}
			if _, err := os.Stat(filepath.Join(c.out, ic.final)); err != nil {
				t.Fatalf("rerun: no %s: %v", ic.final, err)
			}
			if ic.warc {
				if n, err := readFileValid(filepath.Join(c.out, ic.final), false); err != nil {
					t.Errorf("rerun: %s does not read back: %v", ic.final, err)
				} else {
					t.Logf("rerun: %d records", n)
				}
			}
		})
	}
}

// slowSite is a loopback site of many linked pages, each sent slowly, so a
// crawl is always under way when signalled.
func slowSite(t testing.TB) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		var n int
		fmt.Sscanf(r.URL.Path, "/p%d.html", &n)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><head><title>page %d</title></head><body>", n)
		for k := 1; k <= 5; k++ {
			fmt.Fprintf(w, `<a href="/p%d.html">next</a>`, n*5+k)
		}
		w.(http.Flusher).Flush()
		time.Sleep(20 * time.Millisecond)
		io.WriteString(w, strings.Repeat("lorem ipsum ", 4000)+"</body></html>")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestInterruptMirrorget interrupts a crawl streaming ARC and WARC to
// stdout and to -o: it stops in bounded time; the stdout stream is a valid
// prefix; -o leaves no temp file, and the final file only whole (mirrorget
// keeps the records of an interrupted crawl).
func TestInterruptMirrorget(t *testing.T) {
	mg := bin(t, "mirrorget")
	srv := slowSite(t)
	for _, format := range []string{"arc", "warc"} {
		for _, out := range []string{"stdout", "o"} {
			for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
				t.Run(format+"-"+out+"/"+sig.String(), func(t *testing.T) {
					acquire(t)
					c := newCase(t)
					c.freeze(t)
					args := []string{"--format", format, "-q", srv.URL + "/p0.html"}
					if out == "o" {
						args = append([]string{"-o", filepath.Join(c.out, "x."+format)}, args...)
					}
					s := c.cmd(mg, args...).start(t)
					time.Sleep(3 * signalAfter)
					s.signal(sig)
					res := s.finish(t)
					what := fmt.Sprintf("mirrorget %s after %v", sig, 3*signalAfter)
					t.Logf("%s: exit %d (signal %v), %d stdout bytes, %v", what, res.code, res.signal, res.outN, res.elapsed.Round(time.Millisecond))
					if res.timedOut {
						t.Fatalf("%s: did not stop\n  %s", what, res)
					}
					if panicRE.MatchString(res.stderr) {
						t.Errorf("%s: panic\n  %s", what, res)
					}
					if res.code == 0 && res.signal == 0 {
						t.Errorf("%s: exit 0 after an interrupted crawl\n  %s", what, res)
					}
					if out == "o" {
						// mirrorget keeps the capture of an interrupted
						// crawl (e2e TestMirrorgetInterrupt): the -o file
						// may be there, then whole; never a temp file.
						files := c.outFiles(t)
						if len(files) > 1 || len(files) == 1 && files[0] != "x."+format {
							t.Errorf("%s: left %v in the output directory\n  %s", what, files, res)
						} else if len(files) == 1 {
							n, err := readFileValid(filepath.Join(c.out, files[0]), format == "arc")
							if err != nil {
								t.Errorf("%s: the -o file kept is not whole: %v", what, err)
							}
							t.Logf("-o file kept: %d whole records", n)
						}
					} else {
						n, err := validPrefix(res.out, format == "arc")
						if err != nil {
							t.Errorf("%s: stdout (%d bytes) is not a valid prefix: %v", what, res.outN, err)
						}
						if n == 0 {
							t.Errorf("%s: no whole record on stdout after %v", what, 3*signalAfter)
						}
						t.Logf("stdout: %d whole records", n)
					}
					if tmp, _ := os.ReadDir(c.tmp); len(tmp) > 0 {
						t.Errorf("%s: left %d files in TMPDIR (%s...)", what, len(tmp), tmp[0].Name())
					}
					c.contained(t, what, res)
				})
			}
		}
	}
}

// TestKnownSignalEOFRace: Ctrl-C in a shell signals the whole pipeline, so
// the writer of "producer | arc2warc -o x.warc.gz" sees SIGINT and the end
// of its input at the same moment. On one core the main goroutine may take
// the end of input, convert, commit x.warc.gz and exit 1 before the signal
// handler runs: a file under the final name after an interrupt.
func TestKnownSignalEOFRace(t *testing.T) {
	for _, ic := range interruptCases(t) {
		if ic.stdin == "" || ic.final == "" {
			continue
		}
		t.Run(ic.name, func(t *testing.T) {
			for i := 0; i < 5; i++ {
				c := newCase(t)
				fd, stdin := ic.prepare(t, c)
				r := c.cmd(ic.bin, ic.args(c)...)
				r.stdin, r.env = stdin, oneCore
				s := r.start(t)
				time.Sleep(signalAfter)
				s.signal(syscall.SIGINT)
				fd.close()
				res := s.finish(t)
				if files := c.outFiles(t); len(files) > 0 {
					t.Fatalf("attempt %d: SIGINT with the end of input left %v\n  %s", i, files, res)
				}
			}
		})
	}
}
