package zimdump

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"

	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/store"
	"github.com/arcport/arcport/lib/zim"
)

// Main runs the zimdump command line with os.Args and exits. The
// arguments go to Run as they are: zimdump parses them as docopt does,
// and moving options in front of the command (cliutil.Run's reordering)
// would take the command for the value of "-o" or "--url".
func Main() {
	if len(os.Args) > 1 && os.Args[1] == "create" {
		limitCreateMemory()
	}
	stop := cliutil.StartProfiles()
	rc := Run(os.Args[1:], os.Stdout, os.Stderr)
	stop()
	cliutil.ReportStoreStats("zimdump", os.Stderr)
	os.Exit(rc)
}

// exitException is openzim zimdump's status after an exception (its main
// returns -1); exitArgs marks an argument error, which openzim also ends
// with 255. Run maps the statuses openzim uses (1 for a failed selection,
// 2 for dump errors, 255) onto the arcport convention: 1 for any failure, 2
// for bad usage. The text printed stays openzim's.
const (
	exitException = 255
	exitArgs      = 256
)

// env is one run of the command.
type env struct {
	p      *parsed
	out    *bufio.Writer
	stdout io.Writer
	stderr io.Writer
	a      *zim.Archive

	create func(name string) (cliutil.Output, error) // warc's -o (nil: cliutil.CreateOutput; batch mode: the task's)
	err    error                                     // the error fail last reported (batch mode)
}

