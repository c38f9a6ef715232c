package arc2warc

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/arcport/arcport/lib/internal/batch"
	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/record"
)

// batchFlags are the flags of batch mode (lib/internal/batch).
func batchFlags() []cli.Flag { return batch.Flags() }

// runBatch converts each input of the task's share of cfg's list to its
// own WARC named by the -o template (docs/batch.md). Record IDs are always
// derived from the input (--deterministic-ids), so every run of a task
// writes the same bytes: the IDs are otherwise random, and WARC-Date and
// everything else already come from the input.
func runBatch(cfg *batch.Config, o options, stdin io.Reader, stdout, stderr io.Writer) error {
	if o.maxSize > 0 {
		return cliutil.Usagef("--max-size does not go with --inputs: batch mode writes one output per input")
	}
	o.deterministic = true
	j := &batch.Job{
		Config: *cfg,
		Tool:   "arc2warc",
		// what shapes the bytes of an output (record IDs are always
		// deterministic here)
		Params: fmt.Sprintf("warc-version=%s compress=%s level=%d strict=%t recompress=%t",
			o.version, o.compression, o.level, o.policy == record.Fail, o.recompress),
		Store:   cliutil.Store(),
		Stdin:   stdin,
		Stdout:  stdout,
		Stderr:  stderr,
		Verbose: o.verbose,
	}
	return j.Run(context.Background(), func(ctx context.Context, t *batch.Task) error {
		o := o
		o.open = t.Open
		w := newSink(o, t.Output, nil, 0)
		w.create = t.Create
		defer w.Abort()
		st, err := convert(t.Input.Name, nil, w, o, stderr, t.Output)
		if err != nil {
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
		t.Records = w.records
		// As without --inputs: the output holds what could be salvaged,
		// and the input is reported (bad: exit 65, or recorded).
		if st.Skipped > 0 || st.Damaged > 0 || st.Repaired > 0 {
			return batch.BadInput(fmt.Errorf("%d record(s) or byte runs skipped, %d record(s) damaged, %d repaired; the output holds what could be salvaged", st.Skipped, st.Damaged, st.Repaired))
		}
		return nil
	})
}
