package batch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/internal/syserr"
	"github.com/arcport/arcport/lib/store"
)

// Config is a batch run as its flags give it.
type Config struct {
	// Inputs is the list or plan (--inputs).
	Inputs string
	// Output is the output template (-o).
	Output string
	// IndexSet, Index and Count are --shard-index (when given) and
	// --shard-count (0: not given).
	IndexSet     bool
	Index, Count int
	// SkipExisting is --skip-existing.
	SkipExisting bool
	// RecordBad is --on-bad-input record.
	RecordBad bool
	// Emit is --emit jsonl.
	Emit bool
}

// Flag names.
const (
	FlagInputs       = "inputs"
	FlagShardIndex   = "shard-index"
	FlagShardCount   = "shard-count"
	FlagSkipExisting = "skip-existing"
	FlagOnBadInput   = "on-bad-input"
	FlagEmit         = "emit"
)

// category groups the batch flags in -h.
const category = "Batch mode (docs/batch.md)"

// Flags returns the flags of batch mode, for a command that also has -o.
func Flags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: FlagInputs, Category: category, Usage: "batch mode: convert each input listed in `LIST` (a file, s3://…/list.txt or -; one per line; or a plan from waczpack plan) to its own output named by -o TEMPLATE ({stem}, {name}, {dir}, {index})"},
		&cli.IntFlag{Name: FlagShardIndex, Category: category, Usage: "take share `I` of the list", DefaultText: "$ARCPORT_SHARD_INDEX, $JOB_COMPLETION_INDEX or $AWS_BATCH_JOB_ARRAY_INDEX, else 0"},
		&cli.IntFlag{Name: FlagShardCount, Category: category, Usage: "split the list into `K` shares", DefaultText: "the plan's, else 1"},
		&cli.BoolFlag{Name: FlagSkipExisting, Category: category, Usage: "skip an input whose output and done marker (_done/NAME.json beside it) show it finished from the same input and options"},
		&cli.StringFlag{Name: FlagOnBadInput, Category: category, Value: "fail", Usage: "`ACTION` on a bad input: fail (go on, exit 65 at the end) or record (write _errors/NAME.json beside its output, exit 0)"},
		&cli.StringFlag{Name: FlagEmit, Category: category, Usage: "`FORMAT` jsonl: one JSON line per input on standard output (input, output, status, records, bytes, sha256, seconds)"},
	}
}

// FromContext returns the batch configuration of c (whose output flag is
// named outFlag), or nil when --inputs is not given; a batch flag without
// --inputs is a usage error.
func FromContext(c *cli.Context, outFlag string) (*Config, error) {
	if !c.IsSet(FlagInputs) {
		for _, f := range []string{FlagShardIndex, FlagShardCount, FlagSkipExisting, FlagOnBadInput, FlagEmit} {
			if c.IsSet(f) {
				return nil, cliutil.Usagef("--%s needs --inputs LIST", f)
			}
		}
		return nil, nil
	}
	cfg := &Config{
		Inputs:       c.String(FlagInputs),
		Output:       c.String(outFlag),
		IndexSet:     c.IsSet(FlagShardIndex),
		Index:        c.Int(FlagShardIndex),
		Count:        c.Int(FlagShardCount),
		SkipExisting: c.Bool(FlagSkipExisting),
	}
	if cfg.Inputs == "" {
		return nil, cliutil.Usagef("--inputs: give a list (a file, s3://…, or - for standard input)")
	}
	if c.IsSet(FlagShardCount) && cfg.Count < 1 {
		return nil, cliutil.Usagef("--shard-count %d: must be at least 1", cfg.Count)
	}
	switch v := c.String(FlagOnBadInput); v {
	case "fail":
	case "record":
		cfg.RecordBad = true
	default:
		return nil, cliutil.Usagef("--on-bad-input must be fail or record, not %q", v)
	}
	switch v := c.String(FlagEmit); v {
	case "":
	case "jsonl":
		cfg.Emit = true
	default:
		return nil, cliutil.Usagef("--emit must be jsonl, not %q", v)
	}
	if c.NArg() > 0 {
		return nil, cliutil.Usagef("--inputs takes the inputs from its list: no FILE arguments (%s)", c.Args().First())
	}
	if err := CheckTemplate(cfg.Output); err != nil {
		return nil, err
	}
	return cfg, nil
}