// Run executes zimdump with args (without the program name) and returns
// the exit status: 0 on success, 2 for bad usage (openzim: 255), 1 for any
// other failure (openzim: 1, 2 or 255).
func Run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "create" {
		// not an openzim command: arcport's conventions throughout
		return runCreate(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "completion" {
		return runCompletion(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "search" {
		// not an openzim command (search.go)
		return runSearch(args[1:], stdout, stderr)
	}
	if len(args) > 0 && (args[0] == "index" || args[0] == "suggest") {
		// not openzim commands (index.go, suggest.go)
		return map[string]func([]string, io.Writer, io.Writer) int{"index": runIndex, "suggest": runSuggest}[args[0]](args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "warc" && isBatch(args[1:]) {
		// not openzim's: arcport's conventions (docs/batch.md)
		return runWarcBatch(args[1:], stdout, stderr)
	}
	return Status(run(args, stdout, stderr))
}

// Status maps an exit status of openzim's zimdump 3.1.3 (or of run) to
// arcport's: 0 stays 0, an argument error is 2, any other failure 1.
func Status(openzim int) int {
	switch openzim {
	case 0:
		return cliutil.ExitOK
	case exitArgs:
		return cliutil.ExitUsage
	}
	return cliutil.ExitFail
}

func run(args []string, stdout, stderr io.Writer) int {
	p := parseArgs(args)
	if p.errs != "" {
		fmt.Fprint(stderr, p.errs)
		fmt.Fprint(stdout, "\n"+usage+"\n")
		return exitArgs
	}
	if p.help {
		fmt.Fprint(stdout, usage+"\n"+extUsage)
		return 0
	}
	if p.ver {
		fmt.Fprintln(stdout, cliutil.VersionString())
		return 0
	}
	e := &env{p: p, out: bufio.NewWriterSize(stdout, 256<<10), stdout: stdout, stderr: stderr}
	defer e.out.Flush()
	a, err := openArchive(p)
	if err != nil {
		switch p.cmd {
		case "check":
			return e.checkOpenFailed(err)
		case "info", "list":
			if !p.has("json") {
				break
			}
			fallthrough
		case "meta", "warc":
			if errors.Is(err, fs.ErrNotExist) {
				err = fmt.Errorf("%s: no such file or directory", p.file)
			}
			return e.fail(err)
		}
		return e.exception(err)
	}
	defer a.Close()
	e.a = a
	switch p.cmd {
	case "info":
		return e.info()
	case "list":
		return e.list()
	case "show":
		return e.show()
	case "dump":
		return e.dump()
	case "check":
		return e.check()
	case "meta":
		return e.meta()
	case "warc":
		return e.warc()
	}
	return exitException
}

func openArchive(p *parsed) (*zim.Archive, error) {
	if cliutil.IsRemote(p.file) && !p.has("offset") {
		// s3:// or http(s)://: header, pointer lists and clusters are
		// read in place by ranged requests through a block cache
		ra, err := cliutil.OpenAt(p.file)
		if err != nil {
			return nil, err
		}
		// a small lookup grid: each sampled dirent is a request
		return zim.NewCloser(ra, ra.Size(), zim.WithName(store.Redact(p.file)), zim.WithLookupSample(4))
	}
	if !p.has("offset") {
		return zim.Open(p.file)
	}
	off, err := strconv.ParseInt(p.opts["offset"], 10, 64)
	if err != nil || off < 0 {
		return nil, fmt.Errorf("bad --offset %q", p.opts["offset"])
	}
	var size int64
	if p.has("size") {
		if size, err = strconv.ParseInt(p.opts["size"], 10, 64); err != nil || size <= 0 {
			return nil, fmt.Errorf("bad --size %q", p.opts["size"])
		}
	}
	return zim.OpenEmbedded(p.file, off, size)
}

// exception prints err as zimdump's main() does and returns its status.
func (e *env) exception(err error) int {
	e.out.WriteString("Exception: " + zim.Message(err) + "\n")
	e.out.Flush()
	return exitException
}

// notFound prints "Entry not found" as zimdump's list/show handlers do.
func (e *env) notFound() int {
	e.out.Flush()
	fmt.Fprintln(e.stderr, "Entry not found")
	return exitException
}

func (e *env) info() int {
	if e.p.has("json") {
		return e.infoJSON()
	}
	a, w := e.a, e.out
	h := a.Header()
	fmt.Fprintf(w, "count-entries: %d\n", a.UserEntryCount())
	fmt.Fprintf(w, "uuid: %s\ncluster count: %d\n", h.UUIDString(), h.ClusterCount)
	if h.HasChecksum() {
		sum, _ := a.Checksum()
		fmt.Fprintf(w, "checksum: %s\n", sum)
	} else {
		w.WriteString("no checksum\n")
	}
	if h.HasMainPage() {
		w.WriteString("main page: ")
		m, err := mainPath(a)
		if err != nil {
			return e.exception(err)
		}
		w.WriteString(m + "\n")
	} else {
		w.WriteString("main page: -\n")
	}
	fav, err := a.Illustration(48)
	switch {
	case errors.Is(err, zim.ErrNotFound):
		w.WriteString("favicon: -\n")
	case err != nil:
		return e.exception(err)
	default:
		w.WriteString("favicon: " + a.PathOf(fav) + "\n")
	}
	w.WriteString("\n")
	return 0
}

// mainPath is getMainEntry().getItem(true).getPath().
func mainPath(a *zim.Archive) (string, error) {
	m, err := a.MainEntry()
	if err != nil {
		if errors.Is(err, zim.ErrNotFound) {
			return "", errors.New("No main page")
		}
		return "", err
	}
	r, err := a.Resolve(m)
	if err != nil {
		return "", err
	}
	return a.PathOf(r), nil
}

// selectOne resolves --idx or --url to an entry (nil, err on failure).
func (e *env) selectOne() (*zim.Entry, error) {
	if e.p.has("idx") {
		idx, ok := parseLong(e.p.opts["idx"])
		if !ok {
			return nil, zim.ErrNotFound
		}
		return e.a.EntryAt(idx)
	}
	return e.a.EntryByPath(e.p.opts["url"])
}

func (e *env) list() int {
	p := e.p
	if p.has("json") {
		return e.listJSON()
	}
	details := p.has("details")
	if p.has("idx") || p.has("url") {
		ent, err := e.selectOne()
		if err != nil {
			return e.notFound()
		}
		if err := writeDetails(e.out, e.a, ent); err != nil {
			return e.notFound()
		}
		return 0
	}
	begin, end := e.a.UserRange()
	if p.has("ns") {
		var err error
		if begin, end, err = e.a.FindByPrefix(p.opts["ns"]); err != nil {
			return e.exception(err)
		}
	}
	if err := listRange(e.out, e.a, begin, end, details); err != nil {
		return e.exception(err)
	}
	return 0
}

// writeDetails prints one entry as zimdump's listEntry, stopping at the
// same place when a value cannot be read.
func writeDetails(w *bufio.Writer, a *zim.Archive, ent *zim.Entry) error {
	w.WriteString("path: ")
	w.WriteString(a.PathOf(ent))
	w.WriteString("\n* title:          ")
	w.WriteString(ent.Title())
	w.WriteString("\n* idx:            ")
	w.WriteString(strconv.FormatUint(uint64(ent.Index), 10))
	if ent.IsRedirect() {
		w.WriteString("\n* type:           redirect\n* redirect index: ")
		t, err := a.EntryAt(ent.RedirectIndex)
		if err != nil {
			return err
		}
		w.WriteString(strconv.FormatUint(uint64(t.Index), 10))
		w.WriteString("\n")
		return nil
	}
	w.WriteString("\n* type:           item\n* mime-type:      ")
	mt, err := a.MimeType(ent)
	if err != nil {
		return err
	}
	w.WriteString(mt)
	w.WriteString("\n* item size:      ")
	size, err := a.BlobSize(ent)
	if err != nil {
		return err
	}
	w.WriteString(strconv.FormatInt(size, 10))
	w.WriteString("\n")
	return nil
}

func (e *env) show() int {
	ent, err := e.selectOne()
	if err != nil {
		return e.notFound()
	}
	if ent.IsRedirect() {
		e.out.Flush()
		fmt.Fprintf(e.stderr, "Entry %s is a redirect.\n", e.a.PathOf(ent))
		return exitException
	}
	r, _, err := e.a.OpenBlob(ent)
	if err != nil {
		return e.notFound()
	}
	defer r.Close()
	if _, err := io.Copy(e.out, r); err != nil {
		return e.notFound()
	}
	return 0
}
