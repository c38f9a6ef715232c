package zimdump

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/arcport/arcport/lib/internal/batch"
	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/zim"
)

// isBatch reports whether warc's arguments ask for batch mode (--inputs).
func isBatch(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--inputs" || strings.HasPrefix(a, "--inputs=") {
			return true
		}
	}
	return false
}

// createOutput opens warc's -o: through the batch task in batch mode.
func (e *env) createOutput(name string) (cliutil.Output, error) {
	if e.create != nil {
		return e.create(name)
	}
	return cliutil.CreateOutput(name)
}

// runWarcBatch is `zimdump warc --inputs LIST -o TEMPLATE`: each listed
// archive written as `zimdump warc -o OUTPUT ARCHIVE` writes it, under the
// shard contract (docs/batch.md). A damaged archive (zimdump check) gets
// no output and is a bad input.
func runWarcBatch(args []string, stdout, stderr io.Writer) int {
	app := &cli.App{
		Name:      "zimdump",
		Writer:    stdout,
		ErrWriter: stderr,
		HideHelp:  true,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}},
			&cli.BoolFlag{Name: "plain"},
			&cli.StringFlag{Name: "spool-max"},
		}, batch.Flags()...),
		Action: func(c *cli.Context) error { return warcBatch(c, stdout, stderr) },
	}
	app.ExitErrHandler = func(*cli.Context, error) {}
	app.OnUsageError = func(_ *cli.Context, err error, _ bool) error { return cliutil.Usagef("warc: %v", err) }
	return cliutil.Report("zimdump", app.Run(append([]string{"zimdump"}, args...)), stderr)
}

func warcBatch(c *cli.Context, stdout, stderr io.Writer) error {
	cfg, err := batch.FromContext(c, "output")
	if err != nil {
		return err
	}
	opts := map[string]string{}
	if c.Bool("plain") {
		opts["plain"] = ""
	}
	params := fmt.Sprintf("plain=%t", c.Bool("plain"))
	if c.IsSet("spool-max") {
		opts["spool-max"] = c.String("spool-max")
	}
	j := &batch.Job{
		Config: *cfg,
		Tool:   "zimdump warc",
		Params: params,
		Store:  cliutil.Store(),
		Stdin:  os.Stdin,
		Stdout: stdout,
		Stderr: stderr,
	}
	return j.Run(context.Background(), func(ctx context.Context, t *batch.Task) error {
		o := map[string]string{"output": t.Output}
		for k, v := range opts {
			o[k] = v
		}
		p := &parsed{cmd: "warc", opts: o, file: t.Input.Name}
		a, err := openArchive(p)
		if err != nil {
			return err
		}
		defer a.Close()
		e := &env{p: p, out: bufio.NewWriter(io.Discard), stdout: io.Discard, stderr: stderr, a: a, create: t.Create}
		if e.warc() == 0 {
			t.Records = warcRecords(a)
			return nil
		}
		if e.err != nil {
			return e.err
		}
		return batch.BadInput(errors.New("a damaged archive (zimdump check): no output"))
	})
}

// warcRecords is how many records zimdump warc wrote of a, once it
// succeeded: the warcinfo record and one per entry but the deprecated
// ones, as warc() skips them (for --emit jsonl and the done marker).
func warcRecords(a *zim.Archive) int64 {
	order, err := a.EfficientOrder()
	if err != nil {
		return 0
	}
	n := int64(1)
	for _, idx := range order {
		if ent, err := a.EntryAt(idx); err == nil && ent.Kind != zim.KindDeprecated {
			n++
		}
	}
	return n
}