// Job is one task of a batch run of a tool.
type Job struct {
	Config
	// Tool is the tool's name ("arc2warc", "waczpack index").
	Tool string
	// Params are the options that shape the outputs, as a string the done
	// markers keep: a marker made with other Params does not skip.
	Params string
	// Store opens the list, inputs, markers and outputs (cliutil.Store()).
	Store *store.Store
	// Stdin is what --inputs - reads; Stdout gets the --emit lines;
	// Stderr the messages.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Getenv reads the shard index variables (os.Getenv when nil).
	Getenv func(string) string
	// Verbose prints a line per input on Stderr.
	Verbose bool
	// Version is the tool version the markers keep (cliutil.VersionString()
	// when "").
	Version string
	// Create opens an output (cliutil.CreateOutput when nil).
	Create func(name string) (cliutil.Output, error)
	// Stat, when set, pins an input in place of Store.Stat: for a tool
	// whose inputs are folders, the file that holds their data.
	Stat func(ctx context.Context, name string) (store.Info, error)
}

// stat pins an input.
func (j *Job) stat(ctx context.Context, name string) (store.Info, error) {
	if j.Stat != nil {
		return j.Stat(ctx, name)
	}
	return j.Store.Stat(ctx, name)
}

// Result is what a task reports of one input (a --emit jsonl line).
type Result struct {
	Input   string  `json:"input"`
	Output  string  `json:"output"`
	Status  string  `json:"status"` // done, skipped, bad
	Records int64   `json:"records"`
	Bytes   int64   `json:"bytes"`
	SHA256  string  `json:"sha256"`
	Seconds float64 `json:"seconds"`
	Error   string  `json:"error,omitempty"`
}

// Marker is a done marker (DIR/_done/BASE.json beside output DIR/BASE),
// and with Error set, for --on-bad-input record, the _errors object.
type Marker struct {
	Tool       string `json:"tool"`
	Version    string `json:"version"`
	Params     string `json:"params"`
	Input      string `json:"input"`
	InputSize  int64  `json:"input_size"`
	InputETag  string `json:"input_etag"`
	Output     string `json:"output"`
	OutputETag string `json:"output_etag,omitempty"`
	Bytes      int64  `json:"bytes"`
	SHA256     string `json:"sha256,omitempty"`
	Records    int64  `json:"records"`
	Error      string `json:"error,omitempty"`
}

// Task is one input of a Job being processed by the tool.
type Task struct {
	// Input is the input; Output its output name from the template.
	Input  Input
	Output string
	// Records is what the tool sets to the number of records written.
	Records int64

	job  *Job
	ctx  context.Context
	pin  string // the input's Pin when the task started
	outs []*output

	opened bool // the tool read its input through Open

	mu      sync.Mutex
	readErr error // the first error (not EOF) reading it, if any
}

// failedRead returns the first error of a read of the input, or nil.
func (t *Task) failedRead() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.readErr
}

// Open opens an input of the task (normally t.Input.Name) as
// cliutil.OpenInput does (a local file, or an s3:// or http(s):// stream
// through the job's Store) and returns it with the name to show. The task
// watches its reads: when one fails (a connection dropped after the
// store's retries, EIO), whatever the tool makes of the short input
// (readers that salvage call it damage), no output of the task is
// committed and the failure, not the tool's verdict, decides the exit
// status (75 for storage).
func (t *Task) Open(name string) (io.ReadCloser, string, error) {
	t.opened = true
	if name == "-" {
		return nil, "-", cliutil.Usagef("standard input cannot be a listed input")
	}
	var rc io.ReadCloser
	shown := name
	if store.IsRemote(name) {
		r, err := t.job.Store.Open(t.ctx, name)
		if err != nil {
			return nil, store.Redact(name), err
		}
		rc, shown = r, store.Redact(name)
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, name, err
		}
		rc = f
	}
	return &watched{ReadCloser: rc, t: t}, shown, nil
}

// watched is an input whose first read error is kept in its Task.
type watched struct {
	io.ReadCloser
	t *Task
}

func (w *watched) Read(p []byte) (int, error) {
	n, err := w.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		w.t.mu.Lock()
		if w.t.readErr == nil {
			w.t.readErr = err
		}
		w.t.mu.Unlock()
	}
	return n, err
}

// Func processes one input: reads t.Input.Name, writes t.Output through
// t.Create and commits it. An error says why the input could not be done
// (BadInput marks it bad explicitly; see Classify).
type Func func(ctx context.Context, t *Task) error

// ErrBadInput is what BadInput errors match with errors.Is.
var ErrBadInput = errors.New("bad input")

type badInput struct{ err error }

func (b *badInput) Error() string   { return b.err.Error() }
func (b *badInput) Unwrap() []error { return []error{ErrBadInput, b.err} }

// BadInput marks err as a problem of the input (exit 65).
func BadInput(err error) error {
	if err == nil {
		return nil
	}
	return &badInput{err}
}

// Class is how a task's failure on an input is handled.
type Class int

// The classes of failures.
const (
	// Bad: the input is bad; the task goes on and exits 65, or records it.
	Bad Class = iota
	// Transient: storage or the machine failed; the task stops, exit 75.
	Transient
	// Fatal: anything else (access denied, bad usage); the task stops
	// with the error's own status.
	Fatal
)

// Classify says how err, from processing input, is handled: errors marked
// with BadInput, a missing or changed input (store.ErrNotFound,
// store.ErrChanged on the input's own name) and errors of no known kind
// (format errors of the readers) are Bad; *store.Error on a transfer after
// its retries, a full disk or quota, EIO, and a context that ended are
// Transient; access denied, usage errors and other file system errors
// (permissions, a missing folder of the output) are Fatal.
func Classify(err error, input string) Class {
	var ue *cliutil.UsageError
	var ee *cliutil.ExitError
	var se *store.Error
	var pe *fs.PathError
	switch {
	case errors.Is(err, ErrBadInput):
		return Bad
	case errors.As(err, &ue), errors.As(err, &ee):
		return Fatal
	case syserr.StorageFull(err), syserr.IO(err),
		errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return Transient
	case errors.As(err, &se):
		switch {
		case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrChanged):
			if se.URL == store.Redact(input) {
				return Bad
			}
			return Fatal
		case errors.Is(err, store.ErrAccessDenied), errors.Is(err, store.ErrReadOnly), errors.Is(err, store.ErrNoRange):
			return Fatal
		}
		return Transient
	case errors.As(err, &pe):
		if pe.Path == input && errors.Is(err, fs.ErrNotExist) {
			return Bad
		}
		return Fatal
	}
	return Bad
}

// Run processes the task's share of the list with fn, one input after the
// other, and returns nil, or an error whose exit status (cliutil.Report)
// is 65, 75, 1 or 2 as the package documentation says.
func (j *Job) Run(ctx context.Context, fn Func) error {
	getenv := j.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if j.Version == "" {
		j.Version = cliutil.VersionString()
	}
	if j.Create == nil {
		j.Create = cliutil.CreateOutput
	}
	l, err := ReadList(ctx, j.Store, j.Inputs, j.Stdin)
	if err != nil {
		return j.fail(err, j.Inputs)
	}
	for _, in := range l.Inputs {
		if in.Name == "-" {
			return cliutil.Usagef("--inputs %s: - (standard input) cannot be a listed input", j.Inputs)
		}
	}
	shard, err := ResolveShard(j.IndexSet, j.Index, j.Count, l.ShardCount, getenv)
	if err != nil {
		return err
	}
	outs, err := Outputs(j.Output, l)
	if err != nil {
		return err
	}
	share := l.Share(shard)
	var bad []string
	for _, in := range share {
		res, err := j.one(ctx, in, outs[in.Index], fn)
		if err != nil {
			switch Classify(err, in.Name) {
			case Transient:
				msg := err.Error()
				if !strings.HasPrefix(msg, store.Redact(in.Name)) {
					msg = store.Redact(in.Name) + ": " + msg
				}
				return &cliutil.ExitError{Code: ExitTransient, Msg: fmt.Sprintf("%s: %s (transient: retry the task)", j.Tool, msg)}
			case Fatal:
				return j.fail(err, in.Name)
			}
			res.Status, res.Error = "bad", oneLine(err.Error())
			fmt.Fprintf(j.Stderr, "%s: bad input %s: %s\n", j.Tool, store.Redact(in.Name), res.Error)
			if j.RecordBad {
				if err := j.record(ctx, in, res); err != nil {
					return j.storeFail(err, in.Name)
				}
			} else {
				bad = append(bad, store.Redact(in.Name))
			}
		}
		if j.Verbose {
			fmt.Fprintf(j.Stderr, "%s: %s -> %s: %s, %d records, %d bytes, %.3fs\n", j.Tool, store.Redact(in.Name), store.Redact(res.Output), res.Status, res.Records, res.Bytes, res.Seconds)
		}
		if j.Emit {
			b, _ := json.Marshal(res)
			if _, err := j.Stdout.Write(append(b, '\n')); err != nil {
				return err
			}
		}
	}
	if len(bad) > 0 {
		return &cliutil.ExitError{Code: ExitBadInput, Msg: fmt.Sprintf("%s: %d of %d inputs of shard %d/%d bad: %s", j.Tool, len(bad), len(share), shard.Index, shard.Count, strings.Join(bad, " "))}
	}
	return nil
}

// fail is the error of a task stopped by err on name: as is when it has a
// status of its own, else a transient one for storage errors.
func (j *Job) fail(err error, name string) error {
	var ue *cliutil.UsageError
	var ee *cliutil.ExitError
	if errors.As(err, &ue) || errors.As(err, &ee) {
		return err
	}
	return j.storeFail(err, name)
}

func (j *Job) storeFail(err error, name string) error {
	if Classify(err, "") == Transient {
		return &cliutil.ExitError{Code: ExitTransient, Msg: fmt.Sprintf("%s: %v (transient: retry the task)", j.Tool, err)}
	}
	return err
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// one processes one input.
func (j *Job) one(ctx context.Context, in Input, out string, fn Func) (Result, error) {
	start := now()
	res := Result{Input: in.Name, Output: out}
	seconds := func() float64 { return float64(now().Sub(start).Microseconds()) / 1e6 }
	info, err := j.stat(ctx, in.Name)
	if err != nil {
		res.Seconds = seconds()
		return res, err
	}
	pin := Pin(info)
	if in.Pinned() && (pin != in.ETag || info.Size != in.Size) {
		res.Seconds = seconds()
		return res, BadInput(fmt.Errorf("changed since the plan: size %d, etag %s; the plan pinned size %d, etag %s", info.Size, pin, in.Size, in.ETag))
	}
	if j.SkipExisting {
		if m, ok := j.finished(ctx, in, info, out); ok {
			res.Status, res.Records, res.Bytes, res.SHA256 = "skipped", m.Records, m.Bytes, m.SHA256
			if m.Error != "" {
				res.Error = m.Error
			}
			res.Seconds = seconds()
			return res, nil
		}
	}
	if store.KindOf(out) == store.Local {
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return res, err
		}
	}
	t := &Task{Input: in, Output: out, job: j, ctx: ctx, pin: pin}
	err = fn(ctx, t)
	for _, o := range t.outs {
		o.Output.Abort() // a no-op after Commit
	}
	switch {
	case t.failedRead() != nil:
		// the input could not be read: whatever the tool said of it
		err = t.failedRead()
	case err != nil && !t.opened && j.Stat == nil && store.IsRemote(in.Name) && Classify(err, in.Name) == Bad:
		// a tool that opens its input itself: before calling the input
		// bad, make sure that it reads whole now
		if rerr := j.reread(ctx, in.Name, info.Size); rerr != nil {
			err = rerr
		}
	}
	res.Records = t.Records
	var done *output
	for _, o := range t.outs {
		if o.name == out && o.committed {
			done = o
		}
	}
	if done != nil {
		res.Bytes, res.SHA256 = done.n, hex.EncodeToString(done.h.Sum(nil))
	}
	if err != nil {
		res.Seconds = seconds()
		return res, err
	}
	if done == nil {
		res.Seconds = seconds()
		return res, fmt.Errorf("%s wrote no output %s", j.Tool, out)
	}
	m := j.marker(in, info, res)
	oi, err := j.Store.Stat(ctx, out)
	if err != nil {
		res.Seconds = seconds()
		return res, err
	}
	m.OutputETag = Pin(oi)
	if err := j.put(ctx, Beside(out, "_done"), m); err != nil {
		res.Seconds = seconds()
		return res, err
	}
	res.Status = "done"
	res.Seconds = seconds()
	return res, nil
}

// reread reads name to its end and returns the error of a read that
// fails or ends short of size.
func (j *Job) reread(ctx context.Context, name string, size int64) error {
	r, err := j.Store.Open(ctx, name)
	if err != nil {
		return err
	}
	defer r.Close()
	n, err := io.Copy(io.Discard, r)
	if err != nil {
		return err
	}
	if n != size {
		return &store.Error{Op: "read", URL: store.Redact(name), Offset: n, Err: io.ErrUnexpectedEOF}
	}
	return nil
}

func (j *Job) marker(in Input, info store.Info, res Result) *Marker {
	return &Marker{Tool: j.Tool, Version: j.Version, Params: j.Params, Input: in.Name,
		InputSize: info.Size, InputETag: Pin(info), Output: res.Output, Bytes: res.Bytes,
		SHA256: res.SHA256, Records: res.Records, Error: res.Error}
}

// finished reports whether the done marker of out shows in (as info says
// it is now) done by this tool, version and params, and out still as it
// was then.
func (j *Job) finished(ctx context.Context, in Input, info store.Info, out string) (*Marker, bool) {
	r, err := j.Store.Open(ctx, Beside(out, "_done"))
	if err != nil {
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(r, 1<<20))
	r.Close()
	if err != nil {
		return nil, false
	}
	var m Marker
	if json.Unmarshal(data, &m) != nil {
		return nil, false
	}
	if m.Tool != j.Tool || m.Version != j.Version || m.Params != j.Params || m.Input != in.Name ||
		m.InputETag != Pin(info) || m.InputSize != info.Size || m.Output != out {
		return nil, false
	}
	if m.OutputETag == "" {
		// a bad input recorded, with no output
		return &m, m.Error != ""
	}
	oi, err := j.Store.Stat(ctx, out)
	if err != nil || oi.Size != m.Bytes || Pin(oi) != m.OutputETag {
		return nil, false
	}
	return &m, true
}

// record writes the _errors object of a bad input, and its done marker
// (with the error) so that --skip-existing skips it.
func (j *Job) record(ctx context.Context, in Input, res Result) error {
	m := j.marker(in, store.Info{Size: in.Size, ETag: in.ETag}, res)
	if info, err := j.stat(ctx, in.Name); err == nil {
		m.InputSize, m.InputETag = info.Size, Pin(info)
	}
	if err := j.put(ctx, Beside(res.Output, "_errors"), m); err != nil {
		return err
	}
	if res.SHA256 != "" {
		oi, err := j.Store.Stat(ctx, res.Output)
		if err != nil {
			return err
		}
		m.OutputETag = Pin(oi)
	} else {
		m.Bytes, m.SHA256 = 0, ""
	}
	if m.InputETag == "" || m.InputSize < 0 {
		return nil // the input is missing: nothing to skip by
	}
	return j.put(ctx, Beside(res.Output, "_done"), m)
}

// put writes v as JSON to name, whole or not at all.
func (j *Job) put(ctx context.Context, name string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if store.KindOf(name) == store.Local {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return err
		}
	}
	w, err := j.Store.Create(ctx, name)
	if err != nil {
		return err
	}
	defer w.Abort()
	if _, err := io.Copy(w, bytes.NewReader(append(b, '\n'))); err != nil {
		return err
	}
	return w.Commit()
}

// Create opens an output of the task (normally t.Output) through the job's
// Create, counting and hashing what is written. Its Commit first checks
// that the input is still what it was when the task started (size and
// ETag): if not, it aborts the output and returns a bad-input error.
func (t *Task) Create(name string) (cliutil.Output, error) {
	o, err := t.job.Create(name)
	if err != nil {
		return nil, err
	}
	w := &output{Output: o, name: name, h: sha256.New(), t: t}
	t.outs = append(t.outs, w)
	return w, nil
}

type output struct {
	cliutil.Output
	name      string
	h         hash.Hash
	n         int64
	t         *Task
	committed bool
}

func (o *output) Write(p []byte) (int, error) {
	n, err := o.Output.Write(p)
	o.h.Write(p[:n])
	o.n += int64(n)
	return n, err
}

func (o *output) Commit() error {
	if err := o.t.failedRead(); err != nil {
		o.Output.Abort()
		return err
	}
	info, err := o.t.job.stat(o.t.ctx, o.t.Input.Name)
	if err != nil {
		o.Output.Abort()
		return err
	}
	if p := Pin(info); p != o.t.pin {
		o.Output.Abort()
		return BadInput(fmt.Errorf("changed while being read: etag %s, now %s", o.t.pin, p))
	}
	if err := o.Output.Commit(); err != nil {
		return err
	}
	o.committed = true
	return nil
}
